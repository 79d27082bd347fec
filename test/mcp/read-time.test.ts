/**
 * `read` with `time` (issue 27, logs for agents): the window starting at the first line
 * stamped at or after a time, through `folio mcp` with the real SDK client and through
 * `folio read --time` (a real child process), checked against awk and sed on the same
 * file; the error paths: a time past the last line, a file without timestamps, time
 * mixed with another read mode.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, connectStdio, okBody as ok, type McpSession } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-read-time-');
const ws = tmp.path('ws');
let mcp: McpSession;

/** 40,000 lines, 1 to 3 per second from 2024-05-14T08:00:00Z, several lines sharing a second. */
function writeLog(path: string): void {
  const lines: string[] = [];
  let t = Date.parse('2024-05-14T08:00:00Z');
  for (let i = 1; i <= 40_000; i++) {
    if (i % 3 !== 0) t += 1000;
    const level = ['INFO', 'WARN', 'ERROR', 'DEBUG'][i % 4];
    lines.push(`${new Date(t).toISOString().replace('.000Z', 'Z')} ${level} [worker-${i % 5}] request ${i} handled`);
  }
  writeFileSync(path, lines.join('\n') + '\n');
}

/** The lines awk finds from the first one stamped at or after `iso` (ISO stamps compare as strings), `n` of them. */
function awkFrom(path: string, iso: string, n: number): { first: number; text: string } {
  const out = execFileSync('awk', ['-v', `t=${iso}`, '$1 >= t { print NR; exit }', path], { encoding: 'utf8' }).trim();
  const first = Number(out);
  return { first, text: execFileSync('sed', ['-n', `${first},${first + n - 1}p`, path], { encoding: 'utf8' }) };
}

beforeAll(async () => {
  mkdirSync(ws, { recursive: true });
  writeLog(join(ws, 'app.log'));
  writeFileSync(join(ws, 'plain.txt'), 'no\ntimes\nhere\n');
  mcp = await connectStdio(ws, { cacheDir: tmp.path('cache'), clientName: 'time-agent' });
});
afterAll(async () => {
  await mcp?.close();
  tmp.cleanup();
});

describe('read with time over MCP', () => {
  it.each([
    ['an exact stamp', '2024-05-14T10:00:00Z', 100],
    ['a minute with no zone (read as UTC)', '2024-05-14T12:30', 20],
    ['a time between two stamps', '2024-05-14T09:15:30.500Z', 5],
    ['before the first line', '2024-05-14T07:00:00Z', 3],
  ])('%s: the lines awk finds, and a note saying which line', async (_what, time, limit) => {
    const r = ok(await mcp.call('read', { path: 'app.log', time, limit }));
    // The stamps are whole seconds: the first at or after a time is the first at or after its next whole second.
    const ms = Math.ceil(Date.parse(/Z$/.test(time) ? time : `${time}Z`) / 1000) * 1000;
    const iso = new Date(ms).toISOString().replace('.000Z', 'Z');
    const want = awkFrom(join(ws, 'app.log'), iso, limit);
    expect(r.start_line).toBe(want.first);
    expect(r.content).toBe(want.text);
    expect(r.notes[0]).toMatch(new RegExp(`line ${want.first} is the first at or after it`));
  });

  it('without limit: 100 lines', async () => {
    const r = ok(await mcp.call('read', { path: 'app.log', time: '2024-05-14T11:00:00Z' }));
    expect(r.end_line - r.start_line + 1).toBe(100);
  });

  it('a time past the last line is out_of_bounds; a file without stamps is no_timestamps; time with head is invalid_input', async () => {
    const late = await mcp.call('read', { path: 'app.log', time: '2030-01-01T00:00:00Z' });
    expect(late.body.error.code).toBe('out_of_bounds');
    const plain = await mcp.call('read', { path: 'plain.txt', time: '2024-05-14T10:00' });
    expect(plain.body.error.code).toBe('no_timestamps');
    const mixed = await mcp.call('read', { path: 'app.log', time: '2024-05-14T10:00', head: 3 });
    expect(mixed.body.error).toMatchObject({ code: 'invalid_input', modes: ['time', 'head'] });
  });
});

describe('folio read --time', () => {
  const folio = (args: string[]) =>
    spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', cwd: ws, env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') } });

  it('prints the lines awk finds; --json has the same answer as MCP', () => {
    const want = awkFrom(join(ws, 'app.log'), '2024-05-14T10:00:00Z', 7);
    const r = folio(['read', 'app.log', '--time', '2024-05-14T10:00:00Z', '--limit', '7', '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ start_line: want.first, content: want.text });
    const text = folio(['read', 'app.log', '--time', '2024-05-14T10:00:00Z', '--limit', '7']);
    expect(text.stdout.endsWith(want.text)).toBe(true);
  });

  it('--time with --head is a usage error (exit 2)', () => {
    const r = folio(['read', 'app.log', '--time', '2024-05-14T10:00', '--head', '3']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/give one read mode, got --time and --head/);
  });
});
