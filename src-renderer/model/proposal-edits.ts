/**
 * Where a proposal's edits are in the file as it is now, and what each one turns
 * its lines into: the inline diff of the main editor. The proposal view carries
 * each edit's target as rebased through the edits applied since (line numbers of
 * the current file), the first edit's content (review_show) and the preview (one
 * unified diff per edit, in file order, numbered as in the version the agent
 * read). The new text of the other edits comes from the preview, aligned on the
 * target's current lines (which a pending proposal's own lines still are).
 * Format: GNU diffutils "Detailed Description of Unified Format".
 */
import type { ReviewProposal, UpsertTarget } from '../../src-main/api/schemas.ts';

export type HunkDecision = 'pending' | 'applied' | 'rejected';

/** One edit of a proposal at its current place: lines startLine..endLine (inclusive) of the file now; an insert goes before startLine (endLine = startLine - 1). */
export interface LineEdit {
  /** 1-based hunk number of a proposal with several edits; null for a single edit */
  hunk: number | null;
  kind: 'insert' | 'replace' | 'delete';
  startLine: number;
  endLine: number;
  decision: HunkDecision;
}

/** An edit's change as the inline diff draws it: `removed` (file lines from startLine on) become `added`. */
export interface InlineChange {
  proposalId: string;
  hunk: number | null;
  /** first removed file line, or the line the added ones go before */
  startLine: number;
  removed: { lineNo: number; text: string }[];
  added: string[];
}

/** The line-unit targets of a proposal, in its own order; null when an edit is not addressed by lines (bytes, append, whole file, quotes). */
export function lineEditsOf(p: Pick<ReviewProposal, 'target' | 'targets' | 'quoted' | 'hunks' | 'file_op'>): LineEdit[] | null {
  if (p.quoted || p.file_op) return null;
  const targets = p.targets ?? [p.target];
  const several = targets.length > 1;
  const out: LineEdit[] = [];
  for (const [i, t] of targets.entries()) {
    const edit = lineEditOf(t);
    if (!edit) return null;
    out.push({ ...edit, hunk: several ? i + 1 : null, decision: several ? (p.hunks?.find((h) => h.index === i + 1)?.status ?? 'pending') : 'pending' });
  }
  return out;
}

function lineEditOf(t: UpsertTarget): Pick<LineEdit, 'kind' | 'startLine' | 'endLine'> | null {
  if ('insert' in t) return (t.insert.units ?? 'lines') === 'lines' ? { kind: 'insert', startLine: t.insert.at, endLine: t.insert.at - 1 } : null;
  if ('replace' in t) return (t.replace.units ?? 'lines') === 'lines' ? { kind: 'replace', startLine: t.replace.start, endLine: t.replace.end } : null;
  if ('delete' in t) return (t.delete.units ?? 'lines') === 'lines' ? { kind: 'delete', startLine: t.delete.start, endLine: t.delete.end } : null;
  return null;
}

/** The file lines a proposal touches now, first to last (for jumps, gutter and scrollbar marks); null when not known by lines. */
export function regionOf(p: Pick<ReviewProposal, 'target' | 'targets' | 'quoted' | 'hunks' | 'file_op'>): { startLine: number; endLine: number } | null {
  const edits = lineEditsOf(p)?.filter((e) => e.decision === 'pending');
  if (!edits || edits.length === 0) return null;
  return { startLine: Math.min(...edits.map((e) => e.startLine)), endLine: Math.max(...edits.map((e) => Math.max(e.startLine, e.endLine))) };
}

