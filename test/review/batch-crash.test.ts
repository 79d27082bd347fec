/**
 * Batch approvals (review/batch.ts) when the process is SIGKILLed: a child has an
 * agent propose five edits per file to two ~1 MiB files and approves them all with
 * one review_batch, again and again (batch-crasher.ts), and is killed once at each
 * fault point of the batch's write (src-main/engine/failpoint.ts: the first file's
 * intent written, its temp file half written, the first file written and the second
 * not, the second renamed over, both written and nothing committed, one entry
 * committed, both), then a few times at random moments of the batch, a third of
 * them as soon as the first file changed (between the files' writes). After every kill:
 * - each file is old or new as a whole: its five proposals are one write, so its
 *   slots never differ;
 * - the journal agrees, as settled by a reader and once the next writer reconciled:
 *   each file's latest entry made the file as it is, and names the five proposals
 *   that made its generation; those are "applied", and no proposal of a newer
 *   generation is;
 * - undo and redo of the latest batch still work.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeIndexPools } from '../../src-main/engine/index/builder.ts';
import { etagOf, statRegularFile } from '../../src-main/engine/index/identity.ts';
import { forgetStores, history, listProposals, loadBytes, redo, storeOf, undo } from '../../src-main/review/index.ts';
import { BATCH_FILES, fileText, PERSON, slotGenerationsOf } from '../fixtures/batch-crasher.ts';
import { LineChild } from '../fixtures/child-lines.ts';
import { scaled } from '../fixtures/effort.ts';
import { failpointEnv, killedAt, type FailpointSpec } from '../fixtures/failpoint-child.ts';
import { prng, tempDir } from '../fixtures/generate.ts';

/**
 * The fault points of one batch approval of two files (review/group.ts): each file's
 * intent is written and the file rewritten in turn (the Nth hit: the Nth file), then
 * each file's entry is committed (its proposals applied with it) and its intent dropped.
 */
