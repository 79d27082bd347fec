import { useRef } from 'react';
import { useDialogFocus } from './use-dialog-focus.ts';

/**
 * "quote edit, 2 hunks, lines 3–70: this replaces 61 lines. Approve?": asked before
 * a big edit is written; Cancel (or Escape) writes nothing. A modal: focus stays
 * inside and returns to the opener.
 */
export function ConfirmApproveDialog({ question, onApprove, onCancel }: { question: string; onApprove(): void; onCancel(): void }) {
  const rootRef = useRef<HTMLDivElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  // Focus starts on Cancel, so Enter does not write by accident.
  const onKeyDown = useDialogFocus(rootRef, onCancel, cancelRef);
  return (
    <div
      ref={rootRef}
      className="confirm-approve"
      role="alertdialog"
      aria-modal="true"
      aria-labelledby="confirm-approve-question"
      data-testid="confirm-approve-dialog"
      onKeyDown={onKeyDown}
    >
      <p id="confirm-approve-question" data-testid="confirm-approve-question">
        {question}
      </p>
      <div className="confirm-buttons">
        <button type="button" className="approve" data-testid="confirm-approve" onClick={onApprove}>
          Approve
        </button>
        <button type="button" ref={cancelRef} data-testid="confirm-cancel" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
