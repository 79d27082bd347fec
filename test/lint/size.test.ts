import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function sizeRules(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  expect((result?.messages ?? []).filter((m) => m.fatal)).toEqual([]);
  return (result?.messages ?? []).map((m) => m.ruleId ?? '').filter((r) => r.startsWith('max-lines'));
}

const statements = (n: number, indent = '') => Array.from({ length: n }, (_, i) => `${indent}export const v${i} = ${i};`).join('\n') + '\n';
const fn = (n: number) => `export function f(): number {\n  let x = 0;\n${Array.from({ length: n - 4 }, () => '  x++;').join('\n')}\n  return x;\n}\n`;

describe('a source file stays under 450 lines of code and a function under 120', () => {
  it('fails a module of 451 lines of code, in src-main and src-renderer', async () => {
    expect(await sizeRules('src-main/engine/read/x.ts', statements(451))).toEqual(['max-lines']);
    expect(await sizeRules('src-renderer/stores/x.ts', statements(451))).toEqual(['max-lines']);
    expect(await sizeRules('src-main/engine/read/x.ts', statements(450))).toEqual([]);
  });

  it('does not count comments and blank lines', async () => {
    const commented = Array.from({ length: 400 }, (_, i) => `// why ${i}\n\nexport const v${i} = ${i};`).join('\n') + '\n';
    expect(await sizeRules('src-main/review/x.ts', commented)).toEqual([]);
  });

  it('fails a function of 121 lines, in a .ts, .mjs and .tsx', async () => {
    expect(await sizeRules('src-main/api/x.ts', fn(121))).toEqual(['max-lines-per-function']);
    expect(await sizeRules('src-main/engine/kernels/x.mjs', fn(121).replace(': number', ''))).toEqual(['max-lines-per-function']);
    expect(await sizeRules('src-renderer/components/X.tsx', fn(121))).toEqual(['max-lines-per-function']);
    expect(await sizeRules('src-main/api/x.ts', fn(120))).toEqual([]);
  });

  it('leaves tests alone', async () => {
    expect(await sizeRules('test/engine/x.test.ts', statements(600) + fn(200))).toEqual([]);
  });
});
