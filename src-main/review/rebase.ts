/**
 * Rebase of pending proposals through the edits applied to their file.
 *
 * An agent proposes several edits from one read; each carries that read's
 * version (if_match). Approving one changes the file's version, so without
 * rebasing the others would all be stale. Instead each proposal keeps, from the
 * version its dry run saw, the bytes its own lines stand on (`RebaseState`: one
 * guard range per edit, the neighbouring line for an insert, and one per anchor
 * the agent named), with their line hashes. Every journaled write of the file
 * (approval, a person's edit, undo, redo) is committed with the rebase of the
 * file's pending proposals, in the same Automerge change:
 * - a guard range wholly before every piece of the write stays;
 * - one wholly after moves by the pieces before it (bytes and lines), and so do
 *   its edit's target and the agent's anchors;
 * - one the write touched marks the proposal `stale`: approving it is a conflict.
 * Once the file has moved, approval checks the proposal's own region instead of
 * the whole-file version (`preconditionsOf`): its SHA-256 for one replace or
 * delete, else the line hashes of its guard ranges. The chain holds only while
 * each write starts from the version the proposal was last moved to; a write
 * outside the journal breaks it (`detached`), and the original preconditions
 * decide again.
 * Quoted edits find their text again at approval and need none of this.
 */
import { createHash } from 'node:crypto';
import { FolioError } from '../engine/errors.ts';
import { factsOf } from '../engine/read/file-facts.ts';
import { etagOf } from '../engine/index/identity.ts';
import { openIndex } from '../engine/index/store.ts';
import type { LineIndex } from '../engine/index/line-index.ts';
import { codecFor } from '../engine/text/codec.ts';
import { readBytes } from '../engine/text/window.ts';
import { currentLineHash } from '../engine/write/preconditions.ts';
import type { LineByteRange, Preconditions, UpsertEdit, UpsertResult, UpsertTarget, WritePiece } from '../engine/write/upsert.ts';
import { allProposals, assignFields } from './records.ts';
import type { ReviewStore } from './store.ts';
import type { GuardRange, Proposal, RebaseState, ReviewDocShape } from './types.ts';

/** Line hashes kept per proposal at most; past that its multi-edit region is guarded by the whole-file version only. */
const MAX_GUARD_LINES = 2000;
const ANCHOR = /^(\d+)#([0-9a-f]{3})$/;

/** What propose() asked for, as far as the rebase needs it. */
interface ProposedEdits {
  target: UpsertTarget;
  edits?: UpsertEdit[];
  quoted?: unknown[];
  preconditions: Preconditions;
}

/**
 * The rebase state of a proposal whose dry run is `dry`: its guard ranges on the
 * file as it is now, if that is still the version the dry run saw (else none: the
 * proposal keeps only its own preconditions).
 */
export async function rebaseStateOf(absPath: string, req: ProposedEdits, dry: UpsertResult): Promise<RebaseState | undefined> {
  const edits = req.edits ?? [{ target: req.target, content: '' }];
  if (req.preconditions.ifNoneMatch !== undefined) return undefined;
  const index = await openIndex(absPath);
  if (etagOf(index.identity) !== dry.version_before.etag) return undefined;
  // Quotes are found again by their text: their change hunks (changes.ts) are what the rebase follows.
  if (req.quoted) return { etag: dry.version_before.etag, edits: [], anchors: [] };
  if (edits.some((e) => e.target.kind === 'whole' || e.target.kind === 'append')) return undefined;
  const codec = codecFor((await factsOf(absPath, { hash: false })).encoding);
  const regions: LineByteRange[] = dry.hunks ? [] : [dry.range_before];
  for (const h of dry.hunks ?? []) regions[h.edit] = h.range_before;
  const guards = regions.map((r) => guardOfRegion(index, r));
  const anchors: GuardRange[] = [];
  for (const a of req.preconditions.anchors ?? []) {
    const line = Number(ANCHOR.exec(a.trim())?.[1] ?? 0);
    if (line < 1 || line > index.lineCount) return undefined;
    anchors.push({ start_byte: lineStartOf(index, line - 1), end_byte: nextLineStartOf(index, line - 1) });
  }
  const total = guards.reduce((n, g) => n + linesOf(index, g).length, 0);
  if (total <= MAX_GUARD_LINES) for (const g of guards) g.lines = linesOf(index, g).map((idx) => `${idx + 1}#${currentLineHash(index, idx + 1, codec)}`);
  const t = edits[0]!.target;
  const single = edits.length === 1 && (t.kind === 'replace' || t.kind === 'delete') && regions[0]!.end_byte > regions[0]!.start_byte;
  const rangeSha = single
    ? createHash('sha256')
        .update(readBytes(absPath, regions[0]!.start_byte, regions[0]!.end_byte))
        .digest('hex')
    : undefined;
  return { etag: dry.version_before.etag, edits: guards, anchors, ...(rangeSha ? { range_sha256: rangeSha } : {}) };
}

