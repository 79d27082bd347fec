import { useEffect, useRef } from 'react';
import { FileProblem } from './components/FileProblem.tsx';
import { FileScrollbar } from './components/FileScrollbar.tsx';
import { FileView } from './components/FileView.tsx';
import { GoToLine } from './components/GoToLine.tsx';
import { OpenFileForm } from './components/OpenFileForm.tsx';
import { ReviewPanel } from './components/ReviewPanel.tsx';
import { StatusBar } from './components/StatusBar.tsx';
import { launchParamsOf } from './launch-params.ts';
import { useConnectionStore } from './stores/connection-store.ts';
import { useReviewStore } from './stores/review-store.ts';
import { useViewerStore } from './stores/viewer-store.ts';

const launch = launchParamsOf(window.location.search);

export function App() {
  const { path, info, error, loading, window: lines, topLine, visibleLines, openFile, goToLine } = useViewerStore();
  const channel = useConnectionStore((s) => s.channel);
  const goToInput = useRef<HTMLInputElement>(null);
  const focusGoTo = () => goToInput.current?.select();

  useEffect(() => {
    if (launch.file) void openFile(launch.file);
  }, [openFile]);

  useEffect(() => {
    void useReviewStore.getState().refresh();
    return useConnectionStore.getState().connect(() => {
      void useReviewStore.getState().refresh();
      void useViewerStore.getState().refresh();
    });
  }, []);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.shiftKey && event.key.toLowerCase() === 'g') {
        event.preventDefault();
        focusGoTo();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const showing = Boolean(info && lines && !error);
  return (
    <div className="app">
      <header className="app-header">
        <h1>Folio</h1>
        <OpenFileForm initialPath={launch.file ?? ''} onOpen={(p) => void openFile(p)} />
        <GoToLine ref={goToInput} totalLines={info?.lines ?? 0} onGo={(lineNo) => void goToLine(lineNo)} />
        <span className={`channel ${channel}`} data-testid="channel" title="pushed events">
          {channel === 'open' ? 'live' : channel}
        </span>
      </header>
      <main className="viewer" data-testid="viewer">
        <div className="viewer-body" hidden={!showing}>
          <FileView onGoToLineKey={focusGoTo} />
          <FileScrollbar
            topLine={topLine}
            visibleLines={visibleLines}
            totalLines={info?.lines ?? 0}
            onJump={(lineNo) => void goToLine(lineNo, { at: 'top', select: false })}
          />
        </div>
        {!showing && <FileProblem path={path} info={info} error={error} loading={loading} />}
      </main>
      <ReviewPanel />
      {info && <StatusBar info={info} topLine={topLine} visibleLines={visibleLines} />}
    </div>
  );
}
