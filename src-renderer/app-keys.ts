/**
 * The app's keyboard: the review keys (reviewKeyOf: next, previous, accept,
 * reject, undo, redo, help, files), caught before Monaco, and the Ctrl shortcuts
 * that focus the app's boxes (go to line, find, the path box, the outline).
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

export interface ShortcutActions {
  focusGoTo(): void;
  openFind(): void;
  focusPath(): void;
  toggleOutline(): void;
}

/** Ctrl+G go to line, Ctrl+F find, Ctrl+O the path box, Ctrl+Shift+O the outline. `actions` must not change. */
export function useAppShortcuts(actions: ShortcutActions): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.altKey) return;
      const key = event.key.toLowerCase();
      if (event.shiftKey) {
        if (key === 'o') {
          // VS Code's "go to symbol" key; Monaco's own binding is taken over in FileView.
          event.preventDefault();
          actions.toggleOutline();
        }
        return;
      }
      if (key === 'g') {
        event.preventDefault();
        actions.focusGoTo();
      } else if (key === 'f') {
        event.preventDefault();
        actions.openFind();
      } else if (key === 'o') {
        // In Electron the File menu's accelerator shows the Open dialog instead.
        event.preventDefault();
        actions.focusPath();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [actions]);
}
