/**
 * What a proposal does to its file, as the app draws and decides it: every kind
 * (line or byte targets, quotes, several edits, a group member, create, delete,
 * move) arrives as the server's change model (`change`: line hunks of the file
 * now, each with its old and new lines). Nothing here looks at the agent's
 * targets or parses the preview: one model, no kind special-cased.
 */
import type { ChangeHunk, ProposalChange, ReviewProposal } from '../../src-main/api/schemas.ts';

export type HunkDecision = 'pending' | 'applied' | 'rejected';

type WithChange = Pick<ReviewProposal, 'change'>;

/** One hunk at its current place: lines startLine..endLine (inclusive) of the file now; an insert goes before startLine (endLine = startLine - 1). */
export interface LineEdit {
  /** the decision unit (1-based) when hunks are decided one by one; null when the proposal is decided whole */
  hunk: number | null;
  kind: 'insert' | 'replace' | 'delete';
  startLine: number;
  endLine: number;
  decision: HunkDecision;
}

/** A hunk's change as the inline diff draws it: `removed` (file lines from startLine on) become `added`. */
export interface InlineChange {
  proposalId: string;
  hunk: number | null;
  /** first removed file line, or the line the added ones go before */
  startLine: number;
  removed: { lineNo: number; text: string }[];
  added: string[];
  /** the hunk was too big to carry its lines: how many there are */
  truncated?: { oldCount: number; newCount: number };
}

/** The hunk's decision unit as the approve/reject calls take it (`hunks: [n]`), or null: the whole proposal. */
export function decisionUnitOf(change: Pick<ProposalChange, 'per_hunk'>, h: Pick<ChangeHunk, 'index'>): number | null {
  return change.per_hunk ? h.index : null;
}

function lineEditOf(change: ProposalChange, h: ChangeHunk): LineEdit {
  const kind = h.old_count === 0 ? 'insert' : h.new_count === 0 ? 'delete' : 'replace';
  return { hunk: decisionUnitOf(change, h), kind, startLine: h.start_line, endLine: h.start_line + h.old_count - 1, decision: h.status };
}

/** Every hunk of the proposal at its current place, in file order; null when it has none (a move that keeps the content). */
export function lineEditsOf(p: WithChange): LineEdit[] | null {
  const hunks = p.change?.hunks ?? [];
  if (hunks.length === 0) return null;
  return hunks.map((h) => lineEditOf(p.change, h));
}

/** The file lines a proposal touches now, first to last (jumps, gutter and scrollbar marks): its pending hunks, else all; null without hunks. */
export function regionOf(p: WithChange): { startLine: number; endLine: number } | null {
  const all = lineEditsOf(p);
  if (!all) return null;
  const pending = all.filter((e) => e.decision === 'pending');
  const edits = pending.length > 0 ? pending : all;
  return { startLine: Math.min(...edits.map((e) => e.startLine)), endLine: Math.max(...edits.map((e) => Math.max(e.startLine, e.endLine))) };
}

