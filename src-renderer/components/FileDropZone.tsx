import { useEffect, useState } from 'react';
import { dropDataOf, dropOutcomeOf } from '../model/dropped-path.ts';
import { pathOfDroppedFile } from '../transport.ts';

const carriesFiles = (transfer: DataTransfer | null) => Boolean(transfer && (transfer.types.includes('Files') || transfer.types.includes('text/uri-list')));

/**
 * Dropping a file anywhere on the window opens it. Listens on the window in the
 * capture phase, so the editors (Monaco accepts drops of text) never take it.
 * Shows a hint while something droppable is over the window, and a message when a
 * drop names no path the app can open (a browser hides dropped files' paths).
 */
export function FileDropZone({ onOpen }: { onOpen(path: string): void }) {
  const [dragging, setDragging] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  useEffect(() => {
    const over = (event: DragEvent) => {
      if (!carriesFiles(event.dataTransfer)) return;
      event.preventDefault(); // allows the drop
      if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
      setDragging(true);
    };
    const leave = (event: DragEvent) => {
      if (event.relatedTarget === null) setDragging(false);
    };
    const drop = (event: DragEvent) => {
      setDragging(false);
      if (!event.dataTransfer) return;
      const outcome = dropOutcomeOf(dropDataOf(event.dataTransfer), (file) => pathOfDroppedFile(file));
      if (outcome.kind === 'nothing') return;
      event.preventDefault();
      event.stopPropagation();
      if (outcome.kind === 'path') {
        setMessage(null);
        onOpen(outcome.path);
      } else {
        setMessage(outcome.message);
      }
    };
    window.addEventListener('dragover', over, true);
    window.addEventListener('dragleave', leave, true);
    window.addEventListener('drop', drop, true);
    return () => {
      window.removeEventListener('dragover', over, true);
      window.removeEventListener('dragleave', leave, true);
      window.removeEventListener('drop', drop, true);
    };
  }, [onOpen]);
  return (
    <>
      {dragging && (
        <div className="drop-hint" data-testid="drop-hint" aria-hidden="true">
          Drop a file to open it
        </div>
      )}
      {message && (
        <p className="drop-message" role="alert" data-testid="drop-message">
          {message}{' '}
          <button type="button" onClick={() => setMessage(null)}>
            Dismiss
          </button>
        </p>
      )}
    </>
  );
}
