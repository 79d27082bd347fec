/**
 * A whole-session batch (content writes, then a delete and a move in the same
 * journal group) SIGKILLed once at each fault point between its phases
 * (src-main/engine/failpoint.ts: the first content write landed, the delete done
 * before its journal commit, the move between link and unlink), then at random moments
 * (the first run, unkilled, times it), or as soon as its first content write landed.
 * After every kill, once the next writer
 * reconciled the intents:
 * - every file is old or new whole, the deleted file there with its bytes or
 *   gone, the moved one at exactly one of its names;
 * - each proposal is applied exactly when its file shows it (the journal and the
 *   queue agree with the disk);
 * - one undo puts every file back byte for byte, one redo brings the state the
 *   kill left, and approving what stayed pending ends at the fully approved state.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileInfo } from '../../src-main/engine/read/file-info.ts';
import { approveBatch, forgetStores, history, listProposals, propose, proposeFileOp, redo, storeOf, undo } from '../../src-main/review/index.ts';
import { LineChild } from '../fixtures/child-lines.ts';
import { scaled } from '../fixtures/effort.ts';
import { failpointEnv, killedAt, type FailpointSpec } from '../fixtures/failpoint-child.ts';
import { prng, tempDir } from '../fixtures/generate.ts';
import { PERSON } from '../fixtures/session-batch-crasher.ts';

/** The batch writes a.txt and b.txt, then deletes gone.txt, then moves from.txt. */
const POINTS: FailpointSpec[] = [
  'write.done', // a.txt written, b.txt not
  'fileop.unlinked', // both written and committed, gone.txt deleted, its entry not committed
  'fileop.linked', // from.txt linked at lib/to.txt, the old name still there (the reader finishes the move)
];
// Random kills beside the points: 1 per commit (10 in `npm run test:deep`); as many
// children as the 4 random kills it had.
const KILLS = POINTS.length + (Number(process.env.FOLIO_SESSION_BATCH_KILLS) || scaled(1));
const CRASHER = join(import.meta.dirname, '../fixtures/session-batch-crasher.ts');
const tmp = tempDir('folio-session-batch-crash-');
afterAll(() => tmp.cleanup());
const AGENT = { kind: 'agent', name: 'claude' } as const;
const lines = (tag: string) => Array.from({ length: 2000 }, (_, i) => `${tag} line ${i + 1}\n`).join('');
const ORIGINAL = { 'a.txt': lines('a'), 'b.txt': lines('b'), 'gone.txt': lines('gone'), 'from.txt': lines('from') };
const APPROVED = {
  'a.txt': ORIGINAL['a.txt'].replace('a line 10\n', 'A TEN\n'),
  'b.txt': ORIGINAL['b.txt'].replace('b line 1500\n', 'B 1500\n'),
  'lib/to.txt': ORIGINAL['from.txt'],
};

function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, rel: string) => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      // The review state, and what a kill leaves beside a file (the next writer of that file removes it):
      // an atomic write's temp, the killed writer's lock (as in engine/upsert-crash.test.ts).
      if (d.name === '.folio' || d.name.includes('.folio-tmp-') || /\.folio-lock(\.|$)/.test(d.name)) continue;
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) walk(join(dir, d.name), r);
      else out[r] = readFileSync(join(dir, d.name), 'utf8');
    }
  };
  walk(root, '');
  return out;
}

async function session(root: string) {
  mkdirSync(root, { recursive: true });
  for (const [name, text] of Object.entries(ORIGINAL)) writeFileSync(join(root, name), text);
  const etag = async (name: string) => (await fileInfo(join(root, name))).version.etag;
  const ids = {
    a: (
      await propose(root, AGENT, {
        path: join(root, 'a.txt'),
        target: { kind: 'replace', start: 10, end: 10, units: 'lines' },
        content: 'A TEN',
        preconditions: { ifMatch: await etag('a.txt') },
      })
    ).proposal_id,
    b: (
      await propose(root, AGENT, {
        path: join(root, 'b.txt'),
        target: { kind: 'replace', start: 1500, end: 1500, units: 'lines' },
        content: 'B 1500',
        preconditions: { ifMatch: await etag('b.txt') },
      })
    ).proposal_id,
    gone: (await proposeFileOp(root, AGENT, { op: 'delete', path: join(root, 'gone.txt'), preconditions: { ifMatch: await etag('gone.txt') } })).proposal_id,
    move: (
      await proposeFileOp(root, AGENT, {
        op: 'move',
        path: join(root, 'from.txt'),
        to: join(root, 'lib/to.txt'),
        preconditions: { ifMatch: await etag('from.txt') },
        createParents: true,
      })
    ).proposal_id,
  };
  return ids;
}

