/**
 * The whole-file count the find panel and the filter view share (countToEnd),
 * against a real file through the real `search` op, with failures put in the way:
 * a slice that fails is asked again once from where the count reached, a second
 * failure reaches the store, and a cancelled count is never asked again. An e2e
 * run under load saw a count stop silently after its first page.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';

const HUMAN = { kind: 'human', name: 'test' } as const;
/** Each count_only call's input, in order. */
const asked: { start_byte: number; end_byte: number }[] = [];
/** How many of the next calls fail, and with what. */
let failNext = 0;

vi.mock('../../src-renderer/transport.ts', async () => {
  const { FolioCallError } = await vi.importActual<typeof import('../../src-renderer/transport.ts')>('../../src-renderer/transport.ts');
  return {
    call: async (op: string, input: Record<string, unknown>, signal?: AbortSignal) => {
      asked.push({ start_byte: input.start_byte as number, end_byte: input.end_byte as number });
      if (failNext > 0) {
        failNext--;
        throw new FolioCallError({ code: 'timeout', message: 'the search took longer than its budget' });
      }
      signal?.throwIfAborted();
      return handle(op as 'search', input as never, HUMAN);
    },
  };
});

const { countToEnd } = await import('../../src-renderer/stores/incremental-search.ts');

const tmp = engineTempDir();
const path = tmp.path('app.log');
const lines = Array.from({ length: 40_000 }, (_, i) => `2024-05-01T00:00:${String(i % 60).padStart(2, '0')}Z ${i % 7 === 0 ? 'ERROR' : 'INFO'} request ${i}`);
writeFileSync(path, lines.join('\n') + '\n');
const size = Buffer.byteLength(lines.join('\n') + '\n');
const target = { path, pattern: 'error', caseSensitive: false };
/** grep -c -i over the bytes from `from` on (from is a line start). */
const grepCountFrom = (from: number) =>
  Number(execFileSync('sh', ['-c', `tail -c +${from + 1} "$1" | grep -c -i error`, 'sh', path], { encoding: 'utf8' }).trim());
/** The start of line `n` (1-based). */
const byteOfLine = (n: number) => Buffer.byteLength(lines.slice(0, n - 1).join('\n') + (n > 1 ? '\n' : ''));

async function count(from: number, signal?: AbortSignal, stillWanted = () => true) {
  let total = 0;
  let reached = from;
  await countToEnd(
    target,
    from,
    () => size,
    stillWanted,
    (n, at) => ((total += n), (reached = at)),
    signal,
  );
  return { total, reached };
}

beforeEach(() => {
  asked.length = 0;
  failNext = 0;
});

describe('countToEnd', () => {
  it('counts what grep -c counts, in one slice for a small file', async () => {
    const from = byteOfLine(10_001);
    expect(await count(from)).toEqual({ total: grepCountFrom(from), reached: size });
    expect(asked).toEqual([{ start_byte: from, end_byte: size }]);
  });

  it('asks a failed slice again once, from where the count reached, and the total is still grep -c', async () => {
    const from = byteOfLine(20_001);
    failNext = 1;
    expect(await count(from)).toEqual({ total: grepCountFrom(from), reached: size });
    expect(asked).toEqual([
      { start_byte: from, end_byte: size },
      { start_byte: from, end_byte: size },
    ]);
  });

  it('throws the second failure, having counted nothing twice', async () => {
    failNext = 2;
    await expect(count(0)).rejects.toMatchObject({ code: 'timeout' });
    expect(asked).toHaveLength(2);
  });

  it('does not ask again once cancelled or no longer wanted', async () => {
    const aborted = new AbortController();
    aborted.abort();
    failNext = 1;
    await expect(count(0, aborted.signal)).rejects.toMatchObject({ code: 'timeout' });
    expect(asked).toHaveLength(1);

    asked.length = 0;
    failNext = 1;
    let wanted = true;
    const stale = count(0, undefined, () => wanted);
    wanted = false;
    await expect(stale).rejects.toMatchObject({ code: 'timeout' });
    expect(asked).toHaveLength(1);
  });
});
