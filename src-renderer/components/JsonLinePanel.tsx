import { useJsonLineStore } from '../stores/json-line-store.ts';

/** The side view of one line as pretty-printed JSON (j, or the JSON button), or why it is not JSON. */
export function JsonLinePanel() {
  const { lineNo, loading, result, close } = useJsonLineStore();
  if (lineNo === null) return null;
  return (
    <section className="json-panel" aria-label="JSON of the line" data-testid="json-panel">
      <header>
        <strong data-testid="json-title">Line {lineNo} as JSON</strong>
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
      {result?.ok && <pre data-testid="json-text">{result.text}</pre>}
    </section>
  );
}
