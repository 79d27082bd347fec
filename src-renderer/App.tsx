import { useEffect, useMemo, useRef } from 'react';
import { CopyLinkButton } from './components/CopyLinkButton.tsx';
import { FileDropZone } from './components/FileDropZone.tsx';
import { FileProblem } from './components/FileProblem.tsx';
import { FileScrollbar } from './components/FileScrollbar.tsx';
import { FileView } from './components/FileView.tsx';
import { FilterPanel } from './components/FilterPanel.tsx';
import { FindPanel } from './components/FindPanel.tsx';
import { FollowButton } from './components/FollowButton.tsx';
import { GoToLine } from './components/GoToLine.tsx';
import { HistogramPanel } from './components/HistogramPanel.tsx';
import { LineJumpChips } from './components/LineJumpChips.tsx';
import { useLogKeys } from './components/LogKeys.tsx';
import { JsonLinePanel, LogToolButtons, LogToolPanels } from './components/LogTools.tsx';
import { LongLineBar, LongLinePanel } from './components/LongLineBar.tsx';
import { OpenFileForm } from './components/OpenFileForm.tsx';
import { OutlineButton } from './components/OutlineButton.tsx';
import { OutlinePanel } from './components/OutlinePanel.tsx';
import { RecentFiles } from './components/RecentFiles.tsx';
import { ReviewPanel } from './components/ReviewPanel.tsx';
import { IndexingStatusBar, StatusBar } from './components/StatusBar.tsx';
import { TabBar } from './components/TabBar.tsx';
import { launchParamsOf } from './launch-params.ts';
import { regionMarksOf } from './model/change-order.ts';
import { reviewKeyOf, type KeyPlace } from './model/review-keys.ts';
import { decideFocused, stepReview } from './stores/review-flow.ts';
import type { GoToTarget } from './model/goto-target.ts';
import { useConnectionStore } from './stores/connection-store.ts';
import { useFilterStore } from './stores/filter-store.ts';
import { useFindStore } from './stores/find-store.ts';
import { useMarksStore } from './stores/marks-store.ts';
import { followViewerFile, useOutlineStore } from './stores/outline-store.ts';
import { useRecentStore } from './stores/recent-store.ts';
import { useReviewStore } from './stores/review-store.ts';
import { goToTime, useTimeStore } from './stores/time-store.ts';
import { useTabStore } from './stores/tab-store.ts';
import { useViewerStore } from './stores/viewer-store.ts';

const launch = launchParamsOf(window.location.search);

/** Where a key was pressed, for the review keys: the file view, a text box (inputs, editors), or elsewhere. */
function keyPlaceOf(target: Element | null): KeyPlace {
  if (!target) return 'other';
  if (target.closest('[data-testid="file-view"]')) return 'file-view';
  if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return 'text-box';
  if ((target as HTMLElement).isContentEditable || target.closest('.monaco-editor')) return 'text-box';
  return 'other';
}
/** Open a file chosen any way (the path box, recent files, a drop, the Electron menu) in its tab. */
const openPath = (path: string) => void useTabStore.getState().open(path);
/** No marked lines (one array, so the store selector's answer stays the same). */
const NO_LINES: readonly number[] = [];

