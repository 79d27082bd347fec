/** Follow mode for growing logs (F in the viewer): new lines appear at the bottom as they are written. */
export function FollowButton({ following, disabled, onToggle }: { following: boolean; disabled: boolean; onToggle(): void }) {
  return (
    <button
      type="button"
      className={`follow${following ? ' on' : ''}`}
      data-testid="follow-toggle"
      aria-pressed={following}
      disabled={disabled}
      title="Follow the end of the file as it grows (F)"
      onClick={onToggle}
    >
      {following ? 'Following' : 'Follow'}
    </button>
  );
}