const POINTS: FailpointSpec[] = [
  'review.intent-written', // nothing written
  'write.temp-partial', // the first file's temp file half written
  'write.done', // the first file written, the second not
  'write.renamed@2', // the second renamed over, its folder not fsynced
  'review.before-commit', // both written, nothing committed
  'review.committed', // the first file's entry committed, the second's not
  'review.committed@2', // both committed, the second intent not dropped
];
// Random kills beside the points: 3 per commit (30 in `npm run test:deep`); 12 random
// kills alone took 42 s of CPU.
const KILLS = POINTS.length + (Number(process.env.FOLIO_BATCH_KILLS) || scaled(3));
const CRASHER = join(import.meta.dirname, '../fixtures/batch-crasher.ts');
const tmp = tempDir('folio-batch-crash-');
afterAll(async () => {
  await closeIndexPools();
  tmp.cleanup();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What in the journal or the queue contradicts the files (at generations `gens`), or null. */
function disagreementOf(root: string, gens: number[]): string | null {
  const entries = history(root)
    .filter((e) => !e.undone)
    .sort((a, b) => b.applied_seq - a.applied_seq);
  const proposals = listProposals(root);
  const blobs = storeOf(root).blobsDir;
  const genOf = (p: (typeof proposals)[number]) => Number(/ v (\d+)$/.exec(loadBytes(blobs, p.content).toString('utf8'))![1]);
  for (const [i, f] of BATCH_FILES.entries()) {
    const latest = entries.find((e) => e.path === f);
    const g = gens[i]!;
    if (!latest) {
      if (g !== 0) return `${f} is at v ${g} but has no journal entry`;
      continue;
    }
    const etag = etagOf(statRegularFile(join(root, f)));
    if (latest.last_version.etag !== etag) return `${f}: its latest entry ${latest.id} made ${latest.last_version.etag}, the file is ${etag}`;
    const named = proposals.filter((p) => latest.proposal_ids?.includes(p.id));
    if (named.length !== 5 || named.some((p) => p.status !== 'applied' || genOf(p) !== g))
      return `${f} at v ${g}: its latest entry ${latest.id} names ${JSON.stringify(named.map((p) => [p.status, genOf(p)]))}`;
    const ahead = proposals.find((p) => p.path === f && p.status === 'applied' && genOf(p) > g);
    if (ahead) return `${f} at v ${g}, but proposal ${ahead.id} of v ${genOf(ahead)} is applied`;
  }
  return null;
}

describe('batch approvals when the process is SIGKILLed', () => {
  it('each file is old or new whole, the journal and the queue agree, undo/redo go on', { timeout: 600_000 }, async () => {
    const root = tmp.path('ws');
    mkdirSync(root);
    for (const f of BATCH_FILES) writeFileSync(join(root, f), fileText(0));
    const rand = prng(4242);
    const stats = { kills: 0, points: 0, split: 0, torn: 0, disagreements: 0, stepsAfter: 0, first: null as string | null };
    const problem = (what: string) => {
      stats.first ??= `kill ${stats.kills}: ${what}`;
    };
    while (stats.kills < KILLS) {
      const point = POINTS[stats.kills];
      const child = new LineChild(CRASHER, [root], point ? failpointEnv(process.env, point) : process.env);
      expect(await child.next(60_000)).toBe('{"ready":true}');
      const rounds = point ? 0 : 1 + Math.floor(rand() * 2);
      for (let r = 0; r < rounds; r++) {
        const line = await child.next(120_000);
        if (!line?.startsWith('{"attempt"')) throw new Error(`crasher said ${line}; stderr: ${child.stderr}`);
        if (r < rounds - 1) await child.next(120_000);
      }
      // Kill during the batch: at its point, at a random moment, or as soon as the first file changed.
      if (point) {
        await killedAt(child, point);
        stats.points++;
      } else if (rand() < 1 / 3) {
        const before = statSync(join(root, BATCH_FILES[0]!)).mtimeMs;
        const t0 = Date.now();
        while (statSync(join(root, BATCH_FILES[0]!)).mtimeMs === before && Date.now() - t0 < 5000) await sleep(0);
      } else {
        await sleep(rand() * 80);
      }
      child.proc.kill('SIGKILL');
      await child.exited;
      stats.kills++;
      forgetStores();
      const slots = BATCH_FILES.map((f) => slotGenerationsOf(readFileSync(join(root, f), 'utf8')));
      if (slots.some((s) => s === null || Math.min(...s) !== Math.max(...s))) {
        stats.torn++;
        problem(`a file is torn or half a batch: ${JSON.stringify(slots)}`);
        break;
      }
      const gens = slots.map((s) => s![0]!);
      if (Math.max(...gens) !== Math.min(...gens)) stats.split++;
      let d = disagreementOf(root, gens);
      await storeOf(root).locked(() => undefined);
      d ??= disagreementOf(root, gens);
      if (d) {
        stats.disagreements++;
        problem(d);
      }
      if (stats.kills % 5 === 0 && Math.max(...gens) > 0) {
        const now = BATCH_FILES.map((f) => readFileSync(join(root, f), 'utf8'));
        const back = await undo(root, PERSON);
        const after = BATCH_FILES.map((f) => slotGenerationsOf(readFileSync(join(root, f), 'utf8'))![0]!);
        for (const e of back.group ?? [back.entry]) {
          const i = BATCH_FILES.indexOf(e.path);
          if (!(after[i]! < gens[i]!)) problem(`undo of the batch did not step ${e.path} back`);
        }
        await redo(root, PERSON);
        if (BATCH_FILES.some((f, i) => readFileSync(join(root, f), 'utf8') !== now[i])) problem('redo of the batch did not restore the files');
        stats.stepsAfter++;
      }
    }
    process.stderr.write(`batch-crash: ${JSON.stringify(stats)}\n`);
    expect(stats.torn, stats.first ?? '').toBe(0);
    expect(stats.disagreements, stats.first ?? '').toBe(0);
    expect(stats.first).toBeNull();
    expect(stats.kills).toBe(KILLS);
    expect(stats.points).toBe(POINTS.length);
    expect(stats.stepsAfter).toBeGreaterThan(0);
    expect(stats.split, JSON.stringify(stats)).toBeGreaterThan(0);
  });
});
