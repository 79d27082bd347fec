/**
 * The change model: every proposal, whatever form the agent sent it in (line or
 * byte targets, quotes, JSON paths, sections, the whole file, a create, a delete,
 * a move), is kept as the same thing, per file a list of line hunks against the
 * version the agent read: which lines go (old), which come (new), where. The
 * engine's dry run makes them (diff-preview.ts lineChangesOf); the rebase moves
 * each hunk's place as edits elsewhere in the file are applied, and marks the
 * proposal stale when an edit touches a hunk's own lines (rebase.ts). The views,
 * the app, the CLI and proposal_status all read this one model.
 *
 * The hunks' lines are kept apart from the document (one stored JSON, inline or a
 * blob) so that a proposal of a 200 KiB region does not weigh on every change of
 * the review document.
 */
import type { LineChange } from '../engine/write/diff-preview.ts';
import { openIndex } from '../engine/index/store.ts';
import { factsOf } from '../engine/read/file-facts.ts';
import { codecFor } from '../engine/text/codec.ts';
import { readBytes } from '../engine/text/window.ts';
import type { LineIndex } from '../engine/index/line-index.ts';
import { loadBytes, storeBytes } from './blobs.ts';
import { hunkCountOf } from './rebase.ts';
import type { ChangeHunkState, Proposal, ProposalChanges } from './types.ts';

/** Largest deleted file whose lines a delete proposal carries. */
const DELETE_LINES_MAX_BYTES = 256 * 1024;

/** The bytes an insert hunk stands on: the line it goes before, or the last line at the end. */
function insertGuardOf(index: LineIndex, at: number): { start_byte: number; end_byte: number } {
  if (index.size === 0) return { start_byte: 0, end_byte: 0 };
  const lineIdx = index.lineAt(Math.min(at, index.size - 1));
  const start = lineIdx === 0 ? Math.min(index.bomLength, index.size) : index.lineStart(lineIdx);
  const next = index.lineStart(lineIdx + 1);
  return { start_byte: start < 0 ? at : start, end_byte: next < 0 ? index.size : next };
}

/**
 * The stored change of a proposal from its dry run's hunks. `index`: the file as the
 * dry run saw it (null when it is gone or changed since: the hunks keep their bytes).
 */
export function changesOf(blobsDir: string, hunks: LineChange[], index: LineIndex | null): ProposalChanges {
  const state: ChangeHunkState[] = hunks.map((h) => {
    const guard = h.old_count === 0 && index ? insertGuardOf(index, h.start_byte) : { start_byte: h.start_byte, end_byte: h.end_byte };
    return {
      edit: h.edit,
      old_start: h.old_start,
      old_count: h.old_count,
      new_count: h.new_count,
      start_line: h.old_start,
      ...guard,
      ...(h.truncated ? { truncated: true } : {}),
    };
  });
  const lines = hunks.map((h) => [h.old_lines, h.new_lines]);
  return { hunks: state, lines: storeBytes(blobsDir, Buffer.from(JSON.stringify(lines), 'utf8')) };
}

/** A whole-file delete: every line goes (one hunk; the lines only up to 256 KiB). */
export function deleteChangesOf(blobsDir: string, text: string | null, size: number, lineCount: number): ProposalChanges {
  const lines = text === null || size > DELETE_LINES_MAX_BYTES ? null : text === '' ? [] : text.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  return changesOf(
    blobsDir,
    [
      {
        edit: 0,
        old_start: 1,
        old_count: lines?.length ?? lineCount,
        new_count: 0,
        old_lines: lines ?? [],
        new_lines: [],
        start_byte: 0,
        end_byte: size,
        ...(lines === null ? { truncated: true } : {}),
      },
    ],
    null,
  );
}

/** The delete of the file at `absPath` (as it is now) as a change. */
export async function deleteChangesFor(blobsDir: string, absPath: string): Promise<ProposalChanges> {
  try {
    const facts = await factsOf(absPath, { hash: false });
    const index = await openIndex(absPath);
    const small = index.size <= DELETE_LINES_MAX_BYTES && !facts.verdict.isBinary;
    const text = small ? codecFor(facts.encoding).decode(readBytes(absPath, index.bomLength, index.size), 0, 'replace').text : null;
    return deleteChangesOf(blobsDir, text, index.size, facts.verdict.isBinary ? 0 : index.lineCount);
  } catch {
    return deleteChangesOf(blobsDir, null, 0, 0);
  }
}

/** A move that keeps the bytes: no line changes. */
export function moveChangesOf(blobsDir: string): ProposalChanges {
  return changesOf(blobsDir, [], null);
}

/** The hunks' [old_lines, new_lines], in the hunks' order. */
export function linesOfChanges(blobsDir: string, c: ProposalChanges): [string[], string[]][] {
  return JSON.parse(loadBytes(blobsDir, c.lines).toString('utf8')) as [string[], string[]][];
}

export type ChangeKind = 'edit' | 'create' | 'delete' | 'move';
export type ChangeHow = 'lines' | 'bytes' | 'quote' | 'whole' | 'append' | 'file';

export function changeKindOf(p: Pick<Proposal, 'file_op' | 'preconditions'>): ChangeKind {
  if (p.file_op) return p.file_op;
  return p.preconditions.ifNoneMatch === '*' ? 'create' : 'edit';
}

