/**
 * `npm run bench -- review`: what the review queue costs, in process, against
 * baselines measured in the same run:
 * - proposal -> queue: an agent's upsert under the review policy (the agent guard,
 *   runAgentTool) and the queue listing it (the table's `handle('review_list')`),
 *   with the queue empty and with 200 proposals pending;
 * - approving 100 proposals to one 1 GiB log (one line each, within a 60 MiB
 *   window, proposed from one read): one by one (each approval rewrites the file)
 *   against one review_batch (one rewrite), with `cp` + `sync` of the file (the
 *   floor of one rewrite) as the baseline.
 * Everything lives in a temp directory (the 1 GiB log is generated there), removed
 * at the end.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentSession, runAgentTool } from '../src-main/api/agent/session.ts';
import { handle } from '../src-main/api/handle.ts';
import { closeIndexPools } from '../src-main/engine/index/builder.ts';
import { openIndex } from '../src-main/engine/index/store.ts';
import { read } from '../src-main/engine/read/read.ts';
import { forgetStores, propose } from '../src-main/review/index.ts';
import { writeLogFile } from '../test/fixtures/generate.ts';
import type { BenchOptions } from './main.ts';
import { median, percentile, table, warmPageCache } from './lib.ts';

const PERSON = { kind: 'human', name: 'bench' } as const;
const AGENT = { kind: 'agent', name: 'bench-agent' } as const;
const PENDING = 200;
const SAMPLES = 20;
const BIG_BYTES = 1024 ** 3;
const APPROVALS = 100;
const WINDOW_BYTES = 60 * 1024 ** 2;

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
}

interface QueueSample {
  proposeMs: number;
  listMs: number;
}

/** Proposal -> queue, `SAMPLES` times with the queue at `pending` (and growing by one each). */
async function queueSamples(root: string, file: string, lines: number): Promise<QueueSample[]> {
  const session = createAgentSession(root, AGENT.name, { review: 'review' });
  const out: QueueSample[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const etag = (await read(join(root, file), { mode: 'head', lines: 1 })).version.etag;
    const line = 1 + ((i * 97) % lines);
    const t0 = performance.now();
    const r = await runAgentTool(session, 'upsert', { path: file, target: { replace: { start: line, end: line } }, content: `proposed ${i}`, if_match: etag });
    const t1 = performance.now();
    const queue = await handle('review_list', { status: 'pending' }, PERSON, { workspace: root });
    const t2 = performance.now();
    if (!queue.proposals.some((p) => p.id === r.proposal_id)) throw new Error(`proposal ${String(r.proposal_id)} is not in the queue`);
    out.push({ proposeMs: t1 - t0, listMs: t2 - t1 });
  }
  return out;
}

async function benchQueue(dir: string): Promise<{ empty: QueueSample[]; full: QueueSample[]; pending: number }> {
  const root = join(dir, 'queue');
  mkdirSync(root);
  const file = 'orders.py';
  const lines = 20_000;
  writeFileSync(join(root, file), Array.from({ length: lines }, (_, i) => `    order_${i} = compute(${i})  # line ${i + 1}\n`).join(''));
  // One round untimed first (module loading, JIT), then the queue emptied again.
  await queueSamples(root, file, lines);
  await handle('review_batch', { decision: 'reject', actor: AGENT.name, reason: 'bench warm-up' }, PERSON, { workspace: root });
  const empty = await queueSamples(root, file, lines);
  await handle('review_batch', { decision: 'reject', actor: AGENT.name, reason: 'bench reset' }, PERSON, { workspace: root });
  const etag = (await read(join(root, file), { mode: 'head', lines: 1 })).version.etag;
  for (let i = 0; i < PENDING; i++)
    await propose(root, AGENT, {
      path: join(root, file),
      target: { kind: 'replace', start: 1 + i * 50, end: 1 + i * 50, units: 'lines' },
      content: `pending ${i}`,
      preconditions: { ifMatch: etag },
    });
  const full = await queueSamples(root, file, lines);
  const pending = (await handle('review_list', { status: 'pending' }, PERSON, { workspace: root })).proposals.length;
  return { empty, full, pending };
}

interface ApproveRun {
  totalMs: number;
  perApprovalMs: number[];
  writes: number;
}

/** A fresh copy of the log in its own workspace, with APPROVALS proposals from one read. */
async function workspaceWithProposals(dir: string, name: string, source: string): Promise<{ root: string; file: string; ids: string[]; lines: number[] }> {
  const root = join(dir, name);
  mkdirSync(root);
  const file = join(root, 'big.log');
  run('cp', [source, file]);
  warmPageCache(file);
  const index = await openIndex(file);
  const from = Math.floor(index.size / 2);
  const window = Math.min(WINDOW_BYTES, Math.floor(index.size / 3));
  const lines = Array.from({ length: APPROVALS }, (_, k) => index.lineAt(from + Math.floor((k * window) / APPROVALS)) + 1);
  const etag = (await read(file, { mode: 'head', lines: 1 })).version.etag;
  const ids: string[] = [];
  for (const [k, line] of lines.entries())
    ids.push(
      (
        await propose(root, AGENT, {
          path: file,
          target: { kind: 'replace', start: line, end: line, units: 'lines' },
          content: `2026-01-01T00:00:00.000Z INFO [bench] approved ${k}`,
          preconditions: { ifMatch: etag },
        })
      ).proposal_id,
    );
  run('sync', []);
  return { root, file, ids, lines };
}

