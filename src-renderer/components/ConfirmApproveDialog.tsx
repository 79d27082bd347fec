import { useEffect, useRef } from 'react';

/** "This replaces N lines. Approve?": asked before a big edit is written; Cancel writes nothing. */
export function ConfirmApproveDialog({ question, onApprove, onCancel }: { question: string; onApprove(): void; onCancel(): void }) {
  const cancelRef = useRef<HTMLButtonElement>(null);
  // Focus starts on Cancel, so Enter does not write by accident.
  useEffect(() => cancelRef.current?.focus(), []);
  return (
    <div
      className="confirm-approve"
      role="alertdialog"
      aria-modal="true"
      aria-labelledby="confirm-approve-question"
      data-testid="confirm-approve-dialog"
      onKeyDown={(event) => {
        if (event.key === 'Escape') onCancel();
      }}
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
