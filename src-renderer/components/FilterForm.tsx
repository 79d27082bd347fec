import type { FormEvent } from 'react';
import { LOG_LEVELS, type FilterTerm, type LogLevel } from '../model/filter-query.ts';

export interface FilterFormProps {
  terms: FilterTerm[];
  expression: string;
  levels: LogLevel[];
  caseSensitive: boolean;
  setTerms(terms: FilterTerm[]): void;
  setExpression(expression: string): void;
  setLevels(levels: LogLevel[]): void;
  setCaseSensitive(on: boolean): void;
  /** Filter with what the form holds (Enter, Apply, a level chip). */
  apply(): void;
  hide(): void;
  /** What the close button says it closes. */
  closeLabel: string;
}

/**
 * The filter's form, one look for the file's filter view (FilterPanel) and the
 * merged view's (MergedView): filters (each a regex to keep or to drop), a
 * boolean expression (filter-expr.ts), case, level chips (a chip applies at once),
 * Apply (or Enter) and close.
 */
export function FilterForm(p: FilterFormProps) {
  const { terms, expression, levels, caseSensitive, setTerms, setExpression, setLevels, setCaseSensitive, apply, hide } = p;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    apply();
  };
  const setTerm = (i: number, term: Partial<FilterTerm>) => setTerms(terms.map((t, j) => (i === j ? { ...t, ...term } : t)));
  const toggleLevel = (level: LogLevel) => {
    setLevels(levels.includes(level) ? levels.filter((l) => l !== level) : [...levels, level]);
    apply();
  };
  return (
    <form onSubmit={submit} className="filter-form">
      {terms.map((term, i) => (
        <span className="filter-term" key={i}>
          <select
            aria-label={`Filter ${i + 1} mode`}
            value={term.exclude ? 'exclude' : 'include'}
            onChange={(e) => setTerm(i, { exclude: e.target.value === 'exclude' })}
          >
            <option value="include">matching</option>
            <option value="exclude">not matching</option>
          </select>
          <input
            type="text"
            aria-label={`Filter ${i + 1}`}
            placeholder="Regular expression (Enter applies)"
            spellCheck={false}
            autoComplete="off"
            autoFocus={i === terms.length - 1}
            value={term.pattern}
            onChange={(e) => setTerm(i, { pattern: e.target.value })}
          />
          {terms.length > 1 && (
            <button type="button" aria-label={`Remove filter ${i + 1}`} onClick={() => setTerms(terms.filter((_, j) => j !== i))}>
              −
            </button>
          )}
        </span>
      ))}
      <button type="button" aria-label="Add a filter" onClick={() => setTerms([...terms, { pattern: '', exclude: false }])}>
        + Filter
      </button>
      <input
        type="text"
        className="filter-expr"
        aria-label="Filter expression"
        data-testid="filter-expr"
        placeholder="ERROR AND (timeout OR refused) AND NOT retry"
        title='Terms, "quoted phrases" or /regexes/ with AND, OR, NOT and parentheses (NOT binds tightest, then AND, then OR); Enter applies'
        spellCheck={false}
        autoComplete="off"
        value={expression}
        onChange={(e) => setExpression(e.target.value)}
      />
      <button type="button" className="chip" aria-pressed={!caseSensitive} aria-label="Ignore case" onClick={() => setCaseSensitive(!caseSensitive)}>
        aA
      </button>
      <span className="filter-levels" role="group" aria-label="Levels">
        {LOG_LEVELS.map((level) => (
          <button
            type="button"
            key={level}
            className={`chip level-${level.toLowerCase()}`}
            aria-pressed={levels.includes(level)}
            onClick={() => toggleLevel(level)}
          >
            {level}
          </button>
        ))}
      </span>
      <button type="submit">Apply</button>
      <button type="button" className="close" aria-label={p.closeLabel} onClick={hide}>
        ×
      </button>
    </form>
  );
}
