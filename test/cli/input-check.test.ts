/**
 * The built CLI checks the input of its most used commands without zod
 * (src-main/api/quick-handle.ts): good input runs at once, anything else goes to
 * zod. Here, as a user runs it (child processes), bad input gets the very error
 * handle() gives for the same input in process, and good input the same answer.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { errorPayloadOf } from '../../src-main/api/error-payload.ts';
import { handle } from '../../src-main/api/handle.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-cli-input-');
afterAll(() => tmp.cleanup());
const BIN = join(process.cwd(), 'bin/folio.mjs');
const HUMAN = { kind: 'human', name: 'cli' } as const;
const file = tmp.path('small.txt');
writeFileSync(file, Array.from({ length: 20 }, (_, i) => `line ${i + 1}\n`).join(''));

function folio(args: string[]): { status: number | null; json: Record<string, unknown> } {
  const r = spawnSync(process.execPath, [BIN, ...args, '--json'], {
    encoding: 'utf8',
    cwd: tmp.path('.'),
    env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') },
  });
  return { status: r.status, json: JSON.parse(r.stdout) };
}

async function inProcess(op: Parameters<typeof handle>[0], input: unknown): Promise<unknown> {
  try {
    return await handle(op, input, HUMAN, { workspace: tmp.path('.') });
  } catch (err) {
    return { error: errorPayloadOf(err) };
  }
}

const HUGE = '99999999999999999999'; // past 2^53: not a whole number zod accepts
describe('the CLI and zod agree on input', () => {
  for (const [what, args, op, input] of [
    ['a line past 2^53', ['read', file, '--lines', `1-${HUGE}`], 'read', { path: file, ranges: [{ start: 1, end: Number(HUGE) }] }],
    ['an empty path', ['read', ''], 'read', { path: '' }],
    ['an unknown tokenizer', ['read', file, '--tokenizer', 'gpt2'], 'read', { path: file, tokenizer: 'gpt2' }],
    ['an empty path to info', ['info', ''], 'file_info', { path: '' }],
    ['an empty regex', ['search', file, ''], 'search', { path: file, pattern: '' }],
    ['a start byte past 2^53', ['search', file, 'x', '--start-byte', HUGE], 'search', { path: file, pattern: 'x', start_byte: Number(HUGE) }],
    [
      'an upsert line past 2^53',
      ['upsert', file, '--replace', `2-${HUGE}`, '--content', 'x\n', '--if-match', 'E'],
      'upsert',
      { path: file, target: { replace: { start: 2, end: Number(HUGE) } }, content: 'x\n', if_match: 'E' },
    ],
  ] as const) {
    it(`refuse ${what} with zod's own invalid_input`, async () => {
      const cli = folio([...args]);
      expect(cli.json).toMatchObject({ error: { code: 'invalid_input' } });
      expect(cli.json).toEqual(await inProcess(op, input));
      expect(cli.status).toBe(1);
    });
  }

  it('answer good input as handle() does', async () => {
    const cli = folio(['read', file, '--lines', '3-4']);
    expect(cli.json).toEqual(await inProcess('read', { path: file, ranges: [{ start: 3, end: 4 }] }));
    expect(cli.json.content).toBe('line 3\nline 4\n');
  });
});