export function changeHowOf(p: Pick<Proposal, 'file_op' | 'quoted' | 'edits' | 'target'>): ChangeHow {
  if (p.file_op) return 'file';
  if (p.quoted) return 'quote';
  const targets = p.edits ? p.edits.map((e) => e.target) : [p.target];
  if (targets.every((t) => t.kind === 'whole')) return 'whole';
  if (targets.every((t) => t.kind === 'append')) return 'append';
  return targets.some((t) => t.kind !== 'whole' && t.units === 'bytes') ? 'bytes' : 'lines';
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** "12–14" (or "40"; an insert: the line it goes before) of a hunk where it is now. */
function placeOf(h: Pick<ChangeHunkState, 'start_line' | 'old_count'>): string {
  const last = h.start_line + Math.max(h.old_count, 1) - 1;
  return last === h.start_line ? `${h.start_line}` : `${h.start_line}–${last}`;
}

/** At most this many places in a label; the rest is "…". */
const LABEL_PLACES = 6;

/**
 * The change in words: "quote edit, 3 hunks, lines 12–14, 40, 88–90", "create, 20
 * lines", "move src/a.ts → src/b.ts", "delete, 31 lines", "edit, 1 hunk, line 7".
 */
export function changeLabelOf(
  p: Pick<Proposal, 'file_op' | 'quoted' | 'edits' | 'target' | 'preconditions' | 'path' | 'to' | 'group'>,
  hunks: Pick<ChangeHunkState, 'start_line' | 'old_count' | 'new_count'>[],
): string {
  const kind = changeKindOf(p);
  const group = p.group ? `, file ${p.group.index + 1} of ${p.group.of}` : '';
  if (kind === 'move') return `move ${p.path} → ${p.to ?? '?'}${hunks.length ? `, ${plural(hunks.length, 'hunk')}` : ''}${group}`;
  if (kind === 'delete') return `delete, ${plural(hunks[0]?.old_count ?? 0, 'line')}${group}`;
  if (kind === 'create')
    return `create, ${plural(
      hunks.reduce((n, h) => n + h.new_count, 0),
      'line',
    )}${group}`;
  const how = changeHowOf(p);
  const name = how === 'quote' ? 'quote edit' : how === 'whole' ? 'whole-file edit' : how === 'append' ? 'append' : 'edit';
  if (hunks.length === 0) return `${name}, no change${group}`;
  const places = hunks.slice(0, LABEL_PLACES).map(placeOf);
  const more = hunks.length > LABEL_PLACES ? ', …' : '';
  const one = hunks.length === 1 && hunks[0]!.old_count <= 1;
  return `${name}, ${plural(hunks.length, 'hunk')}, ${one ? 'line' : 'lines'} ${places.join(', ')}${more}${group}`;
}

/** Hunks of a unified diff (a proposal stored before the change model: its preview), without context. */
function hunksOfPreview(preview: string): LineChange[] {
  const out: LineChange[] = [];
  let edit = -1;
  let oldLine = 0;
  let cur: LineChange | null = null;
  const close = () => {
    if (cur) out.push(cur);
    cur = null;
  };
  for (const line of preview.split('\n')) {
    const header = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/.exec(line);
    if (line.startsWith('--- ')) {
      close();
      edit++;
      continue;
    }
    if (header) {
      close();
      oldLine = Number(header[1]) + (header[2] === '0' ? 1 : 0);
      continue;
    }
    const mark = line[0];
    if (mark !== '-' && mark !== '+') {
      close();
      if (mark === ' ') oldLine++;
      continue;
    }
    cur ??= { edit: Math.max(edit, 0), old_start: oldLine, old_count: 0, new_count: 0, old_lines: [], new_lines: [], start_byte: 0, end_byte: 0 };
    if (mark === '-') {
      cur.old_lines.push(line.slice(1));
      cur.old_count++;
      oldLine++;
    } else {
      cur.new_lines.push(line.slice(1));
      cur.new_count++;
    }
  }
  close();
  return out;
}

/** The decision on edit i (0-based) of `p`: its own with several edits, else the proposal's (a conflict is still to decide). */
function hunkStatusOf(p: Proposal): (edit: number) => 'pending' | 'applied' | 'rejected' {
  const several = hunkCountOf(p) > 0;
  const whole = p.status === 'applied' ? 'applied' : p.status === 'rejected' ? 'rejected' : 'pending';
  return (edit) => (several ? (p.hunks?.[edit] ?? whole) : whole);
}

/** The change model's view of `p` (the api's ProposalChange). */
export function changeViewOf(blobsDir: string, p: Proposal) {
  const legacy = p.changes ? null : hunksOfPreview(p.preview);
  const state = p.changes?.hunks ?? legacy!.map((h) => ({ ...h, start_line: h.old_start }));
  const lines = p.changes ? linesOfChanges(blobsDir, p.changes) : legacy!.map((h) => [h.old_lines, h.new_lines] as [string[], string[]]);
  const statusOf = hunkStatusOf(p);
  const hunks = state.map((h, k) => ({
    index: h.edit + 1,
    status: statusOf(h.edit),
    start_line: h.start_line,
    old_start: h.old_start,
    old_count: h.old_count,
    new_count: h.new_count,
    old_lines: lines[k]?.[0] ?? [],
    new_lines: lines[k]?.[1] ?? [],
    ...(h.truncated ? { truncated: true } : {}),
  }));
  return {
    kind: changeKindOf(p),
    how: changeHowOf(p),
    label: changeLabelOf(p, state),
    per_hunk: hunkCountOf(p) > 0 && !p.group,
    hunks,
  };
}

/** The change without its lines (proposal_status: the agent has its text; the lines could hold what redaction hides). */
export function changeSummaryOf(p: Proposal) {
  const statusOf = hunkStatusOf(p);
  const state = p.changes?.hunks ?? [];
  return {
    kind: changeKindOf(p),
    label: changeLabelOf(p, state),
    hunks: state.map((h) => ({
      index: h.edit + 1,
      status: statusOf(h.edit),
      start_line: h.start_line,
      old_count: h.old_count,
      new_count: h.new_count,
    })),
  };
}
