/**
 * read with head and tail together: one call answers both ends of a file, checked
 * against head(1) and tail(1) on the same file, with the gap between them sized as
 * sed and wc -c count it.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { tempDir, writeLogFile } from '../fixtures/generate.ts';

const tmp = tempDir('folio-head-tail-');
afterAll(() => tmp.cleanup());
const human = { kind: 'human' as const, name: 't' };
const sh = (cmd: string, ...args: string[]) => execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28 });

describe('read head + tail', () => {
  it('answers the first and last lines of a 5 MB log as head and tail print them, and sizes the gap', async () => {
    const p = tmp.path('app.log');
    const { lines } = writeLogFile(p, 5 * 1024 * 1024, 7);
    const r = await handle('read', { path: p, head: 20, tail: 30 }, human);
    expect(r.ranges).toHaveLength(2);
    expect(r.ranges![0]!.content).toBe(sh('head', '-n', '20', p));
    expect(r.ranges![1]!.content).toBe(sh('tail', '-n', '30', p));
    expect(r.gap).toEqual({
      start_line: 21,
      end_line: lines - 30,
      lines: lines - 50,
      bytes: Number(sh('sh', '-c', `sed -n '21,${lines - 30}p' "$1" | wc -c`, 'sh', p).trim()),
    });
  });

  it('works from the CLI: folio read FILE --head N --tail M', () => {
    const p = tmp.path('cli.txt');
    writeFileSync(p, Array.from({ length: 100 }, (_, i) => `row ${i + 1}\n`).join(''));
    const r = JSON.parse(sh(process.execPath, 'bin/folio.mjs', 'read', p, '--head', '3', '--tail', '4', '--json'));
    expect(r.ranges.map((x: { content: string }) => x.content).join('')).toBe(sh('head', '-n', '3', p) + sh('tail', '-n', '4', p));
    expect(r.gap).toMatchObject({ start_line: 4, end_line: 96, lines: 93 });
  });

  it('gives the whole file once when head and tail meet, and works with hashlines', async () => {
    const p = tmp.path('short.txt');
    writeFileSync(p, 'a\nb\nc\n');
    const r = await handle('read', { path: p, head: 2, tail: 2, hashlines: true }, human);
    expect(r.gap).toBeUndefined();
    expect(r.content).toMatch(/^1#[0-9a-f]{3}\|a\n2#[0-9a-f]{3}\|b\n3#[0-9a-f]{3}\|c\n$/);
  });
});
