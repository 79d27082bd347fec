import { useEffect } from 'react';
import { FileInfoPanel } from './components/FileInfoPanel.tsx';
import { OpenFileForm } from './components/OpenFileForm.tsx';
import { launchParamsOf } from './launch-params.ts';
import { useViewerStore } from './stores/viewer-store.ts';

const launch = launchParamsOf(window.location.search);

export function App() {
  const { path, info, error, loading, openFile } = useViewerStore();
  useEffect(() => {
    if (launch.file) void openFile(launch.file);
  }, [openFile]);
  return (
    <main className="app">
      <header className="app-header">
        <h1>Folio</h1>
        <OpenFileForm initialPath={launch.file ?? ''} onOpen={(p) => void openFile(p)} />
      </header>
      <FileInfoPanel path={path} info={info} error={error} loading={loading} />
    </main>
  );
}
