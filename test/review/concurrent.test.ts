/**
 * Real processes sharing one workspace's review state: 4 children
 * (test/fixtures/review-worker.ts) propose, approve, reject, undo and redo on
 * three files at once, with compaction forced often. A fresh load afterwards
 * must hold every proposal and every decision exactly once, and replaying the
 * journal's events (in global order) over the initial files must give the files.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadBytes } from '../../src-main/review/blobs.ts';
import { allEntries, allProposals } from '../../src-main/review/records.ts';
import { ReviewStore } from '../../src-main/review/store.ts';
import { childCommand } from '../fixtures/child-bundles.ts';
import { scaled } from '../fixtures/effort.ts';
import { tempDir } from '../fixtures/generate.ts';
import { workerLine, type WorkerEvent } from '../fixtures/review-worker.ts';

const CHILDREN = 4;
// 30 steps each per commit (300 in `npm run test:deep`): 60 took 26 s of CI's CPU.
const ITERATIONS = scaled(30);
const WORKER = join(import.meta.dirname, '../fixtures/review-worker.ts');
const tmp = tempDir('folio-review-race-');
afterAll(() => tmp.cleanup());

function runWorker(root: string, child: number, files: string[]): Promise<WorkerEvent[]> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...childCommand(WORKER), root, String(child), String(ITERATIONS), String(1000 + child), ...files], {
      env: { ...process.env, FOLIO_REVIEW_COMPACT_BYTES: '32768', FOLIO_CACHE_DIR: tmp.path('cache') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    proc.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    proc.on('exit', (code) => {
      const lines = out.split('\n').filter(Boolean);
      if (code !== 0 || lines.at(-1) !== 'done') return reject(new Error(`worker ${child} exited ${code}: ${err}`));
      resolve(lines.slice(0, -1).map((l) => JSON.parse(l) as WorkerEvent));
    });
  });
}

describe('review state shared by concurrent processes', () => {
  it(`${CHILDREN} processes doing interleaved propose/approve/reject/undo/redo lose no proposal or decision, and the files equal the journal replayed`, async () => {
    const root = tmp.path('ws');
    const files = ['a.txt', 'b.txt', 'c.txt'].map((n) => join(root, n));
    const initial = new Map<string, Buffer>();
    mkdirSync(root, { recursive: true });
    for (const f of files) {
      const text = Array.from({ length: 20 }, (_, i) => workerLine(i + 1, '-', 0)).join('');
      writeFileSync(f, text);
      initial.set(f, Buffer.from(text));
    }
    const results = await Promise.all(Array.from({ length: CHILDREN }, (_, c) => runWorker(root, c, files)));

    const store = new ReviewStore(root); // a fresh load: snapshot + every log
    expect(existsSync(store.docPath)).toBe(true); // compaction ran while others were writing
    const proposals = allProposals(store);
    const byId = new Map(proposals.map((p) => [p.id, p]));
    const reported = results.flat();
    const proposed = reported.filter((e): e is Extract<WorkerEvent, { op: 'propose' }> => e.op === 'propose');
    const decided = reported.filter((e): e is Extract<WorkerEvent, { op: 'decide' }> => e.op === 'decide');
    expect(proposed.length).toBeGreaterThan(CHILDREN * ITERATIONS * 0.8);
    expect(proposals.length).toBe(proposed.length);
    for (const e of decided) {
      const p = byId.get(e.id);
      expect(p, e.id).toBeDefined();
      expect(p!.status).toBe(e.status);
      if (e.status === 'rejected') expect(p!.reason).toBe(e.reason);
      if (e.status !== 'pending') expect(p!.decided_by?.name.startsWith('child-')).toBe(true);
    }
    expect(decided.length).toBe(proposed.length);
    // Every applied proposal has exactly one journal entry, and nothing else does.
    const entries = allEntries(store);
    const applied = proposals.filter((p) => p.status === 'applied');
    expect(entries.length).toBe(applied.length);
    expect(new Set(entries.map((e) => e.proposal_id)).size).toBe(entries.length);
    for (const p of applied) expect(entries.find((e) => e.id === p.journal_id)?.proposal_id).toBe(p.id);
    // Each undo/redo reported succeeded is in the journal exactly once.
    const events = entries.flatMap((e) => e.history.map((h) => ({ ...h, entry: e })));
    for (const action of ['undo', 'redo'] as const) {
      const ok = reported.filter((e) => e.op === action && e.ok).length;
      expect(events.filter((h) => h.action === action).length).toBe(ok);
    }
    expect(new Set(events.map((h) => h.seq)).size).toBe(events.length);
    const statusCount = (s: string) => proposals.filter((p) => p.status === s).length;
    console.log(
      `proposals ${proposals.length}: applied ${statusCount('applied')}, conflict ${statusCount('conflict')}, rejected ${statusCount('rejected')}, pending ${statusCount('pending')}; undo/redo events ${events.length - entries.length}`,
    );
    expect(statusCount('applied')).toBeGreaterThan(0);
    expect(statusCount('conflict')).toBeGreaterThan(0);

    // Replay every event in global order over the initial contents.
    const contents = new Map(initial);
    for (const h of events.sort((x, y) => x.seq - y.seq)) {
      const e = h.entry;
      const key = join(root, e.path);
      const file = contents.get(key)!;
      const removed = loadBytes(store.blobsDir, e.removed);
      const inserted = loadBytes(store.blobsDir, byId.get(e.proposal_id!)!.content); // LF files: normalizing changed nothing
      expect(createHash('sha256').update(inserted).digest('hex')).toBe(e.inserted_sha256);
      const s = e.range_before.start_byte;
      const [put, span] = h.action === 'undo' ? [removed, inserted.length] : [inserted, removed.length];
      contents.set(key, Buffer.concat([file.subarray(0, s), put, file.subarray(s + span)]));
    }
    for (const f of files) expect(readFileSync(f, 'utf8')).toBe(contents.get(f)!.toString('utf8'));
  });
});
