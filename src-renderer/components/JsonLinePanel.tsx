import { useJsonLineStore } from '../stores/json-line-store.ts';

/** The side view of one line (j, or the JSON button): its JSON pretty-printed, its key=value fields as a table, or why neither. */
export function JsonLinePanel() {
  const { lineNo, loading, result, close } = useJsonLineStore();
  if (lineNo === null) return null;
  const fields = result?.ok ? result.fields : undefined;
  return (
    <section className="json-panel" aria-label="JSON of the line" data-testid="json-panel">
      <header>
        <strong data-testid="json-title">
          Line {lineNo} {fields ? 'fields' : 'as JSON'}
        </strong>
        {result?.ok && result.prefix && <span className="muted">after “{result.prefix.slice(0, 80)}”</span>}
        <span style={{ flex: 1 }} />
        <button type="button" onClick={close}>
          Close JSON view
        </button>
      </header>
      {loading && <p className="muted">Reading the line…</p>}
      {result && !result.ok && (
        <p className="find-error" role="alert" data-testid="json-error">
          {result.message}
        </p>
      )}
      {result?.ok && result.text !== undefined && <pre data-testid="json-text">{result.text}</pre>}
      {fields && (
        <div className="json-fields">
          <table data-testid="json-fields">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {fields.map(([key, value], i) => (
                <tr key={i} data-testid="json-field">
                  <th scope="row">{key}</th>
                  <td className={value === null ? 'muted' : undefined}>{value ?? '(no value)'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
