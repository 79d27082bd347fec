import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** One edge of the graph: `from` imports `to` (both relative to the root walked). */
export interface ImportEdge {
  from: string;
  to: string;
  /** `import type` / `export type`, or every named binding marked `type`: erased at run time. */
  typeOnly: boolean;
}

const SOURCE = /\.(ts|tsx|mts|mjs)$/;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (SOURCE.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/**
 * `import type` / `export type`: erased by every tool that runs Folio's TypeScript
 * (tsc, esbuild, Node's type stripping), so it never loads the module. An import
 * whose every name is marked `type` (`import { type A }`) is NOT counted as erased:
 * under verbatimModuleSyntax it stays as `import {} from`, which loads the module.
 */
function isTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  return ts.isExportDeclaration(node) ? node.isTypeOnly : !!node.importClause?.isTypeOnly;
}

/**
 * The static imports (and export-from) between the source files under `root`, read
 * with the TypeScript parser (no type check). Dynamic `import()` is left out on
 * purpose: it runs after the importer has finished loading, so it cannot make a
 * load-order cycle, and it is how Folio loads things on first use. Specifiers that
 * leave `root` or name a package are not edges.
 */
export function importGraph(root: string, files: Record<string, string> | undefined = undefined): ImportEdge[] {
  const abs = resolve(root);
  const texts: [string, string][] = files
    ? Object.entries(files).map(([rel, text]) => [join(abs, rel), text])
    : sourceFiles(abs).map((path) => [path, readFileSync(path, 'utf8')]);
  const known = new Set(texts.map(([path]) => path));
  const edges: ImportEdge[] = [];
  for (const [path, text] of texts) {
    const kind = path.endsWith('x') ? ts.ScriptKind.TSX : path.endsWith('.mjs') ? ts.ScriptKind.JS : ts.ScriptKind.TS;
    const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, kind);
    for (const node of sf.statements) {
      if (!(ts.isImportDeclaration(node) || ts.isExportDeclaration(node))) continue;
      const spec = node.moduleSpecifier;
      if (!spec || !ts.isStringLiteral(spec) || !spec.text.startsWith('.')) continue;
      const target = resolve(dirname(path), spec.text);
      if (!known.has(target) && !(files === undefined && existsSync(target))) continue;
      edges.push({ from: relative(abs, path), to: relative(abs, target), typeOnly: isTypeOnly(node) });
    }
  }
  return edges;
}

/**
 * Every import cycle, one per strongly connected component (Tarjan, 1972), each
 * written as a path `a -> b -> … -> a` through that component, sorted.
 */
export function importCycles(edges: ImportEdge[]): string[] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    if (!next.has(e.from)) next.set(e.from, []);
    if (!next.has(e.to)) next.set(e.to, []);
    next.get(e.from)!.push(e.to);
  }
  for (const list of next.values()) list.sort();
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || next.get(v)!.includes(v)) components.push(comp);
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return components.map((comp) => cyclePath(comp, next)).sort();
}

/** A shortest cycle through the component's first file (breadth-first inside it). */
function cyclePath(comp: string[], next: Map<string, string[]>): string {
  const inside = new Set(comp);
  const start = [...comp].sort()[0]!;
  const parent = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of next.get(v)!) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let u = v; u !== start; u = parent.get(u)!) path.splice(1, 0, u);
        const more = comp.length > path.length ? ` (component of ${comp.length} files)` : '';
        return [...path, start].join(' -> ') + more;
      }
      if (!parent.has(w)) {
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  return comp.join(' -> ');
}
