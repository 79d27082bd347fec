import { useRef } from 'react';
import { filesKeyLabelsOf, type ReviewKeyAction } from '../model/review-keys.ts';
import { LogKeysHelp } from './LogKeys.tsx';
import { useDialogFocus } from './use-dialog-focus.ts';

const ROWS: [ReviewKeyAction, string][] = [
  ['next', 'Next pending hunk of the session (opens the next file; wraps at the end)'],
  ['previous', 'Previous pending hunk of the session'],
  ['accept', 'Accept the change (its hunk alone in a proposal with several)'],
  ['reject', 'Reject the change, with the reason typed in the panel'],
  ['undo', 'Undo your latest applied review edit (a batch: all of it), also in the file view'],
  ['redo', 'Redo your latest undone review edit'],
  ['files', 'Changed files of the session: open one, accept or reject all of a file, an agent or the session'],
  ['help', 'Show or hide this help'],
];
const FILES_KEYS = filesKeyLabelsOf(/Mac|iPhone|iPad/.test(navigator.platform));

/** The review keys at a glance (`?`); Escape or `?` closes it. */
export function ReviewHelp({ labels, onClose }: { labels: Record<ReviewKeyAction, string>; onClose(): void }) {
  const rootRef = useRef<HTMLDivElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  const trap = useDialogFocus(rootRef, onClose, closeRef);
  return (
    <div
      ref={rootRef}
      className="review-help"
      role="dialog"
      aria-modal="true"
      aria-labelledby="review-help-title"
      data-testid="review-help"
      onKeyDown={(event) => {
        if (event.key === '?') {
          event.preventDefault();
          event.stopPropagation();
          onClose();
        } else trap(event);
      }}
    >
      <h3 id="review-help-title">Review keys</h3>
      <dl>
        {ROWS.map(([action, what]) => (
          <div key={action}>
            <dt>
              <kbd>{labels[action]}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <h4>In the changed-files list</h4>
      <dl data-testid="changed-files-keys">
        {FILES_KEYS.map(([keys, what]) => (
          <div key={keys}>
            <dt>
              <kbd>{keys}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <LogKeysHelp />
      <p className="muted">Select a proposal to see its diff in the file view: removed lines above, added lines tinted.</p>
      <button type="button" ref={closeRef} data-testid="review-help-close" onClick={onClose}>
        Close
      </button>
    </div>
  );
}
