import { forwardRef, type FormEvent, type KeyboardEvent } from 'react';
import { count, sizeLabelOf } from '../model/file-labels.ts';
import { matchRangesOf } from '../model/find-matches.ts';
import { PAGE_RESULTS, useFindStore } from '../stores/find-store.ts';

/**
 * Find in the whole file (Ctrl+F): a regex, case-sensitive or not, searched by
 * the server as it is typed (find-store.ts debounces and cancels); results fill
 * in as slices of the file are searched while the rest is counted, with the
 * bytes searched as progress. Enter / F3 show the next result, Shift+Enter / Shift+F3 the
 * previous; each result row is a button (Tab reaches it); Esc closes.
 */
export const FindPanel = forwardRef<HTMLInputElement>(function FindPanel(_props, ref) {
  const { pattern, caseSensitive, results, searching, counting, error, nextStartByte, searchedBytes, fileBytes, searchedFor, current, total } = useFindStore();
  const { setPattern, setCaseSensitive, step, showResult, more, hide } = useFindStore.getState();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void step(1);
  };
  const onInputKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && event.shiftKey) {
      event.preventDefault();
      void step(-1);
    }
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') hide();
  };
  const percent = fileBytes > 0 ? Math.floor((100 * searchedBytes) / fileBytes) : 0;
  const done = fileBytes === 0 || searchedBytes >= fileBytes;
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
          placeholder="Regular expression, searched as you type (Enter: next, Shift+Enter: previous)"
          aria-label="Find"
          value={pattern}
          onChange={(event) => setPattern(event.target.value)}
          onKeyDown={onInputKeyDown}
        />
        <button
          type="button"
          className="chip"
          data-testid="find-case"
          aria-pressed={caseSensitive}
          aria-label="Match case"
          title="Match case"
          onClick={() => setCaseSensitive(!caseSensitive)}
        >
          Aa
        </button>
        <button type="button" data-testid="find-previous" aria-label="Previous match (Shift+F3)" disabled={results.length === 0} onClick={() => void step(-1)}>
          ↑
        </button>
        <button type="button" data-testid="find-next" aria-label="Next match (F3)" disabled={results.length === 0} onClick={() => void step(1)}>
          ↓
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
        <p className="find-status" data-testid="find-status" data-pattern={searchedFor.pattern} aria-live="polite">
          {current !== null && <span data-testid="find-current">{count.format(current + 1)} of </span>}
          <span data-testid="find-total">{count.format(total)}</span> {total === 1 ? 'line' : 'lines'}
          {done ? ' · whole file searched' : ` · ${percent}% searched`}
          {!done && !searching && !counting && nextStartByte !== null ? ' (stopped)' : ''}
          {!done && (
            <progress
              data-testid="find-progress"
              max={fileBytes}
              value={searchedBytes}
              aria-label={`${sizeLabelOf(searchedBytes)} of ${sizeLabelOf(fileBytes)} searched`}
              title={`${sizeLabelOf(searchedBytes)} of ${sizeLabelOf(fileBytes)} searched`}
            />
          )}
        </p>
      )}
      {results.length > 0 && searchedFor && (
        <ol className="find-results" data-testid="find-results" aria-label="Find results">
          {results.map((m, i) => (
            <li key={m.byte_offset} data-testid="find-result" data-line={m.line} aria-current={i === current ? 'true' : undefined}>
              <button type="button" className="find-result-row" onClick={() => showResult(i)} aria-label={`Line ${count.format(m.line)}: ${m.text}`}>
                <span className="line-no">{count.format(m.line)}</span>
                <span className="text">{withMatchesMarked(m.text, searchedFor.pattern, searchedFor.caseSensitive)}</span>
              </button>
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

/** The result's text with its matches in <mark>. */
function withMatchesMarked(text: string, pattern: string, caseSensitive: boolean) {
  const ranges = matchRangesOf([text], pattern, caseSensitive);
  if (ranges.length === 0) return text;
  const parts: (string | React.JSX.Element)[] = [];
  let at = 0;
  for (const r of ranges) {
    const from = r.column - 1;
    if (from < at) continue;
    parts.push(text.slice(at, from), <mark key={from}>{text.slice(from, from + r.length)}</mark>);
    at = from + r.length;
  }
  parts.push(text.slice(at));
  return parts;
}
