import { useMemo } from 'react';
import { useShallow } from 'zustand/shallow';
import { regionMarksOf } from '../model/change-order.ts';
import { useMarksStore } from '../stores/marks-store.ts';
import { useReviewStore } from '../stores/review-store.ts';
import { useViewerStore } from '../stores/viewer-store.ts';
import { FileScrollbar } from './FileScrollbar.tsx';

/** No marked lines (one array, so the store selector's answer stays the same). */
const NO_LINES: readonly number[] = [];

/** The whole-file scrollbar of the open file: where the view is, the proposals' regions, the marked lines. */
export function ViewerScrollbar() {
  const { path, topLine, visibleLines, totalLines } = useViewerStore(
    useShallow((s) => ({ path: s.path, topLine: s.topLine, visibleLines: s.visibleLines, totalLines: s.info?.lines ?? 0 })),
  );
  const queue = useReviewStore((s) => s.queue);
  const selectedId = useReviewStore((s) => s.selectedId);
  const marks = useMemo(() => regionMarksOf(queue, path, selectedId), [queue, path, selectedId]);
  const markedLines = useMarksStore((s) => (s.path === path ? s.lines : NO_LINES));
  return (
    <FileScrollbar
      topLine={topLine}
      visibleLines={visibleLines}
      totalLines={totalLines}
      marks={marks}
      markedLines={markedLines}
      onJump={(lineNo) => void useViewerStore.getState().goToLine(lineNo, { at: 'top', select: false })}
    />
  );
}
