import { forwardRef, useState, type FormEvent } from 'react';
import { GOTO_HELP, goToTargetOf, type GoToTarget } from '../model/goto-target.ts';

/**
 * "Go to" box (Ctrl+G focuses it): a line ("5,000,000"), a byte offset ("@123456",
 * "b123456") or a percent ("50%"). Input it cannot use says why, next to the box.
 */
export const GoToLine = forwardRef<HTMLInputElement, { totalLines: number; fileBytes: number; onGo(target: GoToTarget): void }>(function GoToLine(
  { totalLines, fileBytes, onGo },
  ref,
) {
  const [typed, setTyped] = useState('');
  const [tried, setTried] = useState(false);
  const target = goToTargetOf(typed, totalLines, fileBytes);
  const invalid = typed.trim() !== '' && target === null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
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
        aria-invalid={invalid}
        aria-describedby={invalid ? 'goto-problem' : undefined}
        value={typed}
        onChange={(event) => {
          setTyped(event.target.value);
          setTried(false);
        }}
      />
      <button type="submit" disabled={typed.trim() === ''}>
        Go
      </button>
      {invalid && (tried || /[^\d\s,_.%@bB]/.test(typed)) && (
        <span id="goto-problem" className="goto-problem" role="alert" data-testid="goto-problem">
          “{typed.trim()}”: {GOTO_HELP}
        </span>
      )}
    </form>
  );
});