function lineStartOf(index: LineIndex, lineIdx: number): number {
  return lineIdx === 0 ? Math.min(index.bomLength, index.size) : index.lineStart(lineIdx);
}

/** Where the line after `lineIdx` starts (the file's size after the last line). */
function nextLineStartOf(index: LineIndex, lineIdx: number): number {
  const next = index.lineStart(lineIdx + 1);
  return next < 0 ? index.size : next;
}

/** The bytes an edit stands on: its region, or for an insert the line it goes before (the last line at the end). */
function guardOfRegion(index: LineIndex, r: LineByteRange): GuardRange {
  if (r.end_byte > r.start_byte || index.size === 0) return { start_byte: r.start_byte, end_byte: r.end_byte };
  const idx = index.lineAt(r.start_byte < index.size ? r.start_byte : index.size - 1);
  return { start_byte: r.start_byte < index.size ? r.start_byte : lineStartOf(index, idx), end_byte: nextLineStartOf(index, idx) };
}

/** 0-based lines a non-empty guard range covers. */
function linesOf(index: LineIndex, g: GuardRange): number[] {
  if (g.end_byte <= g.start_byte) return [];
  const first = index.lineAt(g.start_byte);
  const last = index.lineAt(g.end_byte - 1);
  return Array.from({ length: last - first + 1 }, (_, k) => first + k);
}

interface Shift {
  bytes: number;
  lines: number;
}

/** How far the write's pieces move `g`, or null when one of them touches it. */
function shiftOf(g: GuardRange, pieces: WritePiece[]): Shift | null {
  const s = { bytes: 0, lines: 0 };
  for (const x of pieces) {
    if (g.end_byte <= x.startByte) continue;
    if (g.start_byte >= x.endByte) {
      s.bytes += x.newBytes - (x.endByte - x.startByte);
      s.lines += x.lineDelta;
      continue;
    }
    return null;
  }
  return s;
}

function shiftRange(g: GuardRange, s: Shift): GuardRange {
  return {
    start_byte: g.start_byte + s.bytes,
    end_byte: g.end_byte + s.bytes,
    ...(g.lines ? { lines: g.lines.map((a) => shiftAnchor(a, s.lines)) } : {}),
  };
}

function shiftAnchor(anchor: string, lines: number): string {
  const m = ANCHOR.exec(anchor.trim());
  return m ? `${Number(m[1]) + lines}#${m[2]}` : anchor;
}

/** The line an agent's "LINE#HASH" anchor names, as a target (for the words of a conflict). */
export function anchorTargetOf(anchor: string): UpsertTarget | undefined {
  const m = ANCHOR.exec(anchor.trim());
  return m ? { kind: 'insert', at: Number(m[1]), units: 'lines' } : undefined;
}

function shiftTarget(t: UpsertTarget, s: Shift): UpsertTarget {
  if (t.kind !== 'insert' && t.kind !== 'replace' && t.kind !== 'delete') return t;
  const d = t.units === 'bytes' ? s.bytes : s.lines;
  return t.kind === 'insert' ? { ...t, at: t.at + d } : { ...t, start: t.start + d, end: t.end + d };
}

/** A journaled write of one file, as the rebase sees it. */
export interface RebaseWrite {
  journalId: string;
  storedPath: string;
  versionBefore: string;
  versionAfter: string;
  pieces: WritePiece[];
  /** the proposal this write applies (its applied hunks are not rebased), and which of its edits (0-based) */
  proposalId?: string | null;
  proposalHunks?: number[];
  /** a batch: every proposal this write applies, each with its edits (0-based; default all pending) */
  batch?: BatchMember[];
}

/** One proposal of a batch write (batch.ts), and which of its edits (0-based) it applies; default all pending. */
export interface BatchMember {
  id: string;
  hunks?: number[];
}

/** Number of edits of a proposal that can be decided one by one (0 for a single edit). */
export function hunkCountOf(p: Proposal): number {
  const n = p.edits?.length ?? p.quoted?.length ?? 0;
  return n > 1 ? n : 0;
}

