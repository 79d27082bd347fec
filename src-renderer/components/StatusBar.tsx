import type { FileInfo } from '../../src-main/api/schemas.ts';
import { backendLabelOf, count, encodingLabelOf, newlineLabelOf, sizeLabelOf } from '../model/file-labels.ts';

/** One line of facts about the open file (file_info) and where the view is. */
export function StatusBar({ info, topLine, visibleLines }: { info: FileInfo; topLine: number; visibleLines: number }) {
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
