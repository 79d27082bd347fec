import { useShallow } from 'zustand/shallow';
import { useFilterStore } from '../stores/filter-store.ts';
import { useTimeStore } from '../stores/time-store.ts';
import { useViewerStore } from '../stores/viewer-store.ts';
import { CopyLinkButton } from './CopyLinkButton.tsx';
import { FollowButton } from './FollowButton.tsx';
import { LineJumpChips } from './LineJumpChips.tsx';
import { LogToolButtons } from './LogTools.tsx';
import { OutlineButton } from './OutlineButton.tsx';

/**
 * The viewer's toolbar: the ±N chips, Follow, Copy link, and the buttons that open
 * Find, Filter, the histogram, the outline and the log tools. What follows the
 * scroll (the lines in view, the selection, follow) is read by the small buttons
 * that show it, so scrolling re-renders them and not the toolbar or the app.
 */
export function ViewerToolbar({
  hasFile,
  outline,
  onFind,
  onToggleOutline,
}: {
  hasFile: boolean;
  outline: { open: boolean; applies: boolean };
  onFind(): void;
  onToggleOutline(): void;
}) {
  const filterOpen = useFilterStore((s) => s.open);
  const histogramOpen = useTimeStore((s) => s.open);
  return (
    <div className="viewer-toolbar">
      <LineJumpChips disabled={!hasFile} onMove={(delta) => void useViewerStore.getState().moveBy(delta)} />
      <FollowToggle disabled={!hasFile} />
      <CopyViewLink />
      <button type="button" data-testid="find-open" onClick={onFind} title="Find in the whole file (Ctrl+F)">
        Find
      </button>
      <button
        type="button"
        data-testid="filter-open"
        aria-pressed={filterOpen}
        disabled={!hasFile}
        onClick={() => useFilterStore.getState().toggle()}
        title="Show only the lines matching filters and levels (Ctrl+Shift+F)"
      >
        Filter
      </button>
      <button
        type="button"
        data-testid="histogram-open"
        aria-pressed={histogramOpen}
        disabled={!hasFile}
        onClick={() => useTimeStore.getState().toggle()}
        title="Lines per level over time, for the whole file; click a bar to go there (Ctrl+Shift+H)"
      >
        Histogram
      </button>
      <OutlineButton open={outline.open} disabled={!outline.applies} onToggle={onToggleOutline} />
      <LogToolButtons disabled={!hasFile} />
    </div>
  );
}

function FollowToggle({ disabled }: { disabled: boolean }) {
  const [following, paused] = useViewerStore(useShallow((s) => [s.following, s.followPaused]));
  return <FollowButton following={following} paused={paused} disabled={disabled} onToggle={() => useViewerStore.getState().setFollowing(!following)} />;
}

/** Copy link of the selected lines, else of the lines in view. */
function CopyViewLink() {
  const { path, selection, topLine, visibleLines } = useViewerStore(
    useShallow((s) => ({ path: s.info ? s.path : null, selection: s.selection, topLine: s.topLine, visibleLines: s.visibleLines })),
  );
  const bottomLine = Math.max(topLine, topLine + visibleLines - 1);
  return (
    <CopyLinkButton
      path={path}
      startLine={selection?.startLine ?? topLine}
      endLine={selection?.endLine ?? bottomLine}
      what={selection ? 'the selected lines' : 'the visible lines'}
    />
  );
}