/** Indexes (0-based) of the proposal's edits still pending. */
export function pendingHunksOf(p: Proposal): number[] {
  const n = hunkCountOf(p) || 1;
  return Array.from({ length: n }, (_, i) => i).filter((i) => (p.hunks?.[i] ?? 'pending') === 'pending');
}

/** Inside a commit: move the file's pending proposals through `w`, or mark those it touched stale. */
export function rebasePending(store: ReviewStore, d: ReviewDocShape, w: RebaseWrite): void {
  for (const p of allProposals(store)) {
    const r = p.rebase;
    if (p.path !== w.storedPath || p.status !== 'pending' || !r || r.stale || r.detached) continue;
    if (r.etag !== w.versionBefore) {
      assignFields(d, 'proposals', p.id, { rebase: { ...r, detached: true } });
      continue;
    }
    const member = w.batch?.find((m) => m.id === p.id);
    const own = p.id === w.proposalId || member !== undefined;
    const applying = new Set(own ? ((member ? member.hunks : w.proposalHunks) ?? pendingHunksOf(p)) : []);
    const open = pendingHunksOf(p).filter((i) => !applying.has(i));
    if (own && open.length === 0) continue;
    const next = rebasedOf(p, r, new Set(open), w, own);
    assignFields(d, 'proposals', p.id, next);
  }
}

/** The fields of `p` after the write `w`: moved, or stale. `open`: its edits still to rebase. */
function rebasedOf(p: Proposal, r: RebaseState, open: Set<number>, w: RebaseWrite, own: boolean): Partial<Proposal> {
  const stale = (g: GuardRange, target?: UpsertTarget): Partial<Proposal> => ({
    rebase: { ...r, stale: { journal_id: w.journalId, start_byte: g.start_byte, end_byte: g.end_byte, ...linesOfGuard(g, target) } },
  });
  const edits = r.edits.slice();
  const targets = (p.edits ?? [{ target: p.target, content: p.content }]).map((e) => e.target);
  // The change model's hunks: their own lines, touched, make the proposal stale; else they move.
  const hunks = p.changes?.hunks.slice();
  for (const [k, h] of (hunks ?? []).entries()) {
    if (!open.has(h.edit)) continue;
    const s = shiftOf(h, w.pieces);
    if (s === null) {
      const last = h.start_line + Math.max(h.old_count, 1) - 1;
      return { rebase: { ...r, stale: { journal_id: w.journalId, start_byte: h.start_byte, end_byte: h.end_byte, start_line: h.start_line, end_line: last } } };
    }
    hunks![k] = { ...h, start_line: h.start_line + s.lines, start_byte: h.start_byte + s.bytes, end_byte: h.end_byte + s.bytes };
  }
  for (const i of open) {
    if (!r.edits[i]) continue;
    const s = shiftOf(r.edits[i]!, w.pieces);
    if (s === null) return stale(r.edits[i]!, targets[i]);
    edits[i] = shiftRange(r.edits[i]!, s);
    targets[i] = shiftTarget(targets[i]!, s);
  }
  const anchors: GuardRange[] = [];
  const agentAnchors: string[] = [];
  for (const [k, g] of r.anchors.entries()) {
    const s = shiftOf(g, w.pieces);
    if (s === null && own) continue; // the proposal's own edit changed the line it named
    if (s === null) return stale(g, anchorTargetOf(p.preconditions.anchors![k]!));
    anchors.push(shiftRange(g, s));
    agentAnchors.push(shiftAnchor(p.preconditions.anchors![k]!, s.lines));
  }
  return {
    rebase: { ...r, etag: w.versionAfter, edits, anchors },
    target: targets[0]!,
    ...(p.edits ? { edits: p.edits.map((e, i) => ({ ...e, target: targets[i]! })) } : {}),
    ...(p.preconditions.anchors ? { preconditions: { ...p.preconditions, anchors: agentAnchors } } : {}),
    ...(hunks ? { changes: { ...p.changes!, hunks } } : {}),
  };
}

/**
 * The preconditions approving `hunks` (0-based) of `p` checks: its own, while the
 * file is still the version it saw; once journaled writes moved it, its region's.
 */
export function preconditionsOf(p: Proposal, hunks: number[]): Preconditions {
  if (!p.rebase || p.rebase.detached || p.rebase.etag === p.version_seen.etag) return p.preconditions;
  if (p.quoted) {
    // Its quotes are its content precondition; the chain proved its own lines unchanged.
    const { ifMatch: _m, expectedSha256: _s, ifNotModifiedSince: _t, ...range } = p.preconditions;
    return range;
  }
  return regionPreconditionsOf(p, hunks) ?? p.preconditions;
}

