import { forwardRef, useState, type FormEvent } from 'react';
import { GOTO_HELP, goToTargetOf, type GoToTarget } from '../model/goto-target.ts';

/**
 * "Go to" box (Ctrl+G focuses it): a line ("5,000,000"), a byte offset ("@123456",
 * "b123456"), a percent ("50%") or a time in a log ("2024-05-01 12:30", "12:30:05").
 * Input it cannot use says why, next to the box; so does a go that failed (onGo's
 * answer: a time the file's stamps cannot place).
 */
export const GoToLine = forwardRef<HTMLInputElement, { totalLines: number; fileBytes: number; onGo(target: GoToTarget): void | Promise<string | null> }>(
  function GoToLine({ totalLines, fileBytes, onGo }, ref) {
    const [typed, setTyped] = useState('');
    const [tried, setTried] = useState(false);
    const [failed, setFailed] = useState<string | null>(null);
    const target = goToTargetOf(typed, totalLines, fileBytes);
    const invalid = typed.trim() !== '' && target === null;
    const submit = (event: FormEvent) => {
      event.preventDefault();
      setTried(true);
      if (target === null) return;
      const answer = onGo(target);
      if (answer) void answer.then(setFailed);
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
          title="a line (5,000,000), a byte offset (@123456 or b123456), a percent (50%) or a time (2024-05-01 12:30, 12:30:05)"
          placeholder={totalLines ? `1–${totalLines}, @byte, %, time` : ''}
          aria-invalid={invalid}
          aria-describedby={invalid || failed ? 'goto-problem' : undefined}
          value={typed}
          onChange={(event) => {
            setTyped(event.target.value);
            setTried(false);
            setFailed(null);
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
        {!invalid && failed && (
          <span id="goto-problem" className="goto-problem" role="alert" data-testid="goto-problem">
            {failed}
          </span>
        )}
      </form>
    );
  },
);
