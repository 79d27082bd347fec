/**
 * Review in the editor: what the keys, the inline buttons and the queue do across
 * the review and viewer stores. Selecting a change selects its proposal, opens
 * its file if another one is shown and brings its lines to the middle of the
 * view; accepting or rejecting one moves on to the next change below it.
 */
import type { ReviewProposal } from '../../src-main/api/schemas.ts';
import { changeStopsOf, isSameFile, sessionStopsOf, stepSessionChange, type ChangeStop } from '../model/change-order.ts';
import { linesLabelOf, regionNowOf } from '../model/conflict-text.ts';
import { hunkRegionOf, MARK_NOW, MARK_PROPOSED, mergedTextOf, sidesOfHunks } from '../model/merge-region.ts';
import { linesOfText, regionOf } from '../model/proposal-edits.ts';
import { approveQuestionOf } from '../model/replaced-lines.ts';
import { call } from '../transport.ts';
import { useReviewStore, type ApproveHow } from './review-store.ts';
import { useViewerStore } from './viewer-store.ts';

/** The first change of a proposal (its first pending edit in the file). */
export function firstStopOf(p: ReviewProposal): ChangeStop {
  return changeStopsOf([p])[0] ?? { proposalId: p.id, hunk: null, startLine: regionOf(p)?.startLine ?? 1 };
}

/** Select the change's proposal and show its lines in the main editor. */
export async function showChange(stop: ChangeStop): Promise<void> {
  const review = useReviewStore.getState();
  const p = review.queue.find((x) => x.id === stop.proposalId);
  review.setFocus(stop);
  const selecting = review.selectedId === stop.proposalId ? null : review.select(stop.proposalId);
  if (p) {
    const viewer = useViewerStore.getState();
    if (!isSameFile(viewer.path, p.path)) {
      // The viewer hides while the next file loads, which drops the focus: the file view gets it back once shown.
      const hadFocus = fileViewHasFocus();
      await viewer.openFile(p.path);
      if (hadFocus) focusFileView();
    }
    if (stop.startLine !== Number.MAX_SAFE_INTEGER) await useViewerStore.getState().goToLine(stop.startLine, { at: 'center', select: false });
  }
  await selecting;
}

const FILE_VIEW = '[data-testid="file-view"]';
const fileViewHasFocus = () => typeof document !== 'undefined' && document.activeElement?.closest(FILE_VIEW) != null;

/** Focus the file view's editor (F7 moved to another file with the focus there: the keys keep working in it). */
function focusFileView(): void {
  document.querySelector<HTMLElement>(`${FILE_VIEW} textarea`)?.focus();
}

/** Select a proposal from the queue: its first change. */
export function showProposal(id: string): Promise<void> {
  const p = useReviewStore.getState().queue.find((x) => x.id === id);
  return p ? showChange(firstStopOf(p)) : useReviewStore.getState().select(id);
}

/** Every pending hunk of the session, in F7's order (file path, then line). */
export function sessionStops(): ChangeStop[] {
  return sessionStopsOf(useReviewStore.getState().queue);
}

/**
 * Where F7 starts when no change has the focus yet: the open file's place, so the
 * first F7 goes to the open file's first pending hunk (or the next file's).
 */
function startOf(direction: 1 | -1): ChangeStop | null {
  const { focus, queue } = useReviewStore.getState();
  const path = useViewerStore.getState().path;
  if (focus) {
    if (focus.path !== undefined) return focus;
    // Focused from the file's own order (the hunk list): its file, to step on from even once it is decided.
    const of = queue.find((p) => p.id === focus.proposalId)?.path ?? sessionStops().find((s) => isSameFile(path, s.path ?? ''))?.path;
    return of === undefined ? focus : { ...focus, path: of };
  }
  const here = sessionStops().find((s) => isSameFile(path, s.path ?? ''));
  if (!here) return null;
  // Just before (or after) the file's first line: the step lands on its first (or the previous file's last) hunk.
  return { proposalId: '', hunk: null, startLine: direction === 1 ? 0 : 1, path: here.path! };
}

