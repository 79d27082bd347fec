/** Shows or hides the outline panel (Ctrl+Shift+O); only markdown files have one. */
export function OutlineButton({ open, disabled, onToggle }: { open: boolean; disabled: boolean; onToggle(): void }) {
  return (
    <button
      type="button"
      className={`outline-toggle${open ? ' on' : ''}`}
      data-testid="outline-toggle"
      aria-pressed={open}
      disabled={disabled}
      title={disabled ? 'Outline: markdown files only' : 'Headings of this markdown file (Ctrl+Shift+O)'}
      onClick={onToggle}
    >
      Outline
    </button>
  );
}
