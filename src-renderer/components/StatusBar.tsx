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
      <EncodingMenu info={info} />
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

/** Encodings a file read by bytes can be read in instead of the detected one (read's `encoding`). */
const DECODERS = [
  'utf-8',
  'windows-1252',
  'iso-8859-15',
  'iso-8859-2',
  'windows-1250',
  'windows-1251',
  'koi8-r',
  'shift_jis',
  'euc-jp',
  'gb18030',
  'big5',
  'euc-kr',
];

/**
 * The file's encoding, and for a file read by bytes (not binary, not UTF-16) a menu
 * to read it in another one when detection is wrong (French windows-1252 is detected
 * as iso-8859-2), as klogg has.
 */
function EncodingMenu({ info }: { info: FileInfo }) {
  const decodeAs = useViewerStore((s) => s.decodeAs);
  const label = decodeAs ? `${decodeAs} (chosen; detected ${info.encoding})` : encodingLabelOf(info);
  if (info.binary.is_binary || info.encoding.startsWith('utf-16')) return <span data-testid="file-encoding">{label}</span>;
  return (
    <span className="encoding-menu">
      <span data-testid="file-encoding">{label}</span>
      <select
        aria-label="Read the file as"
        title="Read the file as another encoding"
        data-testid="file-encoding-select"
        value={decodeAs ?? ''}
        onChange={(e) => void useViewerStore.getState().setDecodeAs(e.target.value || null)}
      >
        <option value="">as detected</option>
        {DECODERS.filter((d) => d !== info.encoding).map((d) => (
          <option key={d} value={d}>
            {d}
          </option>
        ))}
      </select>
    </span>
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
