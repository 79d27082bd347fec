/**
 * No import cycles in src-main. A cycle makes load order matter (a module sees a
 * half-initialised one: an undefined import, or a TDZ error on a class), and means
 * neither module can be read or changed alone.
 *
 * `import type` edges are left out, and only they: they are erased before the code
 * runs, so they cannot change load order, and the ones left are a helper naming
 * the type of the object it is handed (review/*.ts taking a ReviewStore whose
 * `locked` settles intents; the index's byte source answering a LineIndex). Moving
 * such an interface away from its class to please a graph would make the code
 * harder to find, not easier.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importCycles, importGraph } from './import-graph.ts';

const valueCycles = (root: string, files?: Record<string, string>) => importCycles(importGraph(root, files).filter((e) => !e.typeOnly));

describe('src-main has no import cycle', () => {
  it('through value imports (static import and export-from)', () => {
    const edges = importGraph('src-main');
    // The walk saw the tree: a graph of a handful of edges would pass vacuously.
    expect(edges.length).toBeGreaterThan(500);
    const cycles = valueCycles('src-main');
    expect(cycles, `import cycles in src-main:\n${cycles.join('\n')}`).toEqual([]);
  });
});

describe('the cycle check fires', () => {
  const dir = mkdtempSync(join(tmpdir(), 'folio-cycles-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const tree = (name: string, files: Record<string, string>): string => {
    const root = join(dir, name);
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, rel)), { recursive: true });
      writeFileSync(join(root, rel), text);
    }
    return root;
  };

  it('on a cycle of three files on disk, printing the path', () => {
    const root = tree('three', {
      'review/a.ts': `import { b } from './b.ts';\nexport const a = () => b;\n`,
      'review/b.ts': `export { c as b } from '../engine/c.mjs';\n`,
      'engine/c.mjs': `import '../review/a.ts';\nexport const c = 1;\n`,
      'engine/d.ts': `import { c } from './c.mjs';\nexport const d = c;\n`,
    });
    expect(valueCycles(root)).toEqual(['engine/c.mjs -> review/a.ts -> review/b.ts -> engine/c.mjs']);
  });

  it('on a module importing itself and on a two-file cycle through a .tsx', () => {
    const root = tree('small', {
      'self.ts': `import './self.ts';\n`,
      'view.tsx': `import { main } from './main.ts';\nexport const View = () => main;\n`,
      'main.ts': `import { View } from './view.tsx';\nexport const main = 1;\nexport { View };\n`,
    });
    expect(valueCycles(root)).toEqual(['main.ts -> view.tsx -> main.ts', 'self.ts -> self.ts']);
  });

  it('names every cycle once, however many files share it', () => {
    const files = {
      'a.ts': `import './b.ts';\nimport './c.ts';\n`,
      'b.ts': `import './a.ts';\n`,
      'c.ts': `import './a.ts';\n`,
      'x.ts': `import './y.ts';\n`,
      'y.ts': `import './x.ts';\n`,
    };
    expect(valueCycles('/fixture', files)).toEqual(['a.ts -> b.ts -> a.ts (component of 3 files)', 'x.ts -> y.ts -> x.ts']);
  });

  it('but not on import type, nor on import() or a package', () => {
    const files = {
      'store.ts': `import { settle } from './settle.ts';\nexport class Store { run() { return settle(this); } }\n`,
      'settle.ts': `import type { Store } from './store.ts';\nexport const settle = (s: Store) => s;\n`,
      'lazy.ts': `export const later = () => import('./main.ts');\nimport 'zod';\n`,
      'main.ts': `import { later } from './lazy.ts';\nexport const m = later;\n`,
    };
    expect(valueCycles('/fixture', files)).toEqual([]);
    // The same edges with the types counted: the type edge is seen, only set aside.
    expect(importCycles(importGraph('/fixture', files))).toEqual(['settle.ts -> store.ts -> settle.ts']);
  });

  it('counts an import whose names are all `type` as loading the module', () => {
    const files = {
      'a.ts': `import { type B } from './b.ts';\nexport type A = B;\n`,
      'b.ts': `import { a } from './a.ts';\nexport type B = typeof a;\n`,
    };
    expect(valueCycles('/fixture', files)).toEqual(['a.ts -> b.ts -> a.ts']);
  });
});
