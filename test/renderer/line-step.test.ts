/**
 * Next / previous matching line over the whole file (e / E, h / H), through the
 * real engine search on a real 6 MB file, checked against a scan of its lines:
 * near and far matches, wrapping, one match, none, and a dense block far back
 * (the backward halving).
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { stepToMatch, type StepSearch } from '../../src-renderer/model/line-step.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-line-step-');
const me = { kind: 'human' as const, name: 'me' };
const TOTAL = 90_000;
/** Lines 1..30,000 all say "dense"; "sparse" on four lines; "ERROR" on every 997th; "only" once. */
const SPARSE = [5, 40_000, 40_001, 89_999];
const lineOf = (n: number) =>
  `${String(n).padStart(6, '0')} ${n <= 30_000 ? 'dense' : 'plain'} ${n % 997 === 0 ? 'ERROR' : 'INFO'} ${SPARSE.includes(n) ? 'sparse' : ''}${n === 61_234 ? ' only' : ''} ${'x'.repeat(40 + (n % 17))}`;
const lines = Array.from({ length: TOTAL }, (_, i) => lineOf(i + 1));
const file = tmp.path('step.log');
let calls = 0;
const search: StepSearch = (input) => {
  calls++;
  return handle('search', { path: file, ...input }, me);
};
let fileBytes = 0;

beforeAll(() => {
  const text = lines.join('\n') + '\n';
  writeFileSync(file, text);
  fileBytes = Buffer.byteLength(text);
});
afterAll(() => tmp.cleanup());

/** The oracle: scan the lines. */
function expected(pattern: RegExp, fromLine: number, direction: 1 | -1) {
  const hits = lines.flatMap((l, i) => (pattern.test(l) ? [i + 1] : []));
  if (hits.length === 0) return null;
  if (direction > 0) {
    const next = hits.find((n) => n > fromLine);
    return next !== undefined ? { lineNo: next, wrapped: false } : { lineNo: hits[0]!, wrapped: true };
  }
  const prev = hits.filter((n) => n < fromLine).at(-1);
  return prev !== undefined ? { lineNo: prev, wrapped: false } : { lineNo: hits.at(-1)!, wrapped: true };
}

const step = (pattern: string, fromLine: number, direction: 1 | -1) => stepToMatch(search, { pattern, fromLine, direction, totalLines: TOTAL, fileBytes });

describe('stepToMatch', () => {
  it('equals a scan of the lines from many lines, both ways, for near, far, wrapping, single and absent matches', async () => {
    expect(fileBytes).toBeGreaterThan(5_000_000);
    const patterns: [string, RegExp][] = [
      ['\\bERROR\\b', /\bERROR\b/],
      ['sparse', /sparse/],
      ['only', /only/],
      ['nowhere', /nowhere/],
      ['^\\d+ dense', /^\d+ dense/],
    ];
    const froms = [1, 2, 5, 6, 997, 998, 29_999, 30_000, 30_001, 40_000, 40_001, 61_234, 70_000, 89_999, TOTAL];
    for (const [source, regex] of patterns) {
      for (const from of froms) {
        for (const dir of [1, -1] as const) {
          expect(await step(source, from, dir), `${source} from ${from} ${dir > 0 ? 'down' : 'up'}`).toEqual(expected(regex, from, dir));
        }
      }
    }
  }, 120_000);

  it('a match next to the line costs one search; the dense block 55,000 lines back is found by halving, in few searches', async () => {
    calls = 0;
    expect(await step('\\bERROR\\b', 2_000, 1)).toEqual({ lineNo: 2_991, wrapped: false });
    expect(calls).toBe(1);
    calls = 0;
    expect(await step('dense', 85_000, -1)).toEqual({ lineNo: 30_000, wrapped: false });
    expect(calls).toBeLessThan(30);
  }, 180_000);
});
