import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { ReadOutput } from '../../src-main/api/schemas.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { SNAKE_CASE, keysOf } from './wire-keys.ts';

const tmp = engineTempDir();
const HUMAN = { kind: 'human', name: 'test' } as const;

describe('the read answer on the wire', () => {
  const p = tmp.path('wire.txt');
  writeFileSync(p, Array.from({ length: 400 }, (_, i) => `line ${i + 1} ${'x'.repeat(i % 50)}\n`).join(''));
  const inputs = [
    {
      path: p,
      ranges: [
        { start: 1, end: 2 },
        { start: 10, end: 12 },
      ],
      hashlines: true,
    },
    { path: p, start_byte: 100, max_bytes: 500 },
    { path: p, start_byte: 3, end_byte: 40 },
    { path: p, page: 2, page_chars: 2000, tokenizer: 'o200k_base' },
    { path: p, head: 3 },
    { path: p, tail: 3 },
    { path: p, full: true },
    { path: p, token_start: 0, token_end: 50 },
  ];

  it('uses snake_case names only, and every answer parses as ReadOutput', async () => {
    for (const input of inputs) {
      const r = await handle('read', input, HUMAN);
      expect(ReadOutput.parse(r)).toEqual(r);
      for (const k of keysOf(r)) expect(k, `${k} in ${JSON.stringify(input)}`).toMatch(SNAKE_CASE);
    }
  });

  it('maps the engine result field by field: ranges, pages, exact ranges', async () => {
    const lines = await handle('read', inputs[0], HUMAN);
    expect(lines.ranges!.map((x) => [x.start, x.end])).toEqual([
      [1, 2],
      [10, 12],
    ]);
    expect(lines).toMatchObject({ start_line: 1, end_line: 12, total_lines: 400, newline_style: 'lf', indexing: null, hashlines: true });
    const page = await handle('read', inputs[3], HUMAN);
    expect(page).toMatchObject({ mode: 'page', page: 2, next_page: 3 });
    expect(page.chars).toBe([...page.content].length);
    expect(page).not.toHaveProperty('nextPage');
    const exact = await handle('read', inputs[2], HUMAN);
    expect(exact).toMatchObject({ requested_range: { start_byte: 3, end_byte: 40 }, actual_range: { start_byte: 3, end_byte: 40 }, is_partial: true });
  });
});
