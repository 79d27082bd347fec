import { useRef, useState, type PointerEvent } from 'react';
import { markBoxOf, type RegionMark } from '../model/change-order.ts';

const MIN_THUMB_PX = 24;
/** While dragging, jump at most this often; the store drops stale answers anyway. */
const DRAG_JUMP_MS = 60;

/** Marked lines drawn at most (a tick each; past this many the track is a solid band anyway). */
const LINE_MARKS_MAX = 1_000;

/**
 * A scrollbar over the whole file, not the editor's window: the thumb shows where
 * the view is, marks show where proposals wait and which lines the user marked;
 * clicking or dragging jumps to that fraction of the file.
 */
export function FileScrollbar({
  topLine,
  visibleLines,
  totalLines,
  marks = [],
  markedLines = [],
  onJump,
}: {
  topLine: number;
  visibleLines: number;
  totalLines: number;
  /** pending proposals of the file */
  marks?: RegionMark[];
  /** lines the user marked (marks-store), ascending */
  markedLines?: readonly number[];
  onJump(lineNo: number): void;
}) {
  const trackRef = useRef<HTMLDivElement>(null);
  const lastJumpRef = useRef(0);
  const [dragFraction, setDragFraction] = useState<number | null>(null);

  const scrollableLines = Math.max(1, totalLines - visibleLines);
  const viewFraction = Math.min(1, Math.max(0, (topLine - 1) / scrollableLines));
  const fraction = dragFraction ?? viewFraction;
  const trackPx = trackRef.current?.clientHeight ?? 0;
  const thumbPx = Math.max(MIN_THUMB_PX, totalLines > 0 ? (trackPx * visibleLines) / totalLines : trackPx);

  const fractionAt = (clientY: number) => {
    const track = trackRef.current;
    if (!track) return 0;
    const box = track.getBoundingClientRect();
    const usable = Math.max(1, box.height - thumbPx);
    return Math.min(1, Math.max(0, (clientY - box.top - thumbPx / 2) / usable));
  };
  const lineAt = (f: number) => 1 + Math.round(f * scrollableLines);
  const jump = (f: number, force: boolean) => {
    const now = performance.now();
    if (!force && now - lastJumpRef.current < DRAG_JUMP_MS) return;
    lastJumpRef.current = now;
    onJump(lineAt(f));
  };

  const down = (event: PointerEvent<HTMLDivElement>) => {
    if (totalLines === 0) return;
    event.currentTarget.setPointerCapture(event.pointerId);
    const f = fractionAt(event.clientY);
    setDragFraction(f);
    jump(f, true);
  };
  const move = (event: PointerEvent<HTMLDivElement>) => {
    if (dragFraction === null) return;
    const f = fractionAt(event.clientY);
    setDragFraction(f);
    jump(f, false);
  };
  const up = (event: PointerEvent<HTMLDivElement>) => {
    if (dragFraction === null) return;
    jump(fractionAt(event.clientY), true);
    setDragFraction(null);
  };

  return (
    <div
      className="file-scrollbar"
      data-testid="file-scrollbar"
      ref={trackRef}
      role="scrollbar"
      aria-label="Position in the file"
      aria-valuetext={`Line ${(dragFraction === null ? topLine : lineAt(dragFraction)).toLocaleString('en-US')} of ${totalLines.toLocaleString('en-US')}`}
      aria-orientation="vertical"
      aria-valuemin={1}
      aria-valuemax={Math.max(1, totalLines)}
      aria-valuenow={dragFraction === null ? topLine : lineAt(dragFraction)}
      onPointerDown={down}
      onPointerMove={move}
      onPointerUp={up}
      onPointerCancel={up}
    >
      {markedLines.slice(0, LINE_MARKS_MAX).map((lineNo) => (
        <div
          key={`line-${lineNo}`}
          className="line-mark"
          data-testid="scrollbar-line-mark"
          data-line={lineNo}
          title={`Marked line ${lineNo.toLocaleString('en-US')}`}
          style={markBoxOf({ startLine: lineNo, endLine: lineNo }, totalLines, trackPx, 2)}
        />
      ))}
      {marks.map((m) => (
        <div
          key={m.proposalId}
          className={`mark${m.selected ? ' selected' : ''}${m.conflict ? ' conflict' : ''}`}
          data-testid="scrollbar-mark"
          data-proposal-id={m.proposalId}
          title={`${m.proposalId}: lines ${m.startLine}–${m.endLine}`}
          style={markBoxOf(m, totalLines, trackPx)}
        />
      ))}
      <div
        className={`thumb${dragFraction === null ? '' : ' dragging'}`}
        data-testid="file-scrollbar-thumb"
        style={{ height: thumbPx, top: fraction * Math.max(0, trackPx - thumbPx) }}
      />
    </div>
  );
}