/** F7 / Shift+F7: the next or previous pending hunk of the session, across files (opening the next file), wrapping. */
export async function stepReview(direction: 1 | -1): Promise<void> {
  const next = stepSessionChange(sessionStops(), startOf(direction), direction);
  if (next) await showChange(next);
}

/** Open `path` at its first pending hunk (the changed-files list). */
export async function showFile(path: string): Promise<void> {
  const first = sessionStops().find((s) => s.path === path);
  if (first) await showChange(first);
  else await useViewerStore.getState().openFile(path);
}

/** The change the keys act on: the focused one, else the selected proposal's first. */
function focusedStop(): ChangeStop | null {
  const { focus, selected, queue } = useReviewStore.getState();
  if (focus && queue.some((p) => p.id === focus.proposalId)) return focus;
  return selected ? firstStopOf(selected) : null;
}

/** After a decision: on to the next pending hunk of the session after it (the next file's first when it was the file's last). */
async function moveOnFrom(stop: ChangeStop): Promise<void> {
  const next = stepSessionChange(sessionStops(), stop, 1);
  if (next) await showChange(next);
}

/** The stop with its file named (taken before a decision: the proposal may leave the queue with it). */
function placed(stop: ChangeStop): ChangeStop {
  if (stop.path !== undefined) return stop;
  const p = useReviewStore.getState().queue.find((x) => x.id === stop.proposalId);
  return p ? { ...stop, path: p.path } : stop;
}

/**
 * Approve, asking first when the edit is big (the answer comes through
 * `confirmAsked`); moves on to the next change when it worked.
 */
export async function requestApprove(id: string, how: ApproveHow = {}, stop?: ChangeStop): Promise<boolean> {
  const review = useReviewStore.getState();
  const p = review.selected?.id === id ? review.selected : review.queue.find((x) => x.id === id);
  const question = p && !how.hunks && how.current === undefined ? approveQuestionOf(p) : null;
  if (question) {
    review.setAsking({ id, how, question });
    return false;
  }
  return approveAndMoveOn(id, how, stop);
}

async function approveAndMoveOn(id: string, how: ApproveHow, stop?: ChangeStop): Promise<boolean> {
  const at = placed(stop ?? focusedStop() ?? { proposalId: id, hunk: null, startLine: 1 });
  const ok = await useReviewStore.getState().approve(id, how);
  if (ok) await moveOnFrom(at);
  return ok;
}

/** The answer to the big-edit question. */
export async function confirmAsked(approve: boolean): Promise<void> {
  const review = useReviewStore.getState();
  const asking = review.asking;
  review.setAsking(null);
  if (approve && asking) await approveAndMoveOn(asking.id, asking.how);
}

/** Reject (with the typed reason); hunks: only those edits. */
export async function requestReject(id: string, hunks?: number[], stop?: ChangeStop): Promise<boolean> {
  const review = useReviewStore.getState();
  const at = placed(stop ?? focusedStop() ?? { proposalId: id, hunk: null, startLine: 1 });
  const ok = await review.reject(id, review.reason, hunks);
  if (ok) await moveOnFrom(at);
  return ok;
}

/** The accept or reject key: the focused change (its hunk alone in a proposal with several). */
export async function decideFocused(action: 'accept' | 'reject'): Promise<void> {
  const stop = focusedStop();
  const review = useReviewStore.getState();
  if (!stop || review.busy) return;
  const p = review.queue.find((x) => x.id === stop.proposalId);
  if (!p) return;
  const hunks = stop.hunk === null ? undefined : [stop.hunk];
  if (action === 'accept') {
    if (p.status === 'conflict') return;
    await requestApprove(p.id, hunks ? { hunks } : {}, stop);
  } else await requestReject(p.id, hunks, stop);
}

/** What the 3-way view (and edit-then-approve) shows of a proposal, whatever its kind. */
export interface ThreeWay {
  /** what the agent read: its hunks' old lines, numbered as then */
  saw: { text: string; lineNos: number[] };
  /** what the agent proposed: its hunks' new lines */
  proposed: { text: string; lineNos: number[] };
  /** the file now around the proposal's lines: from line `startLine` (etag: the version the person merges against) */
  now: { startLine: number; text: string; etag: string };
  /** the lines of the file now the text replaces (end = start - 1: an insert before start) */
  region: { startLine: number; endLine: number };
  /** the text to start from: the region now with the hunks put in (conflict blocks where their lines changed) */
  content: string;
  /** hunks whose lines changed since the agent read them (each a conflict block in `content`) */
  conflicts: number;
  /** a delete or a move: resolved as it is (no text), against the file now */
  fileOp: boolean;
}

