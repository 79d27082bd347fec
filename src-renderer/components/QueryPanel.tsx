import { useEffect, useRef } from 'react';
import { count } from '../model/file-labels.ts';
import { LOG_COLUMNS, useQueryStore } from '../stores/query-store.ts';
import { useViewerStore } from '../stores/viewer-store.ts';

const cellText = (v: string | number | null) => (v === null ? 'NULL' : String(v));

/**
 * SQL over the open log (the `query` operation): a SQL box, Run (Ctrl+Enter),
 * Cancel while it runs, the answer as a table. When the answer has links, a row is
 * a button-like row: click or Enter shows its line; arrow keys move between rows.
 */
export function QueryPanel() {
  const { sql, running, result, problem, note, keyColumns } = useQueryStore();
  const { hide, setSql, run, cancel, loadColumns, openRow } = useQueryStore.getState();
  const path = useViewerStore((s) => s.path);
  const box = useRef<HTMLTextAreaElement>(null);
  const body = useRef<HTMLTableSectionElement>(null);
  useEffect(() => {
    void loadColumns();
  }, [path, loadColumns]);
  useEffect(() => box.current?.focus(), []);

  const linked = Boolean(result?.links);
  const focusRow = (i: number) => (body.current?.rows[i] as HTMLElement | undefined)?.focus();
  const onRowKey = (e: React.KeyboardEvent, i: number) => {
    if (e.key === 'Enter') void openRow(i);
    else if (e.key === 'ArrowDown') focusRow(i + 1);
    else if (e.key === 'ArrowUp') focusRow(i - 1);
    else if (e.key === 'Home') focusRow(0);
    else if (e.key === 'End') focusRow((result?.rows.length ?? 1) - 1);
    else return;
    e.preventDefault();
  };

  return (
    <section className="query-panel" aria-label="Query" data-testid="query-panel" onKeyDown={(e) => e.key === 'Escape' && hide()}>
      <header className="query-header">
        <strong>Query</strong>
        <span className="query-columns" data-testid="query-columns">
          Table <code>log</code>: {[...LOG_COLUMNS, ...(keyColumns ?? [])].join(', ')}
        </span>
        <button type="button" onClick={hide} aria-label="Close query">
          ×
        </button>
      </header>
      <div className="query-input">
        <textarea
          ref={box}
          aria-label="SQL"
          data-testid="query-sql"
          spellCheck={false}
          rows={3}
          value={sql}
          onChange={(e) => setSql(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              void run();
            }
          }}
        />
        {running ? (
          <button type="button" data-testid="query-cancel" onClick={cancel}>
            Cancel
          </button>
        ) : (
          <button type="button" data-testid="query-run" onClick={() => void run()} title="Run the SQL (Ctrl+Enter)">
            Run
          </button>
        )}
      </div>
      {running && (
        <p className="query-status" role="status" data-testid="query-running">
          Running…
        </p>
      )}
      {note && (
        <p className="query-status" role="status" data-testid="query-note">
          {note}
        </p>
      )}
      {problem && (
        <p className="query-error" role="alert" data-testid="query-error" data-code={problem.code}>
          {problem.code}: {problem.message}
        </p>
      )}
      {result && !problem && (
        <>
          <p className="query-status" role="status" data-testid="query-summary">
            {count.format(result.row_count)} {result.row_count === 1 ? 'row' : 'rows'} in {Math.round(result.elapsed_ms)} ms
            {result.capped && ` · capped at ${count.format(result.row_count)}: add LIMIT or GROUP BY for the rest`}
            {linked && ' · click a row or press Enter on it to show its line'}
          </p>
          <div className="query-results">
            <table data-testid="query-table" aria-label="Query results">
              <thead>
                <tr>
                  {result.columns.map((c, i) => (
                    <th key={i} scope="col">
                      {c}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody ref={body}>
                {result.rows.map((row, i) => {
                  const link = result.links?.[i];
                  return (
                    <tr
                      key={i}
                      tabIndex={link ? 0 : undefined}
                      className={link ? 'query-link' : undefined}
                      aria-label={link ? `Row ${i + 1}: show line ${link.line}` : undefined}
                      onClick={link ? () => void openRow(i) : undefined}
                      onKeyDown={link ? (e) => onRowKey(e, i) : undefined}
                    >
                      {row.map((v, j) => (
                        <td key={j} className={v === null ? 'query-null' : undefined}>
                          {cellText(v)}
                        </td>
                      ))}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
