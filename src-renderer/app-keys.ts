/**
 * The app's review keys (reviewKeyOf: next, previous, accept, reject, undo, redo,
 * help, files), caught before Monaco. The viewer's keys, the Ctrl shortcuts that
 * focus the app's boxes among them, are LogKeys.tsx's.
 */
import { useEffect } from 'react';
import { reviewKeyOf, type KeyPlace } from './model/review-keys.ts';
import { decideFocused, stepReview } from './stores/review-flow.ts';
import { useReviewStore } from './stores/review-store.ts';

/** Where a key was pressed, for the review keys: the file view, a text box (inputs, editors), or elsewhere. */
function keyPlaceOf(target: Element | null): KeyPlace {
  if (!target) return 'other';
  if (target.closest('[data-testid="file-view"]')) return 'file-view';
  if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return 'text-box';
  if ((target as HTMLElement).isContentEditable || target.closest('.monaco-editor')) return 'text-box';
  return 'other';
}

/** The review keys, anywhere in the app but dialogs. */
export function useReviewKeys(): void {
  useEffect(() => {
    // Capture: before Monaco, which binds Tab and Ctrl+Enter itself.
    const onKey = (event: KeyboardEvent) => {
      const target = event.target instanceof Element ? event.target : null;
      // Dialogs (help, the 3-way view, the approve question) keep their keys.
      if (target?.closest('[role="dialog"], [role="alertdialog"]')) return;
      const action = reviewKeyOf(event, keyPlaceOf(target));
      if (!action) return;
      const review = useReviewStore.getState();
      if ((action === 'accept' || action === 'reject') && !review.selected && !review.focus) return;
      event.preventDefault();
      event.stopPropagation();
      if (action === 'help') review.setHelpOpen(!review.helpOpen);
      else if (action === 'files') review.setFilesOpen(!review.filesOpen);
      else if (action === 'undo') void review.undo();
      else if (action === 'redo') void review.redo();
      else if (action === 'next' || action === 'previous') void stepReview(action === 'next' ? 1 : -1);
      else void decideFocused(action);
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, []);
}
