/**
 * The records of the review document: proposals (agent edits waiting for a
 * decision) and journal entries (edits that were applied, with what undo needs).
 * Paths are stored relative to the workspace root (POSIX separators) when inside
 * it, else absolute, so a moved workspace keeps its state.
 */
import type { Version } from '../engine/read/file-facts.ts';
import type { LineByteRange, Preconditions, UpsertTarget } from '../engine/write/upsert.ts';
import type { FileOp } from '../engine/write/file-ops.ts';

export interface ReviewActor {
  kind: 'human' | 'agent';
  name: string;
}

export const PROPOSAL_STATUSES = ['pending', 'applied', 'rejected', 'conflict'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

/**
 * Bytes kept by the review state: inline (base64) up to 1 MiB, else a
 * content-addressed blob (`<state>/review/blobs/<sha256>`) named here.
 */
export type StoredBytes = { kind: 'inline'; base64: string; bytes: number; sha256: string } | { kind: 'blob'; bytes: number; sha256: string };

export interface Proposal {
  id: string;
  actor: ReviewActor;
  path: string;
  target: UpsertTarget;
  /** the agent's content (UTF-8); with `edits`, the first edit's */
  content: StoredBytes;
  /** several edits in one proposal (target + content each), applied all or nothing; `target`/`content` are the first */
  edits?: { target: UpsertTarget; content: StoredBytes }[];
  /** edits by quoting (the edit operation): found again in the file when approved, so unrelated changes do not stale them */
  quoted?: { old_text: string; new_text: string; replace_all?: boolean }[];
  /** the content that was applied when a person edited it before approving */
  edited_content: StoredBytes | null;
  preconditions: Preconditions;
  normalize_newlines: boolean;
  /** the agent's policy let it edit a file with several hard links (approvals refuse one otherwise) */
  allow_hardlinks?: boolean;
  /** a new file (if_none_match) whose missing folders the approval creates; a move: the missing folders of `to` */
  create_parents?: boolean;
  /** the whole file is deleted or moved (target is whole_file, content empty) */
  file_op?: FileOp;
  /** file_op move: the new name (stored like `path`) */
  to?: string;
  /** the dry run's unified diff, made when the proposal was stored */
  preview: string;
  /** version of the file the dry run saw */
  version_seen: Version;
  status: ProposalStatus;
  decided_by: ReviewActor | null;
  created_at: string;
  decided_at: string | null;
  reason: string | null;
  /** on conflict: the engine error (code, message and its details) */
  conflict: Record<string, unknown> | null;
  journal_id: string | null;
  /** one file of a several-file proposal: approved, rejected and undone with the rest of its group */
  group?: GroupTag;
  /** where the proposal's own lines are now, as edits applied to its file moved them (rebase.ts) */
  rebase?: RebaseState;
  /** a proposal with several edits (`edits` or `quoted`): each one's decision, in their order */
  hunks?: HunkStatus[];
  /** the change model (changes.ts): the proposal as line hunks of its file; absent in proposals stored before it */
  changes?: ProposalChanges;
}

/** One line hunk of a proposal (changes.ts); its lines are in ProposalChanges.lines. */
export interface ChangeHunkState {
  /** the edit (0-based: `edits`, `quoted`, or 0) it belongs to: its decision unit */
  edit: number;
  /** lines old_start.. of the version the agent read (an insert: the line new lines go before) */
  old_start: number;
  old_count: number;
  new_count: number;
  /** where the old lines begin now (rebase.ts moves it) */
  start_line: number;
  /** the bytes the hunk's own lines stand on now (an insert: the line it goes before); an edit touching them makes the proposal stale */
  start_byte: number;
  end_byte: number;
  /** too big to keep the lines (only counts) */
  truncated?: boolean;
}

export interface ProposalChanges {
  hunks: ChangeHunkState[];
  /** JSON [[old_lines, new_lines], ...] in the hunks' order */
  lines: StoredBytes;
}

export type HunkStatus = 'pending' | 'applied' | 'rejected';

/** Bytes [start_byte, end_byte) of the file that a proposal's edit or anchor stands on, as they are now. */
export interface GuardRange {
  start_byte: number;
  end_byte: number;
  /** "LINE#HASH" anchors of the range's lines (absent when too many) */
  lines?: string[];
}

/**
 * A pending proposal's own region, carried through the journaled edits of its
 * file (rebase.ts): `etag` is the version the positions are true for; each edit
 * (in `edits` order) and each of the agent's anchors has its guard range.
 */
export interface RebaseState {
  etag: string;
  edits: GuardRange[];
  anchors: GuardRange[];
  /** SHA-256 of the one replaced or deleted region, the precondition once the file moved */
  range_sha256?: string;
  /** a write the rebase could not follow (the file changed outside the journal): the proposal's own preconditions decide again */
  detached?: boolean;
  /** an applied edit changed the proposal's own lines: it no longer applies */
  stale?: { journal_id: string; start_byte: number; end_byte: number; start_line?: number; end_line?: number };
}

/** One file of a call that edited several, all or nothing: the group's id, this file's place in it and the group's size. */
export interface GroupTag {
  id: string;
  index: number;
  of: number;
}

export type JournalAction = 'apply' | 'undo' | 'redo';

export interface JournalEvent {
  action: JournalAction;
  seq: number;
  by: ReviewActor;
  at: string;
  version_before: Version;
  version_after: Version;
}

export interface JournalEntry {
  id: string;
  /** order of the first application, global across files */
  seq: number;
  proposal_id: string | null;
  /** who wrote the edit (the agent of a proposal) */
  actor: ReviewActor;
  /** who decided it applies (approver, or the actor of a direct edit) */
  decided_by: ReviewActor;
  path: string;
  version_before: Version;
  version_after: Version;
  range_before: LineByteRange;
  range_after: LineByteRange;
  /** the inverse payload: the bytes the edit replaced */
  removed: StoredBytes;
  inserted_bytes: number;
  inserted_sha256: string;
  /** the bytes undo took out (= the inserted bytes), kept for redo while undone */
  redo_payload: StoredBytes | null;
  applied_at: string;
  undone: boolean;
  /** seq of the latest apply/redo (undo takes the highest) */
  applied_seq: number;
  /** seq of the latest undo (redo takes the highest), null if never undone */
  undone_seq: number | null;
  /** the version the latest action produced (the guard when the region is empty) */
  last_version: Version;
  /**
   * How far journaled edits made after this one, before its region in the file,
   * moved the region (bytes): its undo/redo works at range_before.start_byte +
   * shift_bytes. range_before itself stays as it was applied (replays use it).
   */
  shift_bytes?: number;
  /** one file of a several-file edit (all or nothing): undone and redone with the rest of its group */
  group?: GroupTag;
  /** a batch approval (batch.ts): every proposal this one write applied (proposal_id is null) */
  proposal_ids?: string[];
  /**
   * The whole file was deleted or moved (file-op-journal.ts). Such an entry has no
   * region: `removed` holds the deleted file's bytes (empty for a move), ranges are
   * zero but for range_before.end_byte (the file's size), and `file` guards undo/redo.
   */
  file_op?: FileOp;
  /** file_op move: the new name (stored like `path`) */
  to?: string;
  /**
   * file_op: the file as it was deleted or moved; a created file (`created`) once
   * its undo deleted it: its mode, for the redo that puts it back
   */
  file?: { bytes: number; sha256: string; mode: number };
  /** the edit created its file (if_none_match "*"): undo removes the file while it holds just that edit (file-op-journal.ts) */
  created?: boolean;
  history: JournalEvent[];
}

/** The document's root. Maps are created under the workspace lock, once. */
export interface ReviewDocShape {
  proposals?: Record<string, unknown>;
  journal?: Record<string, unknown>;
  next_seq?: number;
}
