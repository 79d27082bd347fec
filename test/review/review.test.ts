/**
 * The review layer on real files: propose, approve (plain, stale, edited),
 * reject, undo/redo (per file, global order, other actors), restart, blobs,
 * compaction and watch.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { read } from '../../src-main/engine/read/read.ts';
import type { UpsertTarget } from '../../src-main/engine/write/upsert.ts';
import {
  applyDirect,
  approve,
  forgetStores,
  history,
  listProposals,
  propose,
  redo,
  reject,
  ReviewStore,
  showProposal,
  storeOf,
  undo,
  watch,
  type ReviewActor,
} from '../../src-main/review/index.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-review-');
afterAll(() => tmp.cleanup());
const AGENT = { kind: 'agent', name: 'claude' } as const;
const ME = { kind: 'human', name: 'ana' } as const;
const BOB = { kind: 'human', name: 'bob' } as const;
let n = 0;
let root = '';
beforeEach(() => {
  root = tmp.path(`ws${++n}`);
  mkdirSync(root, { recursive: true });
});
const file = (name: string, text: string) => {
  const p = join(root, name);
  writeFileSync(p, text);
  return p;
};
const etag = async (p: string) => (await read(p, { mode: 'head', lines: 1 })).version.etag;
const lines = (start: number, end: number): UpsertTarget => ({ kind: 'replace', start, end, units: 'lines' });
const codeOf = async (p: Promise<unknown>) =>
  p.then(
    () => 'no error',
    (e: { code?: string }) => e.code ?? String(e),
  );

describe('propose', () => {
  it('stores a pending proposal with the dry run preview and writes nothing', async () => {
    const p = file('a.txt', 'one\ntwo\nthree\n');
    const r = await propose(root, AGENT, { path: p, target: lines(2, 2), content: 'TWO', preconditions: { ifMatch: await etag(p) } });
    expect(r.status).toBe('pending');
    expect(r.preview).toContain('-two\n+TWO');
    expect(readFileSync(p, 'utf8')).toBe('one\ntwo\nthree\n');
    const [listed] = listProposals(root);
    expect(listed).toMatchObject({ id: r.proposal_id, status: 'pending', path: 'a.txt', actor: AGENT, decided_by: null });
  });

  it('is refused at once with the engine error when its preconditions already fail', async () => {
    const p = file('a.txt', 'one\n');
    expect(await codeOf(propose(root, AGENT, { path: p, target: lines(1, 1), content: 'x', preconditions: { ifMatch: 'stale' } }))).toBe('precondition_failed');
    expect(await codeOf(propose(root, AGENT, { path: p, target: lines(1, 1), content: 'x', preconditions: {} }))).toBe('precondition_required');
    expect(listProposals(root)).toEqual([]);
  });
});

describe('approve and reject', () => {
  it('approve applies through the engine and journals the removed bytes; a second decision is a conflict', async () => {
    const p = file('a.txt', 'one\ntwo\nthree\n');
    const { proposal_id } = await propose(root, AGENT, { path: p, target: lines(2, 2), content: 'TWO', preconditions: { ifMatch: await etag(p) } });
    const r = await approve(root, ME, proposal_id);
    expect(readFileSync(p, 'utf8')).toBe('one\nTWO\nthree\n');
    expect(r.proposal).toMatchObject({ status: 'applied', decided_by: ME, journal_id: r.entry.id });
    expect(r.entry).toMatchObject({
      proposal_id,
      actor: AGENT,
      decided_by: ME,
      path: 'a.txt',
      inserted_bytes: 4,
      range_before: { start_byte: 4, end_byte: 8 },
    });
    expect(Buffer.from((r.entry.removed as { base64: string }).base64, 'base64').toString()).toBe('two\n');
    expect(await codeOf(approve(root, ME, proposal_id))).toBe('conflict');
    expect(await codeOf(reject(root, ME, proposal_id))).toBe('conflict');
    expect(await codeOf(approve(root, ME, 'p-nope'))).toBe('not_found');
  });

  it('approve of a stale proposal marks it conflict with the precondition_failed details and writes nothing', async () => {
    const p = file('a.txt', 'one\ntwo\nthree\n');
    const { proposal_id } = await propose(root, AGENT, { path: p, target: lines(2, 2), content: 'TWO', preconditions: { ifMatch: await etag(p) } });
    writeFileSync(p, 'one\ntwo!\nthree\n'); // someone else changed the file
    const before = statSync(p).mtimeMs;
    const err = await approve(root, ME, proposal_id).catch((e) => e);
    expect(err.code).toBe('precondition_failed');
    expect(err.details).toMatchObject({ proposal_id, status: 'conflict', failed: ['if_match'], read: { hashlines: true } });
    expect(readFileSync(p, 'utf8')).toBe('one\ntwo!\nthree\n');
    expect(statSync(p).mtimeMs).toBe(before);
    const { proposal, entry } = showProposal(root, proposal_id);
    expect(proposal).toMatchObject({ status: 'conflict', decided_by: ME, conflict: { code: 'precondition_failed', failed: ['if_match'] } });
    expect(entry).toBeNull();
    expect(history(root)).toEqual([]);
  });

  it('reject keeps the reason and writes nothing', async () => {
    const p = file('a.txt', 'one\n');
    const { proposal_id } = await propose(root, AGENT, { path: p, target: lines(1, 1), content: 'ONE', preconditions: { ifMatch: await etag(p) } });
    const r = await reject(root, ME, proposal_id, 'wrong casing');
    expect(r).toMatchObject({ status: 'rejected', reason: 'wrong casing', decided_by: ME });
    expect(readFileSync(p, 'utf8')).toBe('one\n');
    expect(listProposals(root, { status: 'rejected' }).map((x) => x.id)).toEqual([proposal_id]);
    expect(listProposals(root, { status: 'pending' })).toEqual([]);
  });

  it("edit-then-approve applies the person's content under the proposal's preconditions", async () => {
    const p = file('a.txt', 'one\ntwo\n');
    const { proposal_id } = await propose(root, AGENT, { path: p, target: lines(2, 2), content: 'agent text', preconditions: { ifMatch: await etag(p) } });
    const r = await approve(root, ME, proposal_id, { content: 'human text' });
    expect(readFileSync(p, 'utf8')).toBe('one\nhuman text\n');
    expect(r.proposal.edited_content).not.toBeNull();
    expect(showProposal(root, proposal_id).proposal.status).toBe('applied');
    // a stale edit-then-approve conflicts just like a plain approve
    const q = await propose(root, AGENT, { path: p, target: lines(1, 1), content: 'x', preconditions: { ifMatch: await etag(p) } });
    writeFileSync(p, 'changed\n');
    expect(await codeOf(approve(root, ME, q.proposal_id, { content: 'y' }))).toBe('precondition_failed');
    expect(readFileSync(p, 'utf8')).toBe('changed\n');
  });
});

describe('undo and redo', () => {
  async function applied(p: string, target: UpsertTarget, content: string, who: ReviewActor = ME) {
    const { proposal_id } = await propose(root, AGENT, { path: p, target, content, preconditions: { ifMatch: await etag(p) } });
    return approve(root, who, proposal_id);
  }

  it('undo restores the removed bytes, redo re-applies, in global order across files', async () => {
    const a = file('a.txt', 'a1\na2\n');
    const b = file('b.txt', 'b1\n');
    await applied(a, lines(1, 1), 'A1');
    await applied(b, lines(1, 1), 'B1');
    await applied(a, lines(2, 2), 'A2');
    expect((await undo(root, ME)).entry.path).toBe('a.txt');
    expect(readFileSync(a, 'utf8')).toBe('A1\na2\n');
    expect((await undo(root, ME)).entry.path).toBe('b.txt');
    expect(readFileSync(b, 'utf8')).toBe('b1\n');
    const r = await redo(root, ME);
    expect(r.entry.path).toBe('b.txt');
    expect(readFileSync(b, 'utf8')).toBe('B1\n');
    // per file: undo in a.txt skips the later b.txt edit
    await undo(root, ME, { path: a });
    expect(readFileSync(a, 'utf8')).toBe('a1\na2\n');
    expect(readFileSync(b, 'utf8')).toBe('B1\n');
    expect(history(root, { path: 'a.txt' }).map((e) => [e.undone, e.history.map((h) => h.action).join(',')])).toEqual([
      [true, 'apply,undo'],
      [true, 'apply,undo'],
    ]);
    expect(await codeOf(undo(root, ME, { path: a }))).toBe('not_found');
  });

  it('undo of a pure deletion and of an insertion: the region guard is if_match of the version the edit produced', async () => {
    const p = file('a.txt', 'keep\ndrop me\nkeep too\n');
    const { proposal_id } = await propose(root, AGENT, {
      path: p,
      target: { kind: 'delete', start: 2, end: 2, units: 'lines' },
      content: '',
      preconditions: { ifMatch: await etag(p) },
    });
    await approve(root, ME, proposal_id);
    expect(readFileSync(p, 'utf8')).toBe('keep\nkeep too\n');
    await undo(root, ME);
    expect(readFileSync(p, 'utf8')).toBe('keep\ndrop me\nkeep too\n');
    await redo(root, ME);
    expect(readFileSync(p, 'utf8')).toBe('keep\nkeep too\n');
    writeFileSync(p, 'keep\nkeep too\nmore\n'); // any change invalidates an empty-region guard
    expect(await codeOf(undo(root, ME))).toBe('conflict');
    expect(readFileSync(p, 'utf8')).toBe('keep\nkeep too\nmore\n');
  });

  it('undo conflicts and writes nothing when the region it wrote changed since', async () => {
    const p = file('a.txt', 'one\ntwo\nthree\n');
    await applied(p, lines(2, 2), 'TWO');
    writeFileSync(p, 'one\nTwO\nthree\n');
    const mtime = statSync(p).mtimeMs;
    const err = await undo(root, ME).catch((e) => e);
    expect(err.code).toBe('conflict');
    expect(err.details).toMatchObject({ action: 'undo', cause: 'precondition_failed', failed: ['expected_range_sha256'], path: 'a.txt' });
    expect(readFileSync(p, 'utf8')).toBe('one\nTwO\nthree\n');
    expect(statSync(p).mtimeMs).toBe(mtime);
    expect(history(root)[0]!.undone).toBe(false);
  });

  it('undo applies when only other parts of the file changed (the guard is the region, not the file)', async () => {
    const p = file('a.txt', 'one\ntwo\nthree\n');
    await applied(p, lines(2, 2), 'TWO');
    writeFileSync(p, 'one\nTWO\nthree\nappended by a logger\n');
    await undo(root, ME);
    expect(readFileSync(p, 'utf8')).toBe('one\ntwo\nthree\nappended by a logger\n');
  });

  it("undo takes only the requester's own decisions unless include_others; direct edits are journaled too", async () => {
    const p = file('a.txt', 'x\ny\n');
    await applied(p, lines(1, 1), 'X', BOB);
    expect(await codeOf(undo(root, ME))).toBe('not_found');
    await applyDirect(root, ME, p, { target: lines(2, 2), content: 'Y', preconditions: { ifMatch: await etag(p) } });
    expect(readFileSync(p, 'utf8')).toBe('X\nY\n');
    const mine = await undo(root, ME); // ana's own edit, though bob's is older
    expect(mine.entry.proposal_id).toBeNull();
    expect(readFileSync(p, 'utf8')).toBe('X\ny\n');
    expect(await codeOf(undo(root, ME))).toBe('not_found');
    expect((await undo(root, ME, { includeOthers: true })).entry.decided_by).toEqual(BOB);
    expect(readFileSync(p, 'utf8')).toBe('x\ny\n');
  });

  it('undo works after a restart: a fresh process undoes an edit approved here', async () => {
    const p = file('a.txt', 'one\ntwo\n');
    const cli = { kind: 'human', name: 'cli' } as const;
    await applied(p, lines(1, 1), 'ONE', cli);
    const r = spawnSync(process.execPath, [join(process.cwd(), 'bin/folio.mjs'), 'review', 'undo', '--root', root, '--json'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ action: 'undo', entry: { undone: true, path: 'a.txt' } });
    expect(readFileSync(p, 'utf8')).toBe('one\ntwo\n');
    // and this process sees it after a refresh, and redoes it from a fresh store instance
    forgetStores();
    expect(history(root)[0]!.undone).toBe(true);
    await redo(root, cli);
    expect(readFileSync(p, 'utf8')).toBe('ONE\ntwo\n');
    expect(new ReviewStore(root).state.next_seq).toBe(4);
  });
});

describe('persistence', () => {
  it('payloads over 1 MiB live as content-addressed blobs, not in the document', async () => {
    const big = 'y'.repeat(1_500_000) + '\n';
    const p = file('big.txt', 'head\n' + 'x'.repeat(1_200_000) + '\ntail\n');
    const { proposal_id } = await propose(root, AGENT, { path: p, target: lines(2, 2), content: big, preconditions: { ifMatch: await etag(p) } });
    const r = await approve(root, ME, proposal_id);
    expect(r.entry.removed.kind).toBe('blob');
    expect(r.proposal.content.kind).toBe('blob');
    const store = storeOf(root);
    const blobs = readdirSync(store.blobsDir).sort();
    expect(blobs).toEqual([r.proposal.content.sha256, r.entry.removed.sha256].sort());
    const logBytes = readdirSync(store.changesDir).reduce((s, f) => s + statSync(join(store.changesDir, f)).size, 0);
    expect(logBytes).toBeLessThan(64 * 1024);
    await undo(root, ME);
    expect(readFileSync(p, 'utf8')).toBe('head\n' + 'x'.repeat(1_200_000) + '\ntail\n');
    expect(readdirSync(store.blobsDir)).toHaveLength(2); // the redo payload is the proposal's bytes: same blob
    await redo(root, ME);
    expect(readFileSync(p, 'utf8')).toBe('head\n' + big + 'tail\n');
    expect(showProposal(root, proposal_id).proposal.status).toBe('applied');
  });

  it('compaction folds the logs into the snapshot and a fresh load sees the same state', async () => {
    const p = file('a.txt', 'one\n');
    const { proposal_id } = await propose(root, AGENT, { path: p, target: lines(1, 1), content: 'ONE', preconditions: { ifMatch: await etag(p) } });
    await reject(root, ME, proposal_id, 'no');
    const store = storeOf(root);
    await store.compact();
    expect(readdirSync(store.changesDir)).toEqual([]);
    expect(existsSync(store.docPath)).toBe(true);
    expect(new ReviewStore(root).state.proposals?.[proposal_id]).toBeDefined();
    // writing after a compaction starts a new log, and both are loaded
    const q = await propose(root, AGENT, { path: p, target: lines(1, 1), content: 'One', preconditions: { ifMatch: await etag(p) } });
    forgetStores();
    expect(listProposals(root).map((x) => [x.id, x.status])).toEqual([
      [proposal_id, 'rejected'],
      [q.proposal_id, 'pending'],
    ]);
  });

  it('watch fires on local changes and on changes another process saves, until unsubscribed', async () => {
    const p = file('a.txt', 'one\n');
    const seen: string[] = [];
    const stop = watch(root, (e) => seen.push(e.source));
    const { proposal_id } = await propose(root, AGENT, { path: p, target: lines(1, 1), content: 'ONE', preconditions: { ifMatch: await etag(p) } });
    expect(seen).toEqual(['local']);
    const r = spawnSync(process.execPath, [join(process.cwd(), 'bin/folio.mjs'), 'review', 'reject', proposal_id, '--root', root], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const deadline = Date.now() + 5000;
    while (!seen.includes('disk') && Date.now() < deadline) await new Promise((res) => setTimeout(res, 20));
    expect(seen).toContain('disk');
    expect(listProposals(root)[0]!.status).toBe('rejected');
    stop();
    const count = seen.length;
    await propose(root, AGENT, { path: p, target: lines(1, 1), content: 'x', preconditions: { ifMatch: await etag(p) } });
    expect(seen.length).toBe(count);
  });
});

describe('undo/redo of a UTF-16 file', () => {
  it('restores the exact bytes (the journal writes them back verbatim, not as UTF-8 text)', async () => {
    const text = 'héllo 😀\r\nsecond ĊĊ line\r\nthird 日本\r\n';
    const original = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const p = join(root, 'wide.txt');
    writeFileSync(p, original);
    const r = await propose(root, AGENT, { path: p, target: lines(2, 2), content: 'ZWEI 😀 Ċ', preconditions: { ifMatch: await etag(p) } });
    await approve(root, ME, r.proposal_id);
    const edited = readFileSync(p);
    expect(edited.subarray(2).toString('utf16le')).toBe('héllo 😀\r\nZWEI 😀 Ċ\r\nthird 日本\r\n');
    await undo(root, ME, { path: p });
    expect(readFileSync(p).equals(original)).toBe(true);
    await redo(root, ME, { path: p });
    expect(readFileSync(p).equals(edited)).toBe(true);
  });
});
