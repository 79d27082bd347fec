/**
 * The file line of the editor's cursor, and "the current line" the log keys step
 * from (next mark, next error, next highlight, mark, pretty-print): the cursor's
 * line when it is in view, else the top line in view (the view was scrolled away
 * from the cursor).
 */
import { create } from 'zustand';
import { useViewerStore } from './viewer-store.ts';

export const useCursorStore = create<{ lineNo: number | null; set(lineNo: number | null): void }>()((set) => ({
  lineNo: null,
  set: (lineNo) => set({ lineNo }),
}));

export function currentLineOf(): number {
  const { topLine, visibleLines } = useViewerStore.getState();
  const cursor = useCursorStore.getState().lineNo;
  const bottom = topLine + Math.max(1, visibleLines) - 1;
  return cursor !== null && cursor >= topLine && cursor <= bottom ? cursor : topLine;
}