const CONTEXT_LINES = 3;

/** The three sides of a proposal of any kind, with the file as it is now. */
export async function loadThreeWay(p: ReviewProposal): Promise<ThreeWay> {
  const { history } = useReviewStore.getState();
  const changedBy = typeof p.conflict?.changed_by === 'string' ? (history.find((e) => e.id === p.conflict!.changed_by) ?? null) : null;
  const fileOp = p.change.kind === 'move' || p.change.kind === 'delete';
  const sides = sidesOfHunks(p.change.hunks);
  const info = await call('file_info', { path: p.path });
  let hunks = p.change.hunks;
  let region: { startLine: number; endLine: number };
  let grown = 0;
  if (p.change.kind === 'create' || fileOp) {
    // A create meets a file that is there now, a delete or move the file as it is: the whole of it.
    region = { startLine: 1, endLine: info.lines };
    if (p.change.kind === 'create') hunks = hunks.map((h) => ({ ...h, start_line: 1, old_count: info.lines, old_lines: [] }));
  } else {
    const before = hunkRegionOf(p.change) ?? { startLine: 1, endLine: 0 };
    region = regionNowOf(before, changedBy);
    grown = region.endLine - region.startLine - (before.endLine - before.startLine);
  }
  const start = Math.max(1, region.startLine - CONTEXT_LINES);
  const end = Math.min(Math.max(1, info.lines), Math.max(start, region.endLine + CONTEXT_LINES));
  const answer = info.lines === 0 ? null : await call('read', { path: p.path, ranges: [{ start, end }] });
  const nowLines = answer ? linesOfText(answer.content) : [];
  const nowStart = answer?.start_line ?? start;
  const current = nowLines.slice(region.startLine - nowStart, Math.max(region.startLine, region.endLine + 1) - nowStart);
  const merged = fileOp ? { lines: current, conflicts: 0 } : mergedTextOf(hunks, current, region.startLine, grown);
  return {
    ...sides,
    now: { startLine: nowStart, text: nowLines.join('\n'), etag: answer?.version.etag ?? info.version.etag },
    region,
    content: merged.lines.length === 0 ? '' : `${merged.lines.join('\n')}\n`,
    conflicts: merged.conflicts,
    fileOp,
  };
}

/**
 * Approve the person's resolution: their text replaces lines `range` of the
 * version the view showed (`etag`), and the proposal ends applied with that text
 * (the agent sees "applied"). A delete or move is approved as it is against that
 * version (no text). A file that moved on since is a conflict again; the text is
 * kept with the proposal.
 */
export function resolveThreeWay(
  p: ReviewProposal,
  text: string,
  range: { startLine: number; endLine: number },
  etag: string,
  fileOp = false,
): Promise<boolean> {
  const content = text === '' || text.endsWith('\n') ? text : `${text}\n`;
  return useReviewStore.getState().perform(async () => {
    if (fileOp) {
      const { entry } = await call('review_approve', { id: p.id, if_match: etag });
      return `Approved ${p.change.label} on the current file: ${entry.path} changed`;
    }
    const lines = { start: range.startLine, end: Math.max(range.startLine - 1, range.endLine) };
    const { entry } = await call('review_approve', { id: p.id, content, if_match: etag, lines });
    const what = p.status === 'pending' ? 'Approved with your edit' : 'Approved your resolution';
    return `${what}: ${entry.path} ${linesLabelOf(range.startLine, Math.max(range.startLine, range.endLine))} changed`;
  });
}

/** Conflict markers left in a resolved text (the person has not chosen yet). */
export function markersLeftIn(text: string): boolean {
  return text.split('\n').some((line) => line === MARK_NOW || line === MARK_PROPOSED);
}