/** Text as lines, without the final newline's empty last line; CRLF as LF. */
export function linesOfText(text: string): string[] {
  if (text === '') return [];
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** One line of a patch: ' ' context, '-' removed, '+' added, with its old-side line number (the line it comes before, for '+'). */
interface PatchOp {
  mark: ' ' | '-' | '+';
  text: string;
  oldLineNo: number;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,\d+)? @@/;

/** The preview as one list of ops per patch (one patch per edit, in file order). */
export function patchesOf(preview: string): PatchOp[][] {
  const patches: PatchOp[][] = [];
  let ops: PatchOp[] | null = null;
  // Between a patch's header lines ("--- a", "+++ b") and its first hunk, lines are not ops.
  let inHunk = false;
  let oldLineNo = 0;
  for (const line of preview.split('\n')) {
    const header = HUNK_HEADER.exec(line);
    if (line.startsWith('Index: ') || (!inHunk && line.startsWith('--- ') && ops?.length !== 0)) {
      ops = [];
      patches.push(ops);
      inHunk = false;
      continue;
    }
    if (header) {
      if (ops === null) patches.push((ops = []));
      // "-0,0": an empty old side (a new file): the added lines go before line 1.
      oldLineNo = Math.max(1, Number(header[1]) + (header[2] === '0' ? 1 : 0));
      inHunk = true;
      continue;
    }
    if (!ops || !inHunk) continue;
    const mark = line[0];
    if (mark === ' ' || mark === '-') ops.push({ mark, text: line.slice(1), oldLineNo: oldLineNo++ });
    else if (mark === '+') ops.push({ mark, text: line.slice(1), oldLineNo });
  }
  return patches.filter((p) => p.length > 0);
}

/**
 * The new lines of a replace whose current lines are `current`, from its patch:
 * the patch's changes lie inside the target, so aligning the patch's old side on
 * `current` finds where the target started in the version read; the new text is
 * `current` with the patch's ops applied there. Null when no alignment fits.
 */
export function replacedTextOf(ops: PatchOp[], current: string[]): string[] | null {
  const m = current.length;
  const minus = ops.filter((o) => o.mark === '-').map((o) => o.oldLineNo);
  const plus = ops.filter((o) => o.mark === '+').map((o) => o.oldLineNo);
  const changed = [...minus, ...plus];
  if (changed.length === 0) return current.slice();
  const lo = Math.min(...changed);
  const hi = Math.max(...minus, ...plus.map((n) => n - 1));
  for (let start = Math.max(1, hi - m + 1); start <= lo; start++) {
    const fits = ops.every((o) => o.mark === '+' || o.oldLineNo < start || o.oldLineNo >= start + m || current[o.oldLineNo - start] === o.text);
    if (!fits) continue;
    const out: string[] = [];
    let k = 0;
    for (let j = 0; j <= m; j++) {
      const lineNo = start + j;
      while (k < ops.length && ops[k]!.oldLineNo < lineNo) k++;
      // Added lines that go before this old line, then the old line itself unless removed.
      let removed = false;
      while (k < ops.length && ops[k]!.oldLineNo === lineNo) {
        const o = ops[k]!;
        if (o.mark === '+') out.push(o.text);
        else if (o.mark === '-') removed = true;
        k++;
        if (o.mark !== '+') break;
      }
      if (j < m && !removed) out.push(current[j]!);
    }
    return out;
  }
  return null;
}

/**
 * Each edit's new lines (in the proposal's order; null where unknown). `current[i]`
 * holds the current lines of edit i (none for an insert); `content` is the first
 * edit's text when review_show brought it.
 */
export function newLinesOf(edits: LineEdit[], preview: string, current: string[][], content?: string): (string[] | null)[] {
  const patches = patchesOf(preview);
  // Patches follow file order; edits follow the agent's.
  const fileOrder = edits.map((_, i) => i).sort((a, b) => edits[a]!.startLine - edits[b]!.startLine || a - b);
  return edits.map((e, i) => {
    if (e.kind === 'delete') return [];
    if (i === 0 && content !== undefined) return linesOfText(content);
    const ops = patches.length === edits.length ? patches[fileOrder.indexOf(i)] : undefined;
    if (!ops) return null;
    if (e.kind === 'insert') return ops.filter((o) => o.mark === '+').map((o) => o.text);
    return replacedTextOf(ops, current[i] ?? []);
  });
}

/**
 * The inline change of one edit: its current lines against its new ones, with the
 * lines both share at the start and at the end left out (they do not change).
 */
export function inlineChangeOf(proposalId: string, edit: LineEdit, current: string[], next: string[]): InlineChange {
  let head = 0;
  while (head < current.length && head < next.length && current[head] === next[head]) head++;
  let tail = 0;
  while (tail < current.length - head && tail < next.length - head && current[current.length - 1 - tail] === next[next.length - 1 - tail]) tail++;
  const removed = current.slice(head, current.length - tail).map((text, k) => ({ lineNo: edit.startLine + head + k, text }));
  return { proposalId, hunk: edit.hunk, startLine: edit.startLine + head, removed, added: next.slice(head, next.length - tail) };
}

/** Every pending edit of the proposal as an inline change, given each edit's current lines. */
export function inlineChangesOf(p: ReviewProposal, current: string[][]): InlineChange[] {
  const edits = lineEditsOf(p);
  if (!edits) return [];
  const next = newLinesOf(edits, p.preview, current, p.content);
  const out: InlineChange[] = [];
  for (const [i, e] of edits.entries()) {
    const lines = next[i];
    if (e.decision !== 'pending' || !lines) continue;
    out.push(inlineChangeOf(p.id, e, e.kind === 'insert' ? [] : (current[i] ?? []), lines));
  }
  return out.sort((a, b) => a.startLine - b.startLine);
}

/** The line ranges (start..end, inclusive) to read for each edit's current lines; null for an insert. */
export function rangesToReadOf(edits: LineEdit[]): ({ start: number; end: number } | null)[] {
  return edits.map((e) => (e.kind === 'insert' || e.endLine < e.startLine ? null : { start: e.startLine, end: e.endLine }));
}
