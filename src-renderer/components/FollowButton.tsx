/**
 * Follow mode for growing logs (F in the viewer): new lines appear at the bottom
 * as they are written. Scrolling back pauses it ("Follow paused"); End or this
 * button resumes it.
 */
export function FollowButton({ following, paused, disabled, onToggle }: { following: boolean; paused: boolean; disabled: boolean; onToggle(): void }) {
  const label = following ? 'Following' : paused ? 'Follow paused' : 'Follow';
  const title = following
    ? 'Following the end of the file; scroll up to pause (F stops)'
    : paused
      ? 'Paused while you read back: press End or click to follow again'
      : 'Follow the end of the file as it grows (F)';
  return (
    <button
      type="button"
      className={`follow${following ? ' on' : ''}${paused ? ' paused' : ''}`}
      data-testid="follow-toggle"
      data-state={following ? 'on' : paused ? 'paused' : 'off'}
      aria-pressed={following}
      disabled={disabled}
      title={title}
      onClick={onToggle}
    >
      {label}
    </button>
  );
}