async function checkApplied(file: string, lines: number[]): Promise<void> {
  const back = await read(file, { mode: 'lines', ranges: lines.map((l) => ({ start: l, end: l })) });
  const text = (back.ranges ?? []).map((r) => r.content).join('') || back.content;
  for (let k = 0; k < lines.length; k++) if (!text.includes(`[bench] approved ${k}\n`)) throw new Error(`approval ${k} (line ${lines[k]}) is not in the file`);
}

async function oneByOne(dir: string, source: string): Promise<ApproveRun> {
  const { root, file, ids, lines } = await workspaceWithProposals(dir, 'one-by-one', source);
  const per: number[] = [];
  const t0 = performance.now();
  for (const id of ids) {
    const t = performance.now();
    await handle('review_approve', { id }, PERSON, { workspace: root });
    per.push(performance.now() - t);
  }
  const totalMs = performance.now() - t0;
  await checkApplied(file, lines);
  const writes = (await handle('review_history', {}, PERSON, { workspace: root })).entries.length;
  rmSync(root, { recursive: true, force: true });
  return { totalMs, perApprovalMs: per, writes };
}

async function asBatch(dir: string, source: string): Promise<ApproveRun> {
  const { root, file, ids, lines } = await workspaceWithProposals(dir, 'batch', source);
  const t0 = performance.now();
  const r = await handle('review_batch', { decision: 'approve', path: file }, PERSON, { workspace: root });
  const totalMs = performance.now() - t0;
  if (r.applied.length !== ids.length) throw new Error(`the batch applied ${r.applied.length} of ${ids.length}`);
  await checkApplied(file, lines);
  rmSync(root, { recursive: true, force: true });
  return { totalMs, perApprovalMs: [totalMs / ids.length], writes: r.entries.length };
}

/** Wall time of `cp` + `sync` of the file (the floor of one rewrite), median of `runs`. */
function cpSync(dir: string, source: string, runs: number): number {
  const copy = join(dir, 'cp.log');
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    rmSync(copy, { force: true });
    run('sync', []);
    const t = performance.now();
    run('sh', ['-c', 'cp "$1" "$2" && sync "$2"', 'sh', source, copy]);
    if (i > 0) times.push(performance.now() - t);
  }
  rmSync(copy, { force: true });
  return median(times);
}

export async function benchReview(o: BenchOptions): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'folio-bench-review-'));
  process.env.FOLIO_CACHE_DIR = join(dir, 'cache');
  try {
    process.stderr.write(`review bench: proposal -> queue with ${PENDING} pending; ${APPROVALS} approvals on a 1 GiB log, in ${dir}\n`);
    const q = await benchQueue(dir);
    const source = join(dir, 'source.log');
    process.stderr.write('generating the 1 GiB log...\n');
    // FOLIO_REVIEW_BENCH_BYTES: a smaller log for a quick try of the bench itself.
    writeLogFile(source, Number(process.env.FOLIO_REVIEW_BENCH_BYTES) || BIG_BYTES, 7);
    const cpMs = cpSync(dir, source, o.runs);
    const batch = await asBatch(dir, source);
    forgetStores();
    const single = await oneByOne(dir, source);
    await closeIndexPools();

    const p = (xs: number[], k: number) => percentile(xs, k).toFixed(1);
    const m = (xs: number[]) => median(xs).toFixed(1);
    const tot = (xs: QueueSample[]) => xs.map((s) => s.proposeMs + s.listMs);
    const queueRows: (string | number)[][] = [
      ['queue', 'agent upsert -> proposal, median ms', 'review_list, median ms', 'proposal -> in the queue, median / p95 ms', 'vs empty queue'],
      ['empty (0-19 pending)', m(q.empty.map((s) => s.proposeMs)), m(q.empty.map((s) => s.listMs)), `${m(tot(q.empty))} / ${p(tot(q.empty), 95)}`, '1.00x'],
      [
        `${PENDING} pending (${PENDING}-${q.pending - 1})`,
        m(q.full.map((s) => s.proposeMs)),
        m(q.full.map((s) => s.listMs)),
        `${m(tot(q.full))} / ${p(tot(q.full), 95)}`,
        `${(median(tot(q.full)) / median(tot(q.empty))).toFixed(2)}x`,
      ],
    ];
    const approveRows: (string | number)[][] = [
      ['contender (1 GiB log)', 'total ms', 'per approval ms', 'file rewrites', 'vs one cp + sync'],
      ['cp + sync of the file (one rewrite, baseline)', cpMs.toFixed(0), '-', 1, '1.00x'],
      [
        `${APPROVALS} approvals one by one (review_approve)`,
        single.totalMs.toFixed(0),
        `${m(single.perApprovalMs)} (p95 ${p(single.perApprovalMs, 95)})`,
        single.writes,
        `${(single.totalMs / cpMs).toFixed(2)}x`,
      ],
      [
        `${APPROVALS} approvals as one batch (review_batch)`,
        batch.totalMs.toFixed(0),
        (batch.totalMs / APPROVALS).toFixed(1),
        batch.writes,
        `${(batch.totalMs / cpMs).toFixed(2)}x`,
      ],
    ];
    process.stdout.write(
      [
        `## review (${new Date().toISOString().slice(0, 10)})`,
        '',
        table(queueRows),
        '',
        table(approveRows),
        '',
        `one by one / batch: ${(single.totalMs / batch.totalMs).toFixed(1)}x`,
        '',
      ].join('\n'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
