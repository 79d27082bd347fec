/**
 * The public JSON views of proposals and journal entries (snake_case, targets and
 * preconditions in the upsert op's wire shape), as the api contract declares
 * them. Payload bytes are summarised, not sent, except a proposal's content
 * when asked for.
 */
import type { Preconditions, UpsertTarget } from '../engine/write/upsert.ts';
import { loadBytes } from './blobs.ts';
import { changeViewOf } from './changes.ts';
import { storeOf } from './store.ts';
import type { JournalEntry, Proposal } from './types.ts';

type Units = 'lines' | 'bytes';
export type WireTarget =
  | { insert: { at: number; units: Units } }
  | { replace: { start: number; end: number; units: Units } }
  | { delete: { start: number; end: number; units: Units } }
  | { append: { at_end: true; units?: Units } }
  | { whole_file: true };

export function wireTargetOf(t: UpsertTarget): WireTarget {
  switch (t.kind) {
    case 'insert':
      return { insert: { at: t.at, units: t.units } };
    case 'replace':
      return { replace: { start: t.start, end: t.end, units: t.units } };
    case 'delete':
      return { delete: { start: t.start, end: t.end, units: t.units } };
    case 'whole':
      return { whole_file: true };
    default:
      return t.units === 'bytes' ? { append: { at_end: true, units: 'bytes' } } : { append: { at_end: true } };
  }
}

export function wirePreconditionsOf(p: Preconditions) {
  return {
    ...(p.ifNoneMatch !== undefined ? { if_none_match: p.ifNoneMatch } : {}),
    ...(p.ifMatch !== undefined ? { if_match: p.ifMatch } : {}),
    ...(p.expectedSha256 !== undefined ? { expected_sha256: p.expectedSha256 } : {}),
    ...(p.ifNotModifiedSince !== undefined ? { if_not_modified_since: p.ifNotModifiedSince } : {}),
    ...(p.expectedRangeSha256 !== undefined ? { expected_range_sha256: p.expectedRangeSha256 } : {}),
    ...(p.anchors !== undefined ? { anchors: p.anchors } : {}),
  };
}

export function proposalView(root: string, p: Proposal, opts: { withContent?: boolean } = {}) {
  const blobs = storeOf(root).blobsDir;
  return {
    id: p.id,
    status: p.status,
    path: p.path,
    actor: p.actor,
    target: wireTargetOf(p.target),
    ...(p.edits ? { targets: p.edits.map((e) => wireTargetOf(e.target)) } : {}),
    ...(p.quoted ? { quoted: p.quoted } : {}),
    ...(p.file_op ? { file_op: p.file_op, ...(p.to !== undefined ? { to: p.to } : {}) } : {}),
    preconditions: wirePreconditionsOf(p.preconditions),
    normalize_newlines: p.normalize_newlines,
    preview: p.preview,
    version_seen: p.version_seen,
    content_bytes: p.content.bytes,
    content_sha256: p.content.sha256,
    edited: p.edited_content !== null,
    ...(opts.withContent
      ? {
          content: loadBytes(blobs, p.content).toString('utf8'),
          ...(p.edited_content ? { edited_content: loadBytes(blobs, p.edited_content).toString('utf8') } : {}),
        }
      : {}),
    created_at: p.created_at,
    decided_by: p.decided_by,
    decided_at: p.decided_at,
    reason: p.reason,
    conflict: p.conflict,
    journal_id: p.journal_id,
    ...(p.group ? { group: p.group } : {}),
    ...(p.hunks ? { hunks: p.hunks.map((status, i) => ({ index: i + 1, status })) } : {}),
    change: changeViewOf(blobs, p),
  };
}
export type ProposalView = ReturnType<typeof proposalView>;

export function entryView(e: JournalEntry) {
  return {
    id: e.id,
    seq: e.seq,
    proposal_id: e.proposal_id,
    actor: e.actor,
    decided_by: e.decided_by,
    path: e.path,
    version_before: e.version_before,
    version_after: e.version_after,
    range_before: e.range_before,
    range_after: e.range_after,
    removed_bytes: e.removed.bytes,
    removed_sha256: e.removed.sha256,
    removed_in_blob: e.removed.kind === 'blob',
    inserted_bytes: e.inserted_bytes,
    inserted_sha256: e.inserted_sha256,
    ...(e.file_op ? { file_op: e.file_op, ...(e.to !== undefined ? { to: e.to } : {}) } : {}),
    applied_at: e.applied_at,
    undone: e.undone,
    ...(e.group ? { group: e.group } : {}),
    ...(e.proposal_ids ? { proposal_ids: e.proposal_ids } : {}),
    history: e.history,
  };
}
export type EntryView = ReturnType<typeof entryView>;
