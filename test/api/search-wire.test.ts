import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createAgentSession, runAgentTool } from '../../src-main/api/agent/session.ts';
import { handle } from '../../src-main/api/handle.ts';
import { SearchOutput } from '../../src-main/api/schemas.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { SNAKE_CASE, keysOf } from './wire-keys.ts';

const tmp = engineTempDir();
const HUMAN = { kind: 'human', name: 'test' } as const;

describe('the search answer on the wire', () => {
  const p = tmp.path('wire.txt');
  const lines = Array.from({ length: 200 }, (_, i) => `line ${i + 1} ${i % 3 === 0 ? 'fizz' : 'buzz'}\n`);
  const text = lines.join('');
  writeFileSync(p, text);
  const lineStart = (lineNo: number) => Buffer.byteLength(lines.slice(0, lineNo - 1).join(''));
  const inputs = [
    { path: p, pattern: 'fizz' },
    { path: p, pattern: 'fizz', max: 2 },
    { path: p, pattern: 'FIZZ', flags: 'i', count_only: true },
    { path: p, pattern: 'buzz', start_byte: lineStart(10) + 3 },
    { path: p, pattern: 'buzz', start_line: 20, end_line: 30 },
    { path: p, pattern: 'nothing like it' },
  ];

  it('uses snake_case names only (version keeps its own), and every answer parses as SearchOutput', async () => {
    for (const input of inputs) {
      const r = await handle('search', input, HUMAN);
      expect(SearchOutput.parse(r)).toEqual(r);
      for (const k of keysOf(r)) expect(k, `${k} in ${JSON.stringify(input)}`).toMatch(SNAKE_CASE);
    }
  });

  it('names the range searched: whole file, snapped to a line start, or a line range', async () => {
    expect((await handle('search', inputs[0], HUMAN)).scanned).toEqual({ start_byte: 0, end_byte: text.length });
    expect((await handle('search', inputs[3], HUMAN)).scanned).toEqual({ start_byte: lineStart(10), end_byte: text.length });
    expect((await handle('search', inputs[4], HUMAN)).scanned).toEqual({ start_byte: lineStart(20), end_byte: lineStart(31) });
    const capped = await handle('search', inputs[1], HUMAN);
    expect(capped).toMatchObject({ count: 2, truncated: true, next_start_byte: lineStart(5) });
    expect(capped.matches[1]).toEqual({ line: 4, byte_offset: lineStart(4) + 'line 4 '.length, column: 8, text: 'line 4 fizz', text_truncated: false });
  });

  it('reaches agents with the same names, and the audit counts the bytes scanned', async () => {
    const answer = await runAgentTool(createAgentSession(tmp.dir, 'wire-test'), 'search', { path: 'wire.txt', pattern: 'buzz', start_line: 20, end_line: 30 });
    expect(answer.scanned).toEqual({ start_byte: lineStart(20), end_byte: lineStart(31) });
    for (const k of keysOf(answer)) expect(k).toMatch(SNAKE_CASE);
    const { entries } = await handle('audit_log', {}, HUMAN, { workspace: tmp.dir });
    expect(entries.at(-1)).toMatchObject({ op: 'search', outcome: 'ok', bytes_read: lineStart(31) - lineStart(20) });
  });
});
