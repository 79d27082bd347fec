/**
 * The order F7 walks: every pending change of the open file, top to bottom (a
 * proposal with several edits counts each pending one), wrapping at the ends.
 */
import type { ReviewProposal } from '../../src-main/api/schemas.ts';
import { lineEditsOf, regionOf } from './proposal-edits.ts';

export interface ChangeStop {
  proposalId: string;
  /** 1-based hunk of a proposal with several edits, else null */
  hunk: number | null;
  startLine: number;
  /** the proposal's file (session-wide stops: F7 across files) */
  path?: string;
}

/** The pending changes of `proposals` (of one file), in file order; proposals not addressed by lines go last, oldest first. */
export function changeStopsOf(proposals: ReviewProposal[]): ChangeStop[] {
  const stops: ChangeStop[] = [];
  const unplaced: ChangeStop[] = [];
  for (const p of proposals) {
    const edits = lineEditsOf(p);
    if (!edits) {
      unplaced.push({ proposalId: p.id, hunk: null, startLine: Number.MAX_SAFE_INTEGER });
      continue;
    }
    // One stop per decision: hunks sharing one (replace_all, or a proposal decided whole) stop at the first.
    for (const e of edits)
      if (e.decision === 'pending' && !stops.some((s) => s.proposalId === p.id && s.hunk === e.hunk))
        stops.push({ proposalId: p.id, hunk: e.hunk, startLine: e.startLine });
  }
  stops.sort((a, b) => a.startLine - b.startLine || a.proposalId.localeCompare(b.proposalId) || (a.hunk ?? 0) - (b.hunk ?? 0));
  return [...stops, ...unplaced];
}

/** Stable file order, the same in every locale: code units of the path. */
const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** One proposal's pending hunks as stops, from its change model (the line each is at now); a change without line hunks stops at line 1. */
function proposalStopsOf(p: ReviewProposal): ChangeStop[] {
  const change = p.change as ReviewProposal['change'] | undefined;
  if (!change) {
    // A server older than the change model: its line targets, as the open file's order has them.
    return changeStopsOf([p]).map((s) => ({ ...s, path: p.path, startLine: s.startLine === Number.MAX_SAFE_INTEGER ? 1 : s.startLine }));
  }
  const pending = change.hunks.filter((h) => h.status === 'pending');
  if (pending.length === 0) return [{ proposalId: p.id, hunk: null, startLine: 1, path: p.path }];
  // Decided whole: one stop at its first hunk; decided by hunks: one stop per hunk (replace_all's share their index).
  if (!change.per_hunk) return [{ proposalId: p.id, hunk: null, startLine: Math.max(1, Math.min(...pending.map((h) => h.start_line))), path: p.path }];
  return pending.map((h) => ({ proposalId: p.id, hunk: h.index, startLine: Math.max(1, h.start_line), path: p.path }));
}

/**
 * Every pending hunk of the session (all pending proposals of the workspace), in
 * the order F7 walks them: file path order, then line, then proposal and hunk.
 */
export function sessionStopsOf(queue: ReviewProposal[]): ChangeStop[] {
  const stops = queue.filter((p) => p.status === 'pending').flatMap(proposalStopsOf);
  return stops.sort(compareStops);
}

function compareStops(a: ChangeStop, b: ChangeStop): number {
  return byPath(a.path ?? '', b.path ?? '') || a.startLine - b.startLine || byPath(a.proposalId, b.proposalId) || (a.hunk ?? 0) - (b.hunk ?? 0);
}

/**
 * The session stop after (or before) `at`, wrapping at the ends. `at` may have
 * gone (just decided): then the first stop after its place (file, line) going
 * forward, the last before it going back. Null when nothing is pending.
 */
