/**
 * The histogram for agents (issue 27, logs for agents), inside the outline tool (no
 * tool more on the list): the outline of a stamped file that is not markdown is its
 * lines per level per time bucket, through `folio mcp` with the real SDK client and
 * `folio outline` (a real child process). Checked against awk counting the same file
 * into the same buckets; each bucket's time, sent back as read {time}, reads from
 * the line awk finds. Markdown and unstamped files keep their headings.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, connectStdio, okBody as ok, type McpSession } from '../fixtures/mcp-client.ts';
import { prng, tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-log-outline-');
const ws = tmp.path('ws');
let mcp: McpSession;

/** 30,000 lines over ~10 hours, levels at random, with a burst of errors at 14:00. */
function writeLog(path: string): void {
  const rand = prng(5);
  const lines: string[] = [];
  let t = Date.parse('2024-05-14T08:00:00Z');
  for (let i = 1; i <= 30_000; i++) {
    t += Math.floor(rand() * 2400);
    const burst = t >= Date.parse('2024-05-14T14:00:00Z') && t < Date.parse('2024-05-14T14:20:00Z');
    const level = burst && rand() < 0.7 ? 'ERROR' : ['INFO', 'INFO', 'WARN', 'DEBUG', 'ERROR'][Math.floor(rand() * 5)];
    lines.push(`${new Date(t).toISOString()} ${level} [svc-${i % 4}] request ${i}`);
  }
  writeFileSync(path, lines.join('\n') + '\n');
}

beforeAll(async () => {
  mkdirSync(ws, { recursive: true });
  writeLog(join(ws, 'app.log'));
  writeFileSync(join(ws, 'notes.txt'), '# Title\n\nplain text, no times\n');
  writeFileSync(join(ws, 'guide.md'), '2024-05-14T08:00:00Z is when\n\n# Start\n\n## Next\n');
  mcp = await connectStdio(ws, { cacheDir: tmp.path('cache'), clientName: 'log-outline' });
});
afterAll(async () => {
  await mcp?.close();
  tmp.cleanup();
});

/** Lines per level in [from, from + width) ms for each bucket start, counted by awk on the ISO stamps. */
function awkCounts(path: string, starts: string[], widthMs: number): number[][] {
  const ends = starts.map((s) => new Date(Date.parse(s) + widthMs).toISOString());
  const prog = `BEGIN { n = split(S, s, ","); split(E, e, ",") }
    { lv = ($2 == "ERROR") ? 1 : ($2 == "WARN") ? 2 : ($2 == "INFO") ? 3 : ($2 == "DEBUG") ? 4 : 5
      for (i = 1; i <= n; i++) if ($1 >= s[i] && $1 < e[i]) { c[i, lv]++; break } }
    END { for (i = 1; i <= n; i++) print c[i,1]+0, c[i,2]+0, c[i,3]+0, c[i,4]+0, c[i,5]+0 }`;
  const out = execFileSync('awk', ['-v', `S=${starts.join(',')}`, '-v', `E=${ends.join(',')}`, prog, path], { encoding: 'utf8' });
  return out
    .trim()
    .split('\n')
    .map((l) => l.split(' ').map(Number));
}

describe('outline of a log', () => {
  it('over MCP: at most 24 buckets whose counts are what awk counts, the error burst where it is', async () => {
    const r = ok(await mcp.call('outline', { path: 'app.log' }));
    expect(r.headings).toEqual([]);
    const log = r.log;
    expect(log).toMatchObject({ format: 'iso8601', levels: ['error', 'warn', 'info', 'debug', 'other'], lines: 30_000, out_of_order_at_line: null });
    expect(log.buckets.length).toBeLessThanOrEqual(24);
    const starts = log.buckets.map((b: { time: string }) => b.time);
    expect(log.buckets.map((b: { counts: number[] }) => b.counts)).toEqual(awkCounts(join(ws, 'app.log'), starts, log.bucket_ms));
    const errors = log.buckets.map((b: { counts: number[] }) => b.counts[0]);
    const peak = log.buckets[errors.indexOf(Math.max(...errors))];
    expect(Date.parse(peak.time)).toBeLessThanOrEqual(Date.parse('2024-05-14T14:20:00Z'));
    expect(Date.parse(peak.time) + log.bucket_ms).toBeGreaterThan(Date.parse('2024-05-14T14:00:00Z'));

    // The bucket's time is what read {time} takes: it reads from the first line awk finds there.
    const read = ok(await mcp.call('read', { path: 'app.log', time: peak.time, limit: 3 }));
    const first = Number(execFileSync('awk', ['-v', `t=${peak.time}`, '$1 >= t { print NR; exit }', join(ws, 'app.log')], { encoding: 'utf8' }));
    expect(read.start_line).toBe(first);
    expect(read.content).toBe(execFileSync('sed', ['-n', `${first},${first + 2}p`, join(ws, 'app.log')], { encoding: 'utf8' }));
  });

  it('markdown, and a file without time stamps, keep their headings', async () => {
    const md = ok(await mcp.call('outline', { path: 'guide.md' }));
    expect(md.log).toBeUndefined();
    expect(md.headings.map((h: { path: string }) => h.path)).toEqual(['Start', 'Start > Next']);
    const txt = ok(await mcp.call('outline', { path: 'notes.txt' }));
    expect(txt.log).toBeUndefined();
    expect(txt.headings.map((h: { text: string }) => h.text)).toEqual(['Title']);
    // A UTF-16 file (stamped or not) is no log here: it answers as its markdown outline does.
    writeFileSync(join(ws, 'wide.txt'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('2024-05-14T08:00:00Z INFO x\n', 'utf16le')]));
    const wide = await mcp.call('outline', { path: 'wide.txt' });
    expect(wide.body.error).toMatchObject({ code: 'encoding_mismatch' });
    expect(wide.body.error.message).toMatch(/sections, JSON paths and tokens address UTF-8/);
  });

  it('folio outline prints one row per bucket with the same counts', async () => {
    const r = spawnSync(process.execPath, [BIN, 'outline', join(ws, 'app.log')], {
      encoding: 'utf8',
      env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') },
    });
    expect(r.status, r.stderr).toBe(0);
    const json = ok(await mcp.call('outline', { path: 'app.log' })).log;
    const rows = r.stdout.split('\n').filter((l) => /^ {2}\d{4}-/.test(l));
    expect(rows).toEqual(json.buckets.map((b: { time: string; counts: number[] }) => `  ${b.time}  ${b.counts.join(' / ')}`));
    expect(r.stdout).toMatch(/^iso8601 log, 2024-05-14T08:00:\d\d\.\d{3}Z \.\. 2024-05-14T\d\d:\d\d:\d\d\.\d{3}Z, 30,000 lines/);
  });
});
