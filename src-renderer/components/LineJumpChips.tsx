/** Moves of the view by a fixed number of lines, up or down. */
const STEPS: { delta: number; label: string }[] = [
  { delta: -10_000, label: '−10k' },
  { delta: -100, label: '−100' },
  { delta: 100, label: '+100' },
  { delta: 10_000, label: '+10k' },
];

export function LineJumpChips({ disabled, onMove }: { disabled: boolean; onMove(delta: number): void }) {
  return (
    <span className="line-jump-chips" role="group" aria-label="Move by lines">
      {STEPS.map(({ delta, label }) => (
        <button
          key={delta}
          type="button"
          className="chip"
          data-testid={`jump-${delta > 0 ? 'down' : 'up'}-${Math.abs(delta)}`}
          title={`${delta > 0 ? 'Down' : 'Up'} ${Math.abs(delta).toLocaleString('en-US')} lines`}
          // The name starts with what the chip shows (WCAG 2.5.3, label in name), then says it in words.
          aria-label={`${label}: ${delta > 0 ? 'Down' : 'Up'} ${Math.abs(delta).toLocaleString('en-US')} lines`}
          disabled={disabled}
          onClick={() => onMove(delta)}
        >
          {label}
        </button>
      ))}
    </span>
  );
}
