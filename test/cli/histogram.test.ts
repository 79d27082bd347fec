/**
 * `folio histogram` and `folio time` as child processes on generated logs: the
 * counts per minute and level equal awk's over the same file, totals equal
 * grep -c and wc -l, byte-range slices add up to the whole, and a log whose
 * clock goes back says where (checked with sed).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { handle, operations } from '../../src-main/api/handle.ts';
import { closeHistogramPools } from '../../src-main/engine/search/histogram.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { writeTimedLog } from '../fixtures/timed-log.ts';

const tmp = engineTempDir();
afterAll(() => closeHistogramPools());
const BIN = join(process.cwd(), 'bin/folio.mjs');
const ME = { kind: 'human', name: 'test' } as const;

function folio(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

type Counts = Record<'error' | 'warn' | 'info' | 'debug' | 'other', number>;

/** awk's count per minute ("YYYY-MM-DDTHH:MM") and level; unstamped lines count under the stamp before them, as "other". */
function awkPerMinute(file: string): Map<string, Counts> {
  const prog = `
    /^[0-9][0-9][0-9][0-9]-/ { key = substr($1, 1, 16); lv = $2 }
    !/^[0-9][0-9][0-9][0-9]-/ { lv = "-" }
    { l = (lv == "ERROR") ? "error" : (lv == "WARN") ? "warn" : (lv == "INFO") ? "info" : (lv == "DEBUG" || lv == "TRACE") ? "debug" : "other"; n[key " " l]++ }
    END { for (k in n) print k, n[k] }`;
  const out = execFileSync('awk', [prog, file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const m = new Map<string, Counts>();
  for (const row of out.trim().split('\n')) {
    const [key, level, n] = row.split(' ') as [string, keyof Counts, string];
    if (!m.has(key)) m.set(key, { error: 0, warn: 0, info: 0, debug: 0, other: 0 });
    m.get(key)![level] = Number(n);
  }
  return m;
}

describe('folio histogram', () => {
  const file = tmp.path('app.log');
  // ~14 MB: more than the 8 MiB a single thread takes, so the workers split it.
  const log = writeTimedLog(file, { lines: 240_000, traceEvery: 13, stepMs: 40 });

  it('counts lines per minute and level as awk does, over the whole file, in workers', () => {
    const r = folio(['histogram', file, '--bucket-ms', '60000', '--json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const h = JSON.parse(r.stdout);
    // The answer is what the table declares (HTTP and the CLI print it as it is).
    expect(operations.histogram.output.parse(h)).toEqual(h);
    expect(h.format).toBe('iso8601');
    expect(h.order_break).toBeNull();
    const awk = awkPerMinute(file);
    const ours = new Map<string, Counts>();
    h.buckets.forEach((b: Counts, i: number) => {
      if (Object.values(b).some((n) => n > 0)) ours.set(new Date(h.origin_ms + i * h.bucket_ms).toISOString().slice(0, 16), b);
    });
    expect(ours).toEqual(awk);
    expect(h.lines).toBe(Number(execFileSync('wc', ['-l', file], { encoding: 'utf8' }).split(' ')[0]));
    expect(h.lines).toBe(log.lines);
    const errors = h.buckets.reduce((n: number, b: Counts) => n + b.error, 0);
    expect(errors).toBe(Number(execFileSync('grep', ['-c', '-E', '^[^ ]+ ERROR ', file], { encoding: 'utf8' })));
  });

  it('prints one row per bucket for a person, with the totals', () => {
    const r = folio(['histogram', file, '--buckets', '10']);
    expect(r.status).toBe(0);
    const rows = r.stdout.trim().split('\n');
    expect(rows.length).toBeLessThanOrEqual(11);
    expect(rows[0]).toMatch(/^2024-05-01T00:00:00\.000Z {2}error [\d,]+ {2}warn/);
    expect(rows[rows.length - 1]).toMatch(new RegExp(`^${log.lines.toLocaleString('en-US')} lines, \\d+ buckets of \\d+ s, iso8601 stamps`));
  });

  it('adds up over byte-range slices cut mid-line to the whole file', async () => {
    const size = statSync(file).size;
    const whole = await handle('histogram', { path: file, max_buckets: 50 }, ME);
    const cuts = [0, 1_234_567, 7_777_777, 9_000_001, size];
    const sum = whole.buckets.map(() => ({ error: 0, warn: 0, info: 0, debug: 0, other: 0 }));
    let lines = 0;
    for (let i = 0; i + 1 < cuts.length; i++) {
      const part = await handle('histogram', { path: file, max_buckets: 50, start_byte: cuts[i], end_byte: cuts[i + 1] }, ME);
      expect(part.bucket_ms).toBe(whole.bucket_ms);
      expect(part.origin_ms).toBe(whole.origin_ms);
      part.buckets.forEach((b, k) => {
        for (const l of ['error', 'warn', 'info', 'debug', 'other'] as const) sum[k]![l] += b[l];
      });
      lines += part.lines;
    }
    expect(lines).toBe(whole.lines);
    expect(sum).toEqual(whole.buckets);
  });

  it('says where the clock goes back, as sed shows the line', () => {
    const back = tmp.path('back.log');
    writeTimedLog(back, { lines: 200_000, stepMs: 40, clockBackAfter: 120_000 });
    const h = JSON.parse(folio(['histogram', back, '--json']).stdout);
    expect(h.order_break).not.toBeNull();
    const line = execFileSync('sed', ['-n', `${h.order_break.line}p`, back], { encoding: 'utf8' });
    expect(line.startsWith(h.order_break.time)).toBe(true);
    expect(h.order_break.time < h.order_break.time_before).toBe(true);
    expect(h.order_break.line).toBe(120_001);
    const total = (c: Counts) => c.error + c.warn + c.info + c.debug + c.other;
    expect(h.buckets.reduce((n: number, b: Counts) => n + total(b), 0) + total(h.outside) + total(h.unstamped)).toBe(200_000);
  });

  it('folio time prints the line and its time; a file without stamps is refused with exit 1', () => {
    const r = folio(['time', file, '2024-05-01T01:00:00.000Z']);
    expect(r.status).toBe(0);
    const want = execFileSync('awk', ['-v', 't=2024-05-01T01:00:00.000Z', '/^[0-9][0-9][0-9][0-9]-/ && $1 >= t { print NR; exit }', file], {
      encoding: 'utf8',
    }).trim();
    expect(r.stdout).toMatch(new RegExp(`^line ${Number(want).toLocaleString('en-US')} \\(byte [\\d,]+\\) at 2024-05-01T01:00:0`));
    const json = JSON.parse(folio(['time', file, '2024-05-01T01:00:00.000Z', '--json']).stdout);
    expect(operations.time_seek.output.parse(json)).toEqual(json);
    const none = folio(['time', BIN, '12:00', '--json']);
    expect(none.status).toBe(1);
    expect(JSON.parse(none.stdout).error.code).toBe('no_timestamps');
  });
});
