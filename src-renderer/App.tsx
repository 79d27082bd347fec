import { useEffect, useMemo, useRef } from 'react';
import { useShallow } from 'zustand/shallow';
import { useReviewKeys } from './app-keys.ts';
import { FileDropZone } from './components/FileDropZone.tsx';
import { FileProblem } from './components/FileProblem.tsx';
import { FileView } from './components/FileView.tsx';
import { FilterPanel } from './components/FilterPanel.tsx';
import { FindPanel } from './components/FindPanel.tsx';
import { GoToLine } from './components/GoToLine.tsx';
import { HistogramPanel } from './components/HistogramPanel.tsx';
import { useLogKeys } from './components/LogKeys.tsx';
import { JsonLinePanel, LogToolPanels } from './components/LogTools.tsx';
import { LongLineBar, LongLinePanel } from './components/LongLineBar.tsx';
import { MergedView } from './components/MergedView.tsx';
import { OpenFileForm } from './components/OpenFileForm.tsx';
import { OutlinePanel } from './components/OutlinePanel.tsx';
import { RecentFiles } from './components/RecentFiles.tsx';
import { ReviewPanel } from './components/ReviewPanel.tsx';
import { IndexingStatusBar, StatusBar } from './components/StatusBar.tsx';
import { TabBar } from './components/TabBar.tsx';
import { ViewerScrollbar } from './components/ViewerScrollbar.tsx';
import { ViewerToolbar } from './components/ViewerToolbar.tsx';
import { launchParamsOf } from './launch-params.ts';
import type { GoToTarget } from './model/goto-target.ts';
import { useConnectionStore } from './stores/connection-store.ts';
import { useFilterStore } from './stores/filter-store.ts';
import { useFindStore } from './stores/find-store.ts';
import { useMergeStore } from './stores/merge-store.ts';
import { followViewerFile, useOutlineStore } from './stores/outline-store.ts';
import { useRecentStore } from './stores/recent-store.ts';
import { useReviewStore } from './stores/review-store.ts';
import { goToTime, useTimeStore } from './stores/time-store.ts';
import { useTabStore } from './stores/tab-store.ts';
import { useViewerStore, type ViewerState } from './stores/viewer-store.ts';

const launch = launchParamsOf(window.location.search);

/** Open a file chosen any way (recent files, a drop) in its tab. */
const openPath = (path: string) => void useTabStore.getState().open(path);
/** What the path box was given: a path, a locator or a link. */
const openText = (text: string) => void useTabStore.getState().openText(text);

/**
 * What the app's layout depends on of the viewer: which file, its facts, and
 * whether lines are showing. Not where the view is: scrolling changes topLine,
 * the window and the selection many times a second, and the parts that show
 * those (FileView, the scrollbar, the status bar, the toolbar's buttons)
 * subscribe to them themselves.
 */
export const appViewOf = (s: ViewerState) => ({
  path: s.path,
  info: s.info,
  indexing: s.indexing,
  error: s.error,
  loading: s.loading,
  showing: Boolean(s.window && !s.error),
});

const mergedShown = () => useTabStore.getState().tabs.some((t) => t.merged && t.id === useTabStore.getState().activeId);

/** A go to: a time answers why it could not be placed (GoToLine shows it), lines and bytes answer nothing. */
const go = (target: GoToTarget): Promise<string | null> | void => {
  const viewer = useViewerStore.getState();
  if (target.kind === 'time') return mergedShown() ? useMergeStore.getState().goToTime(target.time) : goToTime(target.time);
  void (target.kind === 'byte' ? viewer.goToByte(target.byte) : viewer.goToLine(target.lineNo));
};

/** Refresh the review queue and recent files, and follow the server's pushed events. */
function useServerEvents(): void {
  useEffect(() => {
    void useReviewStore.getState().refresh();
    void useRecentStore.getState().refresh();
    return useConnectionStore.getState().connect(
      (event) => {
        if (event.type === 'open_file') {
          const lines = event.lines ? { startLine: event.lines.start, endLine: event.lines.end } : null;
          void useTabStore.getState().open(event.path, lines);
          return;
        }
        void useReviewStore.getState().refresh();
        void useViewerStore.getState().refresh();
      },
      () => void useReviewStore.getState().refresh(),
    );
  }, []);
  useEffect(() => followViewerFile(), []);
}

export function App() {
  const { path, info, indexing, error, loading, showing } = useViewerStore(useShallow(appViewOf));
  const findOpen = useFindStore((s) => s.open);
  const filterOpen = useFilterStore((s) => s.open);
  const histogramOpen = useTimeStore((s) => s.open);
  const outlineApplies = useOutlineStore((s) => s.applies);
  const outlineWanted = useOutlineStore((s) => s.wanted);
  const channel = useConnectionStore((s) => s.channel);
  const recent = useRecentStore((s) => s.entries);
  const merged = useTabStore((s) => s.tabs.some((t) => t.merged && t.id === s.activeId));
  const pathInput = useRef<HTMLInputElement>(null);
  const goToInput = useRef<HTMLInputElement>(null);
  const findInput = useRef<HTMLInputElement>(null);
  const actions = useMemo(
    () => ({
      focusGoTo: () => goToInput.current?.select(),
      focusPath: () => pathInput.current?.select(),
      openFind: () => {
        useFindStore.getState().show();
        requestAnimationFrame(() => findInput.current?.select());
      },
      toggleOutline: () => {
        if (useOutlineStore.getState().applies) useOutlineStore.getState().toggle();
      },
    }),
    [],
  );
  const onLogKey = useLogKeys(actions);
  useServerEvents();
  useReviewKeys();

  const showOutline = outlineApplies && outlineWanted;
  return (
    <div className="app">
      <header className="app-header">
        <h1>Folio</h1>
        <OpenFileForm ref={pathInput} currentPath={path ?? launch.file ?? ''} onOpen={openText} />
        <RecentFiles entries={recent} onShow={() => void useRecentStore.getState().refresh()} onOpen={openPath} />
        <TabBar />
        <GoToLine ref={goToInput} totalLines={info?.lines ?? 0} fileBytes={info?.size ?? 0} onGo={go} />
        <span className={`channel ${channel}`} data-testid="channel" title="pushed events">
          {channel === 'open' ? 'live' : channel}
        </span>
      </header>
      {showOutline && (
        <OutlinePanel onShowLine={(lineNo) => void useViewerStore.getState().goToLine(lineNo, { at: 'top', select: true })} onClose={actions.toggleOutline} />
      )}
      {merged && <MergedView />}
      <main className="viewer" data-testid="viewer" hidden={merged}>
        <ViewerToolbar
          hasFile={Boolean(info)}
          outline={{ open: showOutline, applies: outlineApplies }}
          onFind={actions.openFind}
          onToggleOutline={actions.toggleOutline}
        />
        {findOpen && <FindPanel ref={findInput} />}
        <LogToolPanels />
        {filterOpen && showing && <FilterPanel />}
        {histogramOpen && showing && <HistogramPanel />}
        {showing && <LongLineBar />}
        <div className="viewer-body" hidden={!showing}>
          <FileView onKey={onLogKey} />
          <ViewerScrollbar />
        </div>
        <LongLinePanel />
        <JsonLinePanel />
        {!showing && <FileProblem path={path} info={info} error={error} loading={loading} />}
      </main>
      <ReviewPanel />
      {info && !merged && <StatusBar info={info} />}
      {!info && path && indexing && <IndexingStatusBar path={path} indexing={indexing} />}
      <FileDropZone onOpen={openPath} />
    </div>
  );
}
