import type { FileInfo } from '../../src-main/api/schemas.ts';
import { useShallow } from 'zustand/shallow';
import { useViewerStore, type IndexingProgress } from '../stores/viewer-store.ts';
import { backendLabelOf, count, encodingLabelOf, newlineLabelOf, sizeLabelOf } from '../model/file-labels.ts';

/** One line of facts about the open file (file_info) and where the view is (it follows the scroll, the app does not). */
export function StatusBar({ info }: { info: FileInfo }) {
  const [topLine, visibleLines] = useViewerStore(useShallow((s) => [s.topLine, s.visibleLines]));
  const bottomLine = Math.min(info.lines, topLine + Math.max(0, visibleLines - 1));
  return (
    <footer className="status-bar" data-testid="status-bar">
      <span className="path" data-testid="file-path" title={info.path}>
        {info.path}
      </span>
      <span>
        Lines <span data-testid="view-top-line">{count.format(topLine)}</span>–{count.format(bottomLine)} of{' '}
        <span data-testid="file-lines">{count.format(info.lines)}</span>
      </span>
      <span data-testid="file-size">{sizeLabelOf(info.size)}</span>
      <span data-testid="file-encoding">{encodingLabelOf(info)}</span>
      <span data-testid="file-newline">{newlineLabelOf(info)}</span>
      {info.backend && (
        <span data-testid="file-backend" title={`the line index came from: ${info.backend.index_from}`}>
          {backendLabelOf(info.backend)}
        </span>
      )}
      <span>
        version <code data-testid="file-version">{info.version.etag}</code>
      </span>
    </footer>
  );
}

/**
 * The status bar before file_info answers, while the open file is indexed (a remote
 * value streamed once): its first lines are shown already; the line count is not
 * known, so none is shown, only how far the index build is.
 */
export function IndexingStatusBar({ path, indexing }: { path: string; indexing: IndexingProgress }) {
  const percent = indexing.totalBytes > 0 ? Math.floor((100 * indexing.bytesDone) / indexing.totalBytes) : 0;
  return (
    <footer className="status-bar" data-testid="status-bar">
      <span className="path" data-testid="file-path" title={path}>
        {path}
      </span>
      <span>
        Lines: <span data-testid="file-lines">counting…</span>
      </span>
      <span
        data-testid="indexing-progress"
        title={
          indexing.stage === 'decompressing'
            ? `${count.format(indexing.bytesDone)} of ${count.format(indexing.totalBytes)} compressed bytes decompressed into Folio's cache`
            : `${count.format(indexing.bytesDone)} of ${count.format(indexing.totalBytes)} bytes streamed for the line index`
        }
      >
        {indexing.stage ?? 'indexing'} {percent}% of {sizeLabelOf(indexing.totalBytes)}
      </span>
    </footer>
  );
}
