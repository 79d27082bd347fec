import { forwardRef, useState, type FormEvent } from 'react';
import { lineNoOf } from '../model/line-window.ts';

/** "Go to line" box (Ctrl+G focuses it): any line of the file, "5,000,000" included. */
export const GoToLine = forwardRef<HTMLInputElement, { totalLines: number; onGo(lineNo: number): void }>(function GoToLine(
  { totalLines, onGo },
  ref,
) {
  const [typed, setTyped] = useState('');
  const lineNo = lineNoOf(typed, totalLines);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (lineNo !== null) onGo(lineNo);
  };
  return (
    <form className="go-to-line" onSubmit={submit}>
      <label htmlFor="goto-input">Line</label>
      <input
        id="goto-input"
        ref={ref}
        data-testid="goto-input"
        type="text"
        inputMode="numeric"
        autoComplete="off"
        placeholder={totalLines ? `1–${totalLines}` : ''}
        aria-invalid={typed !== '' && lineNo === null}
        value={typed}
        onChange={(event) => setTyped(event.target.value)}
      />
      <button type="submit" disabled={lineNo === null}>
        Go
      </button>
    </form>
  );
});
