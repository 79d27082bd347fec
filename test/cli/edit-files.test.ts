/**
 * `folio edit A B C --old T --new T`: the pairs apply to every file, all or none,
 * journaled as one group that `folio review undo` takes back whole. Checked against
 * grep on the same files.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-cli-edit-files-');
afterAll(() => tmp.cleanup());
const BIN = join(process.cwd(), 'bin/folio.mjs');
const ws = tmp.path('ws');

function folio(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', cwd: ws, env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
const grepCount = (word: string) => {
  const r = spawnSync('grep', ['-rcw', word, 'src'], { cwd: ws, encoding: 'utf8' });
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => Number(l.split(':')[1]))
    .reduce((a, b) => a + b, 0);
};

describe('folio edit over several files', () => {
  it('applies to every file, refuses all when one quote fails, and review undo takes the group back', () => {
    mkdirSync(join(ws, 'src'), { recursive: true });
    const files = ['src/api.ts', 'src/service.ts', 'src/cache.ts'];
    const before = ['import { fetchOrder } from "./service";\nfetchOrder(1);\n', 'export function fetchOrder() {}\n', 'const x = fetchOrder;\n'];
    files.forEach((f, i) => writeFileSync(join(ws, f), before[i]!));
    expect(grepCount('fetchOrder')).toBe(4);

    const usage = folio(['edit', ...files, '--old', 'fetchOrder', '--new', 'loadOrder', '--if-match', 'x']);
    expect(usage.status).toBe(2);

    const bad = folio([
      'edit',
      ...files,
      '--old',
      'fetchOrder',
      '--new',
      'loadOrder',
      '--old',
      'import {',
      '--new',
      'import type {',
      '--replace-all',
      '--json',
    ]);
    expect(bad.status).toBe(1);
    // The quote is missing from service.ts and cache.ts: the first checked (in path order) is named.
    expect(JSON.parse(bad.stdout || bad.stderr).error).toMatchObject({ code: 'no_match', file: 2, message: expect.stringContaining('src/cache.ts') });
    expect(grepCount('fetchOrder')).toBe(4);

    const ok = folio(['edit', ...files, '--old', 'fetchOrder', '--new', 'loadOrder', '--replace-all', '--json']);
    expect(ok.status, ok.stderr).toBe(0);
    const answer = JSON.parse(ok.stdout);
    expect(answer.files).toHaveLength(3);
    expect(answer.group_id).toMatch(/^g-/);
    expect(grepCount('fetchOrder')).toBe(0);
    expect(grepCount('loadOrder')).toBe(4);

    execFileSync(process.execPath, [BIN, 'review', 'undo', '--root', ws], { cwd: ws, env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') } });
    files.forEach((f, i) => expect(readFileSync(join(ws, f), 'utf8')).toBe(before[i]));
  });
});
