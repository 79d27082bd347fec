/**
 * `folio merge` as a child process on generated ISO-stamped logs, against GNU
 * sort as a child process: the merged bytes equal `LC_ALL=C sort -m -s -k1,1`
 * (equal stamps across files in file order, CRLF, no final newline, an empty
 * file), --from/--to equal awk's filter of sort's output, stack traces stay under
 * their line, and errors are typed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { MERGE_LOG_START, writeMergeLog } from '../fixtures/merge-logs.ts';

const tmp = engineTempDir();
const BIN = join(process.cwd(), 'bin/folio.mjs');
const C_LOCALE = { ...process.env, LC_ALL: 'C' };

function folio(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') }, maxBuffer: 256 << 20 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString('utf8') };
}

function sortMerge(files: string[]): Buffer {
  return execFileSync('sort', ['-m', '-s', '-k1,1', ...files], { env: C_LOCALE, maxBuffer: 256 << 20 });
}

/** awk's filter of sorted lines to first field in [from, to], as strings (ISO stamps of one width compare as their times). */
function awkBetween(sorted: Buffer, from: string, to: string): Buffer {
  return execFileSync('awk', ['-v', `F=${from}`, '-v', `T=${to}`, '$1 >= F && $1 <= T'], { input: sorted, env: C_LOCALE, maxBuffer: 256 << 20 });
}

const iso = (ms: number) => new Date(ms).toISOString();

