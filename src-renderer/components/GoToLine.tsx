import { forwardRef, useState, type FormEvent } from 'react';
import { goToTargetOf, type GoToTarget } from '../model/goto-target.ts';

/** "Go to" box (Ctrl+G focuses it): a line ("5,000,000"), a byte offset ("@123456", "b123456") or a percent ("50%"). */
export const GoToLine = forwardRef<HTMLInputElement, { totalLines: number; fileBytes: number; onGo(target: GoToTarget): void }>(function GoToLine(
  { totalLines, fileBytes, onGo },
  ref,
) {
  const [typed, setTyped] = useState('');
  const target = goToTargetOf(typed, totalLines, fileBytes);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (target !== null) onGo(target);
  };
  return (
    <form className="go-to-line" onSubmit={submit}>
      <label htmlFor="goto-input">Go to</label>
      <input
        id="goto-input"
        ref={ref}
        data-testid="goto-input"
        type="text"
        autoComplete="off"
        spellCheck={false}
        title="a line (5,000,000), a byte offset (@123456 or b123456) or a percent (50%)"
        placeholder={totalLines ? `1–${totalLines}, @byte, %` : ''}
        aria-invalid={typed !== '' && target === null}
        value={typed}
        onChange={(event) => setTyped(event.target.value)}
      />
      <button type="submit" disabled={target === null}>
        Go
      </button>
    </form>
  );
});
