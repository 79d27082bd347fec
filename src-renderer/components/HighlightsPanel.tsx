import { useState, type FormEvent } from 'react';
import { HIGHLIGHT_COLORS, type HighlightRule } from '../model/highlight-rules.ts';
import { useHighlightStore } from '../stores/highlight-store.ts';

/**
 * The "Highlights" panel: the rules that colour matched text in every file
 * (kept per user), each a regex (the engine's dialect, case-sensitive) or a
 * literal, with its colour; added with Enter or the button, turned on and off,
 * removed. A refused rule says why and changes nothing.
 */
export function HighlightsPanel() {
  const { rules, error, notice } = useHighlightStore();
  const { add, remove, setEnabled, toggleOpen } = useHighlightStore.getState();
  const [pattern, setPattern] = useState('');
  const [literal, setLiteral] = useState(false);
  const [color, setColor] = useState<HighlightRule['color']>(HIGHLIGHT_COLORS[rules.length % HIGHLIGHT_COLORS.length]!);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!pattern) return;
    if (await add({ pattern, literal, color, enabled: true })) {
      setPattern('');
      setColor(HIGHLIGHT_COLORS[(HIGHLIGHT_COLORS.indexOf(color) + 1) % HIGHLIGHT_COLORS.length]!);
    }
  };
  return (
    <section className="highlights-panel" aria-label="Highlights" data-testid="highlights-panel" onKeyDown={(e) => e.key === 'Escape' && toggleOpen()}>
      <form className="highlights-form" onSubmit={(e) => void submit(e)}>
        <input
          type="text"
          aria-label="Highlight pattern"
          placeholder={literal ? 'Text to highlight' : 'Regular expression to highlight'}
          spellCheck={false}
          autoComplete="off"
          autoFocus
          value={pattern}
          onChange={(e) => setPattern(e.target.value)}
        />
        <label>
          <input type="checkbox" aria-label="Literal" checked={literal} onChange={(e) => setLiteral(e.target.checked)} /> Literal
        </label>
        <select aria-label="Highlight colour" value={color} onChange={(e) => setColor(e.target.value as HighlightRule['color'])}>
          {HIGHLIGHT_COLORS.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
        <button type="submit" disabled={!pattern}>
          Add highlight
        </button>
        <span className="muted">h / H: next / previous highlighted line</span>
      </form>
      {error && (
        <p className="find-error" role="alert" data-testid="highlights-error">
          {error.message}
        </p>
      )}
      {notice && (
        <p className="find-error" role="status" data-testid="highlights-notice">
          {notice}
        </p>
      )}
      <ul className="highlights-list" aria-label="Highlight rules">
        {rules.map((rule, i) => (
          <li key={`${i}-${rule.pattern}`} data-testid="highlight-rule">
            <label>
              <input
                type="checkbox"
                aria-label={`Highlight ${rule.pattern} on`}
                checked={rule.enabled}
                onChange={(e) => void setEnabled(i, e.target.checked)}
              />
              <span className={`folio-hl folio-hl-${rule.color}`}>{rule.pattern}</span>
            </label>
            <span className="muted">
              {rule.literal ? 'literal' : 'regex'} · {rule.color}
            </span>
            <button type="button" aria-label={`Remove highlight ${rule.pattern}`} onClick={() => void remove(i)}>
              ×
            </button>
          </li>
        ))}
        {rules.length === 0 && <li className="muted">No highlights yet.</li>}
      </ul>
    </section>
  );
}