/** Text as lines, without the final newline's empty last line; CRLF as LF. */
export function linesOfText(text: string): string[] {
  if (text === '') return [];
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * The inline change of one hunk: its old lines at `start_line` against its new
 * ones, with the lines both share at the start and at the end left out (they do
 * not change; a whole-file edit's hunk may carry them).
 */
export function inlineChangeOf(proposalId: string, change: ProposalChange, h: ChangeHunk): InlineChange {
  const hunk = decisionUnitOf(change, h);
  if (h.truncated) {
    return { proposalId, hunk, startLine: h.start_line, removed: [], added: [], truncated: { oldCount: h.old_count, newCount: h.new_count } };
  }
  const current = h.old_lines;
  const next = h.new_lines;
  let head = 0;
  while (head < current.length && head < next.length && current[head] === next[head]) head++;
  let tail = 0;
  while (tail < current.length - head && tail < next.length - head && current[current.length - 1 - tail] === next[next.length - 1 - tail]) tail++;
  const removed = current.slice(head, current.length - tail).map((text, k) => ({ lineNo: h.start_line + head + k, text }));
  return { proposalId, hunk, startLine: h.start_line + head, removed, added: next.slice(head, next.length - tail) };
}

/** Every pending hunk of the proposal as an inline change, in file order. */
export function inlineChangesOf(p: Pick<ReviewProposal, 'id' | 'change'>): InlineChange[] {
  const out: InlineChange[] = [];
  for (const h of p.change?.hunks ?? []) if (h.status === 'pending') out.push(inlineChangeOf(p.id, p.change, h));
  return out.sort((a, b) => a.startLine - b.startLine);
}

/** "lines 51–61", "line 7" */
export function linesLabelOf(startLine: number, endLine: number): string {
  return endLine > startLine ? `lines ${startLine}–${endLine}` : `line ${startLine}`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A hunk in words, for the hunk list and the inline toolbar: "lines 12–14", "insert 2 lines before line 40", "delete lines 1–3", "3 new lines". */
export function hunkLabelOf(change: Pick<ProposalChange, 'kind'>, h: Pick<ChangeHunk, 'start_line' | 'old_count' | 'new_count'>): string {
  if (h.old_count === 0) {
    if (change.kind === 'create') return `${plural(h.new_count, 'new line')}`;
    return `insert ${plural(h.new_count, 'line')} before line ${h.start_line}`;
  }
  const where = linesLabelOf(h.start_line, h.start_line + h.old_count - 1);
  return h.new_count === 0 ? `delete ${where}` : `${where} → ${plural(h.new_count, 'line')}`;
}

/** One decision of a proposal: a hunk, or (replace_all) every hunk sharing its index; the whole proposal when it is not decided per hunk. */
export interface DecisionUnit {
  /** what approve/reject take as `hunks: [n]`; null: the whole proposal */
  hunk: number | null;
  decision: HunkDecision;
  startLine: number;
  label: string;
  hunks: ChangeHunk[];
}

/** The rows of the hunk list: one per decision unit of a per-hunk proposal, else one per hunk (decided with the proposal). */
export function decisionUnitsOf(p: WithChange): DecisionUnit[] {
  const change = p.change;
  const rows: DecisionUnit[] = [];
  for (const h of change?.hunks ?? []) {
    const hunk = decisionUnitOf(change, h);
    const same = hunk === null ? undefined : rows.find((r) => r.hunk === hunk);
    if (same) {
      same.hunks.push(h);
      same.label = `${same.hunks.length} places: ${same.hunks.map((x) => hunkLabelOf(change, x)).join(', ')}`;
      continue;
    }
    rows.push({ hunk, decision: h.status, startLine: h.start_line, label: hunkLabelOf(change, h), hunks: [h] });
  }
  return rows;
}

/** The two sides of a diff for Monaco's diff view: the text before and after, and each shown line's file line number. */
export interface DiffSides {
  original: string;
  modified: string;
  /** originalLineNos[i] is the file line of shown original line i + 1 */
  originalLineNos: number[];
  modifiedLineNos: number[];
  /** true when there are no lines to show (a move alone, or hunks too big to carry): the label stands in */
  summaryOnly: boolean;
}

/** The panel's side-by-side diff of the proposal from its hunks (the pending ones, else all), numbered as in the file now and after. */
export function diffSidesOfChange(p: WithChange): DiffSides {
  const all = p.change?.hunks ?? [];
  const pending = all.filter((h) => h.status === 'pending');
  const hunks = pending.length > 0 ? pending : all;
  const original: string[] = [];
  const modified: string[] = [];
  const originalLineNos: number[] = [];
  const modifiedLineNos: number[] = [];
  let delta = 0;
  for (const h of hunks) {
    h.old_lines.forEach((line, k) => {
      original.push(line);
      originalLineNos.push(h.start_line + k);
    });
    h.new_lines.forEach((line, k) => {
      modified.push(line);
      modifiedLineNos.push(h.start_line + delta + k);
    });
    delta += h.new_count - h.old_count;
  }
  const summaryOnly = hunks.length === 0 || hunks.every((h) => h.truncated);
  if (summaryOnly) {
    const summary = p.change ? p.change.label : '';
    return { original: summary, modified: summary, originalLineNos: [], modifiedLineNos: [], summaryOnly: true };
  }
  return { original: original.join('\n'), modified: modified.join('\n'), originalLineNos, modifiedLineNos, summaryOnly: false };
}

/** Lines the proposal's pending hunks remove or replace (a truncated hunk counts by its old_count). */
export function replacedLineCountOf(p: WithChange): number {
  return (p.change?.hunks ?? []).filter((h) => h.status === 'pending').reduce((n, h) => n + h.old_count, 0);
}