/** The 1-based lines a guard range stands on: from its line anchors, else from its edit's line target. */
export function linesOfGuard(g: GuardRange, target?: UpsertTarget): { start_line: number; end_line: number } | Record<string, never> {
  const nums = (g.lines ?? []).map((a) => Number(ANCHOR.exec(a)?.[1] ?? NaN)).filter(Number.isFinite);
  if (nums.length) return { start_line: nums[0]!, end_line: nums[nums.length - 1]! };
  if (!target || target.kind === 'whole' || target.units !== 'lines') return {};
  if (target.kind === 'insert') return { start_line: target.at, end_line: target.at };
  if (target.kind === 'replace' || target.kind === 'delete') return { start_line: target.start, end_line: target.end };
  return {};
}

/** "lines 51–61" (or "line 7", or "bytes 10–20") of a range, and whether that is one; the plain words conflicts speak in. */
export function linesText(r: { start_line?: number; end_line?: number; start_byte?: number; end_byte?: number }): { text: string; one: boolean } {
  if (r.start_line !== undefined && r.end_line !== undefined)
    return r.start_line === r.end_line ? { text: `line ${r.start_line}`, one: true } : { text: `lines ${r.start_line}–${r.end_line}`, one: false };
  return { text: `bytes ${r.start_byte}–${r.end_byte}`, one: false };
}

/** "lines 51–61 changed after the agent read them" (or "line 7 … read it"). */
export function changedText(r: Parameters<typeof linesText>[0]): string {
  const { text, one } = linesText(r);
  return `${text} changed after the agent read ${one ? 'it' : 'them'}`;
}

/**
 * The proposal's own lines as they are now (first to
 * last): its change hunks', else its line targets'; null when neither is known.
 */
export function ownLinesOf(p: Proposal): { start_line: number; end_line: number } | null {
  const open = new Set(pendingHunksOf(p));
  const hunks = p.changes?.hunks.filter((h) => open.has(h.edit)) ?? [];
  if (hunks.length) {
    return {
      start_line: Math.min(...hunks.map((h) => h.start_line)),
      end_line: Math.max(...hunks.map((h) => h.start_line + Math.max(h.old_count, 1) - 1)),
    };
  }
  const targets = p.edits ? pendingHunksOf(p).map((i) => p.edits![i]!.target) : [p.target];
  let lo = Infinity;
  let hi = -Infinity;
  for (const t of targets) {
    if ((t.kind !== 'insert' && t.kind !== 'replace' && t.kind !== 'delete') || t.units !== 'lines') return null;
    lo = Math.min(lo, t.kind === 'insert' ? t.at : t.start);
    hi = Math.max(hi, t.kind === 'insert' ? t.at : t.end);
  }
  return p.quoted || lo === Infinity ? null : { start_line: lo, end_line: hi };
}

/** precondition_failed for a proposal an applied edit made stale (null if it is not), in plain words. */
export function staleErrorOf(p: Proposal): FolioError | null {
  const s = p.rebase?.stale;
  if (!s) return null;
  return new FolioError('precondition_failed', `${changedText(s)} (journal entry ${s.journal_id})`, {
    path: p.path,
    failed: ['region'],
    changed_by: s.journal_id,
    ...(s.start_line !== undefined ? { lines: { start_line: s.start_line, end_line: s.end_line } } : {}),
    affected_bytes: { start_byte: s.start_byte, end_byte: s.end_byte },
  });
}

/**
 * The proposal's own region as preconditions, whatever version the file is at
 * (apply to the current file): the agent's range preconditions, else its
 * region's SHA-256 or line hashes; null when it kept none.
 */
export function regionPreconditionsOf(p: Proposal, hunks: number[]): Preconditions | null {
  const { ifMatch: _m, expectedSha256: _s, ifNotModifiedSince: _t, ...range } = p.preconditions;
  if (range.expectedRangeSha256 !== undefined || range.anchors !== undefined) return range;
  const r = p.rebase;
  if (!r) return null;
  if (r.range_sha256 && r.edits.length === 1) return { expectedRangeSha256: r.range_sha256 };
  const lines = hunks.map((i) => r.edits[i]?.lines);
  return lines.some((l) => l === undefined) ? null : { anchors: lines.flat() as string[] };
}