describe('folio merge', () => {
  // Four files on one 1 ms clock: most stamps occur in several files at once.
  const a = tmp.path('a.log');
  const b = tmp.path('b-crlf.log');
  const c = tmp.path('c-open.log');
  const empty = tmp.path('d-empty.log');
  const e = tmp.path('e.log');
  writeMergeLog(a, { lines: 30_000, seed: 1 });
  writeMergeLog(b, { lines: 20_000, seed: 2, crlf: true });
  writeMergeLog(c, { lines: 25_000, seed: 3, finalNewline: false });
  writeFileSync(empty, '');
  // Over 1 MiB, so its index is persisted like a real log's.
  const big = writeMergeLog(e, { lines: 40_000, seed: 4, tickMs: 2 });
  const files = [a, b, empty, c, e];

  it('writes the bytes LC_ALL=C sort -m -s -k1,1 writes, equal stamps in file order', () => {
    const r = folio(['merge', ...files]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const sorted = sortMerge(files);
    expect(r.stdout.length).toBe(sorted.length);
    expect(r.stdout.equals(sorted)).toBe(true);
    // And in another order of the same files: ties follow the arguments.
    const reversed = [...files].reverse();
    expect(folio(['merge', ...reversed]).stdout.equals(sortMerge(reversed))).toBe(true);
  });

  it('keeps from --from to --to (inclusive) what awk keeps of sort -m, stamps present or not', () => {
    const sorted = sortMerge(files);
    const cases: [number, number][] = [
      [MERGE_LOG_START + 5_000, MERGE_LOG_START + 9_000],
      [MERGE_LOG_START + 4_321, MERGE_LOG_START + 4_321],
      [MERGE_LOG_START - 60_000, MERGE_LOG_START + 100],
      [MERGE_LOG_START + 17_000, big.lastMs + 60_000], // past the end of a, b and c: only e's lines
    ];
    for (const [from, to] of cases) {
      const r = folio(['merge', ...files, '--from', iso(from), '--to', iso(to)]);
      expect(r.stderr).toBe('');
      const want = awkBetween(sorted, iso(from), iso(to));
      expect(want.length).toBeGreaterThan(0);
      expect(r.stdout.toString('latin1')).toBe(want.toString('latin1'));
    }
  });

  it('keeps each stack trace under its stamped line, in time order, every line once', () => {
    const t1 = tmp.path('trace-1.log');
    const t2 = tmp.path('trace-2.log');
    const n1 = writeMergeLog(t1, { lines: 3_000, seed: 11, traceEvery: 7 }).lines;
    const n2 = writeMergeLog(t2, { lines: 3_000, seed: 12, traceEvery: 5 }).lines;
    const r = folio(['merge', t1, t2, '--json']);
    expect(r.status).toBe(0);
    const rows = r.stdout
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { file: number; path: string; line: number; time: string; text: string });
    expect(rows.length).toBe(n1 + n2);
    const lastLine = [0, 0];
    rows.forEach((row, k) => {
      expect(row.line).toBe(lastLine[row.file]! + 1); // each file in its own order, nothing skipped
      lastLine[row.file] = row.line;
      if (k > 0) expect(row.time >= rows[k - 1]!.time).toBe(true);
      if (row.text.startsWith('    at ')) {
        // under the line above it in its file, with that line's time
        expect(rows[k - 1]!.file).toBe(row.file);
        expect(rows[k - 1]!.line).toBe(row.line - 1);
        expect(row.time).toBe(rows[k - 1]!.time);
      } else {
        expect(row.time).toBe(row.text.slice(0, 24));
      }
    });
    expect(rows[0]!.path).toBe(t1);
  });

  it('keeps with --match the lines grep -E keeps of sort -m (and grep -Ei with -i), from --from too', () => {
    const sorted = sortMerge(files);
    const grep = (args: string[], input: Buffer) => execFileSync('grep', args, { input, env: C_LOCALE, maxBuffer: 256 << 20 });
    for (const pattern of ['ERROR', 'WARN|DEBUG', 'request 1[0-9]{3} took 8']) {
      const r = folio(['merge', ...files, '--match', pattern]);
      expect(r.stderr).toBe('');
      const want = grep(['-E', pattern], sorted);
      expect(want.length).toBeGreaterThan(0);
      expect(r.stdout.toString('latin1')).toBe(want.toString('latin1'));
    }
    const ci = folio(['merge', ...files, '--match', 'error|warn', '-i']);
    expect(ci.stdout.toString('latin1')).toBe(grep(['-Ei', 'error|warn'], sorted).toString('latin1'));
    const from = iso(MERGE_LOG_START + 5_000);
    const to = iso(MERGE_LOG_START + 9_000);
    const ranged = folio(['merge', ...files, '--from', from, '--to', to, '--match', 'ERROR', '--tag']);
    const tagged = ranged.stdout.toString('latin1').replace(/^[^\n]*?:(?=2026-)/gm, '');
    expect(tagged).toBe(grep(['-E', 'ERROR'], awkBetween(sorted, from, to)).toString('latin1'));
  });

  it('fails with invalid_input for a --match that is no regex', () => {
    const r = folio(['merge', a, b, '--match', '(unclosed']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^folio: invalid_input: match is not a regular expression/);
    expect(r.stdout.length).toBe(0);
  });

  it('takes a directory (its stamped files by name) and a quoted glob, as sort -m takes the files', () => {
    const dir = tmp.path('logdir');
    mkdirSync(join(dir, 'sub'), { recursive: true });
    writeMergeLog(join(dir, 'c.log'), { lines: 2_000, seed: 41 });
    writeMergeLog(join(dir, 'a.log'), { lines: 1_500, seed: 42, crlf: true });
    writeMergeLog(join(dir, 'b.txt'), { lines: 1_000, seed: 43, traceEvery: 9 });
    writeMergeLog(join(dir, 'sub', 'd.log'), { lines: 700, seed: 44 });
    writeFileSync(join(dir, 'README.md'), '# logs of the run\n\nnothing stamped here\n');
    writeFileSync(join(dir, 'empty.log'), '');
    const inDir = ['a.log', 'b.txt', 'c.log'].map((n) => join(dir, n));
    const whole = folio(['merge', dir]);
    expect(whole.stderr).toBe('');
    expect(whole.stdout.equals(sortMerge(inDir))).toBe(true);
    const logsOnly = folio(['merge', join(dir, '*.log')]);
    expect(logsOnly.stderr).toBe('');
    expect(logsOnly.stdout.equals(sortMerge([join(dir, 'a.log'), join(dir, 'c.log')]))).toBe(true);
    const deep = folio(['merge', join(dir, '**/*.log'), '--tag', '--to', iso(MERGE_LOG_START + 40)]);
    const tags = new Set(
      deep.stdout
        .toString('utf8')
        .split('\n')
        .slice(0, -1)
        .map((l) => l.slice(0, l.indexOf(':2026-'))),
    );
    expect([...tags].sort()).toEqual([join(dir, 'a.log'), join(dir, 'c.log'), join(dir, 'sub', 'd.log')]);
    // A file and a glob together: the file first in tie order.
    expect(folio(['merge', e, join(dir, '*.log')]).stdout.equals(sortMerge([e, join(dir, 'a.log'), join(dir, 'c.log')]))).toBe(true);
  });

  it('fails with invalid_input for a directory or glob without a stamped log', () => {
    const bare = tmp.path('bare');
    mkdirSync(bare);
    writeFileSync(join(bare, 'notes.txt'), 'hello\n');
    const r = folio(['merge', bare]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^folio: invalid_input: no stamped log among the files of .*bare/);
    const none = folio(['merge', join(bare, '*.log')]);
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/^folio: invalid_input: no stamped log in .*\*\.log/);
  });

  it('tags each line with its file name', () => {
    const r = folio(['merge', a, b, '--tag', '--to', iso(MERGE_LOG_START + 50)]);
    const lines = r.stdout.toString('utf8').split('\n').slice(0, -1);
    expect(lines.length).toBeGreaterThan(10);
    for (const l of lines) expect(l.startsWith(`${a}:2026-`) || l.startsWith(`${b}:2026-`)).toBe(true);
  });

  it('ends quietly when its reader goes away (EPIPE: status 141, as sort | head)', () => {
    const p = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${BIN}" merge "${a}" "${e}" | head -c 100 > /dev/null`], { encoding: 'utf8' });
    expect(p.stderr).toBe('');
    expect(p.status).toBe(141);
  });

  it('fails with a typed error for a missing file, a file without stamps, and a --from that is no time', () => {
    const missing = folio(['merge', a, tmp.path('nope.log')]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^folio: not_found: .*nope\.log/);
    const plain = tmp.path('plain.txt');
    writeFileSync(plain, 'hello\nworld\n');
    const unstamped = folio(['merge', a, plain]);
    expect(unstamped.status).toBe(1);
    expect(unstamped.stderr).toMatch(/^folio: no_timestamps: .*plain\.txt/);
    const badFrom = folio(['merge', a, b, '--from', 'yesterday-ish']);
    expect(badFrom.status).toBe(1);
    expect(badFrom.stderr).toMatch(/^folio: invalid_input: from is not a time: "yesterday-ish"/);
    const json = folio(['merge', a, plain, '--json']);
    expect(JSON.parse(json.stdout.toString('utf8'))).toMatchObject({ error: { code: 'no_timestamps', path: plain } });
    expect(missing.stdout.length + unstamped.stdout.length + badFrom.stdout.length).toBe(0);
  });

  it('ends a --match that backtracks at its budget: timeout naming the file and line, exit 1', () => {
    const evil = tmp.path('evil.log');
    writeFileSync(evil, `2026-01-01T00:00:00.000Z INFO ${'a'.repeat(40)}!\n2026-01-01T00:00:01.000Z INFO fine\n`);
    const r = spawnSync(process.execPath, [BIN, 'merge', evil, a, '--match', '(a+)+$', '-i'], {
      env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache'), FOLIO_SEARCH_TIMEOUT_MS: '1500' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^folio: timeout: match \/\(a\+\)\+\$\/i ran past its 1500 ms budget on the lines of .*evil\.log from line 1/);
  });
});
