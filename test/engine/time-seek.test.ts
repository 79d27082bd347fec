/**
 * time_seek through the operation table on generated logs in every stamp format:
 * the line found is checked against awk (ISO stamps compare as strings) and the
 * generator's stamps; reads stay O(log n); out-of-order and stamp-less files get
 * typed answers naming the lines, checked with sed.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { isFolioError } from '../../src-main/engine/errors.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { prng } from '../fixtures/generate.ts';
import { writeTimedLog, type StampFormat } from '../fixtures/timed-log.ts';
import { closeHistogramPools } from '../../src-main/engine/search/histogram.ts';

const tmp = engineTempDir();
afterAll(() => closeHistogramPools());
const ME = { kind: 'human', name: 'test' } as const;

const sed = (file: string, lineNo: number) => execFileSync('sed', ['-n', `${lineNo}p`, file], { encoding: 'utf8' }).replace(/\n$/, '');

async function seekError(path: string, time: string | number) {
  try {
    await handle('time_seek', { path, time }, ME);
  } catch (err) {
    if (isFolioError(err)) return err;
    throw err;
  }
  throw new Error('time_seek answered');
}

describe('time_seek', () => {
  it('finds the first line at or after a time in an ISO log with stack traces, as awk does, in O(log n) windows', async () => {
    const file = tmp.path('iso.log');
    const log = writeTimedLog(file, { lines: 60_000, traceEvery: 7 });
    const rand = prng(3);
    const first = log.stamps[0]!.ms;
    const last = log.stamps[log.stamps.length - 1]!.ms;
    for (let k = 0; k < 25; k++) {
      const target = new Date(first + Math.floor(rand() * (last - first))).toISOString();
      const r = await handle('time_seek', { path: file, time: target }, ME);
      const awk = execFileSync('awk', ['-v', `t=${target}`, '/^[0-9][0-9][0-9][0-9]-/ && $1 >= t { print NR; exit }', file], { encoding: 'utf8' }).trim();
      expect(r.line, target).toBe(Number(awk));
      expect(sed(file, r.line).startsWith(r.time)).toBe(true);
      // 16 samples, the last line, and a bisection of ~66k lines.
      expect(r.probes).toBeLessThanOrEqual(16 + 2 + Math.ceil(Math.log2(log.lines)));
    }
    // Before the first stamp: line 1; exactly a stamp: that line.
    expect((await handle('time_seek', { path: file, time: '2000-01-01T00:00:00Z' }, ME)).line).toBe(1);
    const s = log.stamps[500]!;
    expect((await handle('time_seek', { path: file, time: s.ms }, ME)).line).toBe(log.stamps.find((x) => x.ms === s.ms)!.lineNo);
  });

  it.each<StampFormat>(['iso8601-space-zone', 'syslog', 'apache', 'epoch_s', 'epoch_ms'])('finds times in a %s log', async (format) => {
    const file = tmp.path(`${format}.log`);
    // Syslog stamps carry no year: they are read in the file's modification year (this one).
    const startMs = Date.UTC(new Date().getUTCFullYear(), 4, 1);
    const log = writeTimedLog(file, { lines: 20_000, format, stepMs: 700, traceEvery: 11, startMs });
    const rand = prng(5);
    for (let k = 0; k < 10; k++) {
      const pick = log.stamps[Math.floor(rand() * log.stamps.length)]!;
      const r = await handle('time_seek', { path: file, time: pick.ms + 1 }, ME);
      const want = log.stamps.find((x) => x.ms >= pick.ms + 1)!;
      expect(r.line).toBe(want.lineNo);
      expect(r.time).toBe(new Date(want.ms).toISOString());
      expect(r.format).toBe(format === 'iso8601-space-zone' ? 'iso8601' : format);
    }
  });

  it('says the stamps are out of order and names two lines, as sed shows them', async () => {
    const file = tmp.path('clock-back.log');
    writeTimedLog(file, { lines: 30_000, clockBackAfter: 17_000 });
    const err = await seekError(file, '2024-05-01T01:00:00Z');
    expect(err.code).toBe('not_ordered');
    const d = err.details as { line_before: number; time_before: string; line_after: number; time_after: string };
    expect(d.line_before).toBeLessThan(d.line_after);
    expect(d.time_before > d.time_after).toBe(true);
    expect(sed(file, d.line_before).startsWith(d.time_before)).toBe(true);
    expect(sed(file, d.line_after).startsWith(d.time_after)).toBe(true);
  });

  it('answers no_timestamps, invalid_input and out_of_bounds with what to do', async () => {
    const plain = tmp.path('plain.txt');
    writeFileSync(plain, 'no stamps here\n'.repeat(1000));
    expect((await seekError(plain, '12:00')).code).toBe('no_timestamps');
    const file = tmp.path('small.log');
    const log = writeTimedLog(file, { lines: 500 });
    const bad = await seekError(file, 'next tuesday');
    expect(bad.code).toBe('invalid_input');
    expect(bad.message).toMatch(/not a time: "next tuesday"/);
    const late = await seekError(file, log.stamps[log.stamps.length - 1]!.ms + 1);
    expect(late.code).toBe('out_of_bounds');
    expect(late.details).toMatchObject({ last_time: new Date(log.stamps[log.stamps.length - 1]!.ms).toISOString() });
  });
});
