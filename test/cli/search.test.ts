import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir, writeLogFile } from '../fixtures/generate.ts';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const BIN = join(process.cwd(), 'bin/folio.mjs');
const folio = (args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') } });

const log = tmp.path('app.log');
writeLogFile(log, 400_000, 8);
const lines = readFileSync(log, 'utf8').split('\n');

describe('folio search', () => {
  it('--json prints {matches: [{line, byte_offset, text}], ...} and honours --max with a cursor', () => {
    const r = folio(['search', log, 'ERROR', '--max', '5', '--json']);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    const expected = lines.map((l, i) => [i + 1, l] as const).filter(([, l]) => l.includes('ERROR'));
    expect(out.matches.map((m: { line: number }) => m.line)).toEqual(expected.slice(0, 5).map(([n]) => n));
    expect(out.matches[0].text).toBe(expected[0]![1]);
    expect(out.truncated).toBe(true);
    const next = JSON.parse(folio(['search', log, 'ERROR', '--max', '5', '--start-byte', String(out.next_start_byte), '--json']).stdout);
    expect(next.matches[0].line).toBe(expected[5]![0]);
  });

  it('--count equals grep -c; human output is LINE:text like grep -n', () => {
    const grep = spawnSync('grep', ['-c', 'WARN', log], { encoding: 'utf8' }).stdout.trim();
    expect(folio(['search', log, 'WARN', '--count']).stdout.trim()).toBe(grep);
    const human = folio(['search', log, 'auth.*timeout', '--max', '3']).stdout.split('\n');
    const grepN = spawnSync('grep', ['-nE', 'auth.*timeout', log], { encoding: 'utf8' }).stdout.split('\n').slice(0, 3);
    expect(human.slice(0, 3)).toEqual(grepN);
    expect(human[3]).toMatch(/^-- 3 matching lines shown \(cap reached\); continue with --start-byte \d+$/);
  });

  it('a bad regex is a typed error (exit 1); a missing argument is a usage error (exit 2)', () => {
    const r = folio(['search', log, 'a(', '--json']);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).error.code).toBe('invalid_input');
    expect(folio(['search', log]).status).toBe(2);
    expect(folio(['search', tmp.path('missing'), 'x', '--json']).stdout).toContain('"not_found"');
  });
});
