import { forwardRef, type FormEvent, type KeyboardEvent } from 'react';
import { count } from '../model/file-labels.ts';
import { PAGE_RESULTS, useFindStore } from '../stores/find-store.ts';

/**
 * Find in the whole file (Ctrl+F): a regex, case-sensitive or not, searched by
 * the server; results fill in as slices of the file are searched, and clicking
 * one shows that line.
 */
export const FindPanel = forwardRef<HTMLInputElement, { onShowLine(lineNo: number): void }>(function FindPanel({ onShowLine }, ref) {
  const { pattern, caseSensitive, results, searching, error, nextStartByte, searchedBytes, fileBytes, searchedFor } = useFindStore();
  const { setPattern, setCaseSensitive, search, more, hide } = useFindStore.getState();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void search();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') hide();
  };
  const percent = fileBytes > 0 ? Math.floor((100 * searchedBytes) / fileBytes) : 0;
  return (
    <section className="find-panel" data-testid="find-panel" aria-label="Find in file" onKeyDown={onKeyDown}>
      <form onSubmit={submit}>
        <input
          ref={ref}
          autoFocus
          data-testid="find-input"
          type="text"
          spellCheck={false}
          autoComplete="off"
          placeholder="Regular expression"
          aria-label="Regular expression"
          value={pattern}
          onChange={(event) => setPattern(event.target.value)}
        />
        <button
          type="button"
          className="chip"
          data-testid="find-case"
          aria-pressed={caseSensitive}
          title="Match case"
          onClick={() => setCaseSensitive(!caseSensitive)}
        >
          Aa
        </button>
        <button type="submit" data-testid="find-submit" disabled={!pattern}>
          Find
        </button>
        <button type="button" className="close" aria-label="Close find" onClick={hide}>
          ×
        </button>
      </form>
      {error && (
        <p className="find-error" role="alert" data-testid="find-error">
          <code>{error.code}</code> {error.message}
        </p>
      )}
      {searchedFor && !error && (
        <p className="find-status" data-testid="find-status" aria-live="polite">
          {count.format(results.length)} {results.length === 1 ? 'line' : 'lines'}
          {searching ? ` · searching ${percent}%` : nextStartByte !== null ? ` · searched ${percent}%` : ' · whole file searched'}
        </p>
      )}
      {results.length > 0 && (
        <ol className="find-results" data-testid="find-results">
          {results.map((m) => (
            <li key={m.byte_offset} data-testid="find-result" data-line={m.line} onClick={() => onShowLine(m.line)}>
              <span className="line-no">{count.format(m.line)}</span>
              <span className="text">{m.text}</span>
            </li>
          ))}
        </ol>
      )}
      {nextStartByte !== null && !searching && (
        <button type="button" data-testid="find-more" onClick={() => void more()}>
          More ({PAGE_RESULTS} next)
        </button>
      )}
    </section>
  );
});