export function App() {
  const {
    path,
    info,
    indexing,
    error,
    loading,
    window: lines,
    topLine,
    visibleLines,
    following,
    followPaused,
    selection,
    goToLine,
    goToByte,
    moveBy,
    setFollowing,
  } = useViewerStore();
  const findOpen = useFindStore((s) => s.open);
  const filterOpen = useFilterStore((s) => s.open);
  const histogramOpen = useTimeStore((s) => s.open);
  const outlineApplies = useOutlineStore((s) => s.applies);
  const outlineWanted = useOutlineStore((s) => s.wanted);
  const channel = useConnectionStore((s) => s.channel);
  const recent = useRecentStore((s) => s.entries);
  const queue = useReviewStore((s) => s.queue);
  const selectedId = useReviewStore((s) => s.selectedId);
  const marks = useMemo(() => regionMarksOf(queue, path, selectedId), [queue, path, selectedId]);
  const markedLines = useMarksStore((s) => (s.path === path ? s.lines : NO_LINES));
  const pathInput = useRef<HTMLInputElement>(null);
  const goToInput = useRef<HTMLInputElement>(null);
  const findInput = useRef<HTMLInputElement>(null);
  const focusGoTo = () => goToInput.current?.select();
  const focusPath = () => pathInput.current?.select();
  const openFind = () => {
    useFindStore.getState().show();
    requestAnimationFrame(() => findInput.current?.select());
  };
  const toggleOutline = () => {
    if (useOutlineStore.getState().applies) useOutlineStore.getState().toggle();
  };
  const onLogKey = useLogKeys({ focusGoTo, openFind, toggleOutline });
  const go = (target: GoToTarget) =>
    target.kind === 'time' ? goToTime(target.time) : void (target.kind === 'byte' ? goToByte(target.byte) : goToLine(target.lineNo));

  useEffect(() => {
    void useReviewStore.getState().refresh();
    void useRecentStore.getState().refresh();
    return useConnectionStore.getState().connect(
      (event) => {
        if (event.type === 'open_file') {
          openPath(event.path);
          if (event.lines) void useViewerStore.getState().showLines({ startLine: event.lines.start, endLine: event.lines.end });
          return;
        }
        void useReviewStore.getState().refresh();
        void useViewerStore.getState().refresh();
      },
      () => void useReviewStore.getState().refresh(),
    );
  }, []);

  useEffect(() => followViewerFile(), []);

  useEffect(() => {
    // Capture: before Monaco, which binds Tab and Ctrl+Enter itself.
    const onKey = (event: KeyboardEvent) => {
      const target = event.target instanceof Element ? event.target : null;
      // Dialogs (help, the 3-way view, the approve question) keep their keys.
      if (target?.closest('[role="dialog"], [role="alertdialog"]')) return;
      const action = reviewKeyOf(event, keyPlaceOf(target));
      if (!action) return;
      const review = useReviewStore.getState();
      if ((action === 'accept' || action === 'reject') && !review.selected && !review.focus) return;
      event.preventDefault();
      event.stopPropagation();
      if (action === 'help') review.setHelpOpen(!review.helpOpen);
      else if (action === 'files') review.setFilesOpen(!review.filesOpen);
      else if (action === 'undo') void review.undo();
      else if (action === 'redo') void review.redo();
      else if (action === 'next' || action === 'previous') void stepReview(action === 'next' ? 1 : -1);
      else void decideFocused(action);
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, []);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.altKey) return;
      const key = event.key.toLowerCase();
      if (event.shiftKey) {
        if (key === 'o') {
          // VS Code's "go to symbol" key; Monaco's own binding is taken over in FileView.
          event.preventDefault();
          toggleOutline();
        }
        return;
      }
      if (key === 'g') {
        event.preventDefault();
        focusGoTo();
      } else if (key === 'f') {
        event.preventDefault();
        openFind();
      } else if (key === 'o') {
        // In Electron the File menu's accelerator shows the Open dialog instead.
        event.preventDefault();
        focusPath();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const showing = Boolean(lines && !error);
  const showOutline = outlineApplies && outlineWanted;
  const bottomLine = Math.max(topLine, topLine + visibleLines - 1);
  return (
    <div className="app">
      <header className="app-header">
        <h1>Folio</h1>
        <OpenFileForm ref={pathInput} currentPath={path ?? launch.file ?? ''} onOpen={openPath} />
        <RecentFiles entries={recent} onShow={() => void useRecentStore.getState().refresh()} onOpen={openPath} />
        <TabBar />
        <GoToLine ref={goToInput} totalLines={info?.lines ?? 0} fileBytes={info?.size ?? 0} onGo={go} />
        <span className={`channel ${channel}`} data-testid="channel" title="pushed events">
          {channel === 'open' ? 'live' : channel}
        </span>
      </header>
      {showOutline && <OutlinePanel topLine={topLine} onShowLine={(lineNo) => void goToLine(lineNo, { at: 'top', select: true })} onClose={toggleOutline} />}
      <main className="viewer" data-testid="viewer">
        <div className="viewer-toolbar">
          <LineJumpChips disabled={!info} onMove={(delta) => void moveBy(delta)} />
          <FollowButton following={following} paused={followPaused} disabled={!info} onToggle={() => setFollowing(!following)} />
          <CopyLinkButton
            path={info ? path : null}
            startLine={selection?.startLine ?? topLine}
            endLine={selection?.endLine ?? bottomLine}
            what={selection ? 'the selected lines' : 'the visible lines'}
          />
          <button type="button" data-testid="find-open" onClick={openFind} title="Find in the whole file (Ctrl+F)">
            Find
          </button>
          <button
            type="button"
            data-testid="filter-open"
            aria-pressed={filterOpen}
            disabled={!info}
            onClick={() => useFilterStore.getState().toggle()}
            title="Show only the lines matching filters and levels (Ctrl+Shift+F)"
          >
            Filter
          </button>
          <button
            type="button"
            data-testid="histogram-open"
            aria-pressed={histogramOpen}
            disabled={!info}
            onClick={() => useTimeStore.getState().toggle()}
            title="Lines per level over time, for the whole file; click a bar to go there (Ctrl+Shift+H)"
          >
            Histogram
          </button>
          <OutlineButton open={showOutline} disabled={!outlineApplies} onToggle={toggleOutline} />
          <LogToolButtons disabled={!info} />
        </div>
        {findOpen && <FindPanel ref={findInput} />}
        <LogToolPanels />
        {filterOpen && showing && <FilterPanel />}
        {histogramOpen && showing && <HistogramPanel />}
        {showing && <LongLineBar />}
        <div className="viewer-body" hidden={!showing}>
          <FileView onKey={onLogKey} />
          <FileScrollbar
            topLine={topLine}
            visibleLines={visibleLines}
            totalLines={info?.lines ?? 0}
            marks={marks}
            markedLines={markedLines}
            onJump={(lineNo) => void goToLine(lineNo, { at: 'top', select: false })}
          />
        </div>
        <LongLinePanel />
        <JsonLinePanel />
        {!showing && <FileProblem path={path} info={info} error={error} loading={loading} />}
      </main>
      <ReviewPanel />
      {info && <StatusBar info={info} topLine={topLine} visibleLines={visibleLines} />}
      {!info && path && indexing && <IndexingStatusBar path={path} indexing={indexing} />}
      <FileDropZone onOpen={openPath} />
    </div>
  );
}