export function stepSessionChange(stops: ChangeStop[], at: ChangeStop | null, direction: 1 | -1): ChangeStop | null {
  if (stops.length === 0) return null;
  if (!at) return direction === 1 ? stops[0]! : stops[stops.length - 1]!;
  const same = (s: ChangeStop) => s.proposalId === at.proposalId && s.hunk === at.hunk;
  // replace_all: several stops share one hunk index; the line tells them apart.
  let i = stops.findIndex((s) => same(s) && s.startLine === at.startLine);
  // Its line moved (an edit above it was applied), or `at` came from the file's own order: the one stop of that hunk.
  if (i < 0 && stops.filter(same).length === 1) i = stops.findIndex(same);
  if (i >= 0) return stops[(i + direction + stops.length) % stops.length]!;
  const place = { ...at, path: at.path ?? '' };
  if (direction === 1) return stops.find((s) => compareStops(s, place) > 0) ?? stops[0]!;
  return [...stops].reverse().find((s) => compareStops(s, place) < 0) ?? stops[stops.length - 1]!;
}

/** Where `stop` is in `stops` (1-based) and how many there are: "hunk 3 of 9". */
export function stopPositionOf(stops: ChangeStop[], stop: ChangeStop | null): { index: number; total: number } | null {
  if (!stop) return null;
  const i = stops.findIndex((s) => s.proposalId === stop.proposalId && s.hunk === stop.hunk && (stop.path === undefined || s.startLine === stop.startLine));
  return i < 0 ? null : { index: i + 1, total: stops.length };
}

/**
 * The stop after (or before) `at` in `stops`, wrapping. `at` may have gone (just
 * decided): then the first stop after its line, going forward. Null when no stops.
 */
export function stepChange(
  stops: ChangeStop[],
  at: { proposalId: string; hunk: number | null; startLine: number } | null,
  direction: 1 | -1,
): ChangeStop | null {
  if (stops.length === 0) return null;
  if (!at) return direction === 1 ? stops[0]! : stops[stops.length - 1]!;
  const i = stops.findIndex((s) => s.proposalId === at.proposalId && s.hunk === at.hunk);
  if (i >= 0) return stops[(i + direction + stops.length) % stops.length]!;
  if (direction === 1) return stops.find((s) => s.startLine >= at.startLine) ?? stops[0]!;
  return [...stops].reverse().find((s) => s.startLine < at.startLine) ?? stops[stops.length - 1]!;
}

/**
 * Whether the viewer's path (as opened: absolute, or relative to the workspace)
 * names the proposal's file (relative to the workspace root when inside it).
 */
export function isSameFile(viewerPath: string | null, proposalPath: string): boolean {
  if (!viewerPath) return false;
  const norm = (p: string) => p.replace(/\\/g, '/').replace(/^\.\//, '');
  const v = norm(viewerPath);
  const p = norm(proposalPath);
  return v === p || (!p.startsWith('/') && v.endsWith(`/${p}`));
}

export interface RegionMark {
  proposalId: string;
  startLine: number;
  endLine: number;
  selected: boolean;
  conflict: boolean;
}

/** The pending proposals of the open file as marks on the whole-file scrollbar. */
export function regionMarksOf(queue: ReviewProposal[], viewerPath: string | null, selectedId: string | null): RegionMark[] {
  const marks: RegionMark[] = [];
  for (const p of queue) {
    if (!isSameFile(viewerPath, p.path)) continue;
    const region = regionOf(p);
    if (region) marks.push({ proposalId: p.id, ...region, selected: p.id === selectedId, conflict: p.status === 'conflict' });
  }
  return marks;
}

/** A mark's place on a track of `trackPx` for a file of `totalLines`: top and height in pixels (at least `minPx` tall). */
export function markBoxOf(mark: { startLine: number; endLine: number }, totalLines: number, trackPx: number, minPx = 3): { top: number; height: number } {
  const total = Math.max(1, totalLines);
  const top = ((mark.startLine - 1) / total) * trackPx;
  const height = Math.max(minPx, ((mark.endLine - mark.startLine + 1) / total) * trackPx);
  return { top: Math.min(top, Math.max(0, trackPx - height)), height };
}