/** What on disk each proposal's being applied means. */
const showsApplied: Record<string, (s: Record<string, string>) => boolean | null> = {
  a: (s) => (s['a.txt'] === APPROVED['a.txt'] ? true : s['a.txt'] === ORIGINAL['a.txt'] ? false : null),
  b: (s) => (s['b.txt'] === APPROVED['b.txt'] ? true : s['b.txt'] === ORIGINAL['b.txt'] ? false : null),
  gone: (s) => (s['gone.txt'] === undefined ? true : s['gone.txt'] === ORIGINAL['gone.txt'] ? false : null),
  move: (s) =>
    s['lib/to.txt'] === ORIGINAL['from.txt'] && s['from.txt'] === undefined
      ? true
      : s['from.txt'] === ORIGINAL['from.txt'] && s['lib/to.txt'] === undefined
        ? false
        : null,
};

describe('a whole-session batch when the process is SIGKILLed', () => {
  it('each file is old or new whole, the queue agrees, one undo restores all', { timeout: 300_000 }, async () => {
    const rand = prng(2511);
    let spanMs = 0;
    const seen = { killedBefore: 0, killedPartway: 0, killedAfter: 0 };
    for (let round = 0; round <= KILLS; round++) {
      const root = tmp.path(`ws${round}`);
      const ids = await session(root);
      // Round 0 unkilled, then each point, then at random.
      const point = round > 0 ? POINTS[round - 1] : undefined;
      const child = new LineChild(CRASHER, [root], point ? failpointEnv(process.env, point) : process.env);
      expect(await child.next(60_000)).toBe('{"ready":true}');
      const t0 = performance.now();
      child.send('go');
      if (round === 0) {
        // Unkilled: how long the batch takes here, to spread the kills over it.
        expect(await child.next(60_000), child.stderr).toBe('{"done":true}');
        spanMs = performance.now() - t0;
        await child.exited;
      } else if (point) {
        await killedAt(child, point);
      } else {
        if (round % 2) {
          await new Promise((r) => setTimeout(r, rand() * spanMs * 1.2));
        } else {
          // As soon as the first content write landed: between the content writes and the deletes and moves.
          while (readFileSync(join(root, 'a.txt'), 'utf8') === ORIGINAL['a.txt'] && performance.now() - t0 < 30_000) await new Promise((r) => setImmediate(r));
        }
        child.proc.kill('SIGKILL');
        await child.exited;
      }
      forgetStores();
      await storeOf(root).locked(() => undefined); // the next writer reconciles the intents
      const disk = snapshot(root);
      const status = Object.fromEntries(listProposals(root).map((p) => [p.id, p.status]));
      const applied: string[] = [];
      for (const [key, id] of Object.entries(ids)) {
        const shown = showsApplied[key]!(disk);
        expect(shown, `round ${round}: ${key} is neither old nor new: ${JSON.stringify(Object.keys(disk))}`).not.toBeNull();
        expect(status[id], `round ${round}: ${key}`).toBe(shown ? 'applied' : 'pending');
        if (shown) applied.push(key);
      }
      if (applied.length === 0) seen.killedBefore++;
      else if (applied.length < 4) seen.killedPartway++;
      else seen.killedAfter++;
      const entries = history(root);
      expect(new Set(entries.map((e) => e.group?.id)).size).toBeLessThanOrEqual(1);
      if (entries.length) {
        await undo(root, PERSON);
        expect(snapshot(root), `round ${round}: one undo`).toEqual(ORIGINAL);
        await redo(root, PERSON);
        expect(snapshot(root), `round ${round}: one redo`).toEqual(disk);
      }
      // What stayed pending approves: the fully approved state.
      if (applied.length < 4) await approveBatch(root, PERSON, { all: true });
      expect(snapshot(root), `round ${round}: the rest approved`).toEqual(APPROVED);
    }
    console.log(`[session batch crash] ${KILLS} kills over ${Math.round(spanMs)} ms: ${JSON.stringify(seen)}`);
    // The first two points land between the batch's phases: some of it applied, not all.
    expect(seen.killedPartway, JSON.stringify(seen)).toBeGreaterThanOrEqual(2);
  });
});
