/**
 * What an upsert asks for and answers (upsert.ts does it): the request with its
 * targets, preconditions and edits, the write plan the journal records before the
 * file changes, and the answer with the version, ranges and diff.
 */
import type { Version } from '../read/file-facts.ts';
import type { LooseMatch, QuotedEdit } from './quote-edit.ts';
import type { AffectedCounts, LineChange } from './diff-preview.ts';
import type { UpsertTarget } from './edit-region.ts';
import type { PreconditionReport, Preconditions } from './preconditions.ts';

/** One edit of an upsert: where, and the text that goes there. */
export interface UpsertEdit {
  target: UpsertTarget;
  content: string;
  /** write these bytes verbatim (see UpsertRequest.contentBytes) */
  contentBytes?: Uint8Array;
}

export interface UpsertRequest {
  /** the edit (with `edits`: the first of them) */
  target: UpsertTarget;
  content: string;
  /**
   * Several edits written at once, all or nothing, each placed on the same version
   * of the file (so line numbers are those of the version read, not shifted by the
   * edits before them). Overlapping edits are invalid_range naming the pair.
   */
  edits?: UpsertEdit[];
  preconditions: Preconditions;
  /** content takes the file's newline style (default true) */
  normalizeNewlines?: boolean;
  dryRun?: boolean;
  /**
   * Internal (the review journal): return the exact bytes that were replaced, read
   * under the lock, and the bytes written, as `removed` / `inserted`.
   */
  captureBytes?: boolean;
  /**
   * Internal (undo/redo of byte ranges): write these bytes verbatim instead of
   * `content` (no encoding, no newline normalisation). An exact inverse of an edit of
   * a UTF-16 file cannot travel as a UTF-8 string.
   */
  contentBytes?: Uint8Array;
  /**
   * Internal (the review journal's write-ahead intent): called under the file lock
   * after the preconditions passed, right before the file is written, with what the
   * write will do. If it throws, nothing is written.
   */
  onBeforeWrite?: (plan: WritePlan) => void | Promise<void>;
  /**
   * The caller resolved `path` and checked it against a policy (the agent guard; the
   * review journal writing what an agent proposed). The write is refused with
   * permission_denied unless the path still leads to itself when it is opened, and,
   * unless allowHardlinks, if the file has more than one link.
   */
  checked?: { allowHardlinks: boolean };
  /** With preconditions.ifNoneMatch: also create the missing folders of the path. */
  createParents?: boolean;
  /**
   * Edits by quoting text (quote-edit.ts), instead of target/content/edits: each
   * old text must be found exactly once (or, with replaceAll, at least once) in the
   * version under the lock; that match is the content precondition, so no other
   * precondition is required.
   */
  quoted?: QuotedEdit[];
  /** Internal (review's change model): a dry run also tells each edit's line hunks (`changes`). */
  describeChanges?: boolean;
  /**
   * Internal (review: a quote edit applies only on the lines it was proposed on):
   * called under the lock with each edit's line hunks once the preconditions passed;
   * if it throws, nothing is written.
   */
  checkChanges?: (changes: LineChange[]) => void;
}

/** What an upsert is about to write: enough to tell the file before from after by the region alone. */
export interface WritePlan {
  path: string;
  startByte: number;
  /** the bytes replaced (read under the lock) and the bytes written there */
  removed: Buffer;
  inserted: Uint8Array;
  sizeBefore: number;
  sizeAfter: number;
  version_before: Version;
  range_before: LineByteRange;
  range_after: LineByteRange;
  /** each edit's region in the file before the write (file order), with what it does to the line count */
  pieces: WritePiece[];
  /** the write fills the empty file this upsert just made (if_none_match "*"): the file did not exist before */
  created?: boolean;
}

/** One edit of a write: bytes [startByte, endByte) become newBytes bytes; the lines after it move by lineDelta. */
export interface WritePiece {
  startByte: number;
  endByte: number;
  newBytes: number;
  lineDelta: number;
}

export interface LineByteRange {
  start_line: number;
  end_line: number;
  start_byte: number;
  end_byte: number;
}

/** One edit's place before and after, in a multi-edit upsert's answer (in file order). */
export interface UpsertHunk {
  /** the edit's index in the request's `edits` */
  edit: number;
  range_before: LineByteRange;
  range_after: LineByteRange;
  affected: AffectedCounts;
}

export interface UpsertResult {
  path: string;
  applied: boolean;
  /** if_none_match: the file was created by this upsert */
  created?: boolean;
  dry_run: boolean;
  version_before: Version;
  version_after: Version | null;
  range_before: LineByteRange;
  range_after: LineByteRange;
  affected: AffectedCounts;
  preconditions: PreconditionReport;
  preview: string;
  notes: string[];
  elapsed_ms: number;
  /** with several edits: each edit's place (range_before/range_after span them all) */
  hunks?: UpsertHunk[];
  /** only with describeChanges: each edit's line hunks, in file order (diff-preview.ts) */
  changes?: LineChange[];
  /** quoted edits whose quote matched loosely (quote-edit.ts LooseMatch) */
  loose_matches?: LooseMatch[];
  /** only with captureBytes: the bytes replaced and the bytes written */
  removed?: Buffer;
  inserted?: Buffer;
}
