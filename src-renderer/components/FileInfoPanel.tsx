import type { FileInfo, NewlineStyle } from '../../src-main/api/schemas.ts';
import type { ErrorPayload } from '../transport.ts';

const count = new Intl.NumberFormat('en-US');

const NEWLINE_LABELS: Record<NewlineStyle, string> = {
  none: 'none',
  lf: 'LF',
  crlf: 'CRLF',
  cr: 'CR',
  mixed: 'mixed',
};

/** "12,345 bytes (12.1 KiB)" */
export function sizeLabelOf(bytes: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = '';
  for (const next of units) {
    if (value < 1024) break;
    value /= 1024;
    unit = next;
  }
  const exact = `${count.format(bytes)} bytes`;
  return unit ? `${exact} (${value.toFixed(1)} ${unit})` : exact;
}

export function encodingLabelOf(info: FileInfo): string {
  if (info.binary.isBinary) return `binary${info.binary.type ? ` (${info.binary.type})` : ''}`;
  const bom = info.bom ? ' with BOM' : '';
  const invalid = info.utf8.valid ? '' : `, invalid at byte ${count.format(info.utf8.firstInvalidOffset ?? 0)}`;
  return `${info.encoding}${bom}${invalid}`;
}

/** What file_info says about the open file, or why it could not say. */
export function FileInfoPanel({
  path,
  info,
  error,
  loading,
}: {
  path: string | null;
  info: FileInfo | null;
  error: ErrorPayload | null;
  loading: boolean;
}) {
  if (error) {
    return (
      <section className="file-info-panel error" data-testid="file-info-error" role="alert">
        <h2>Cannot open {path}</h2>
        <p>
          <code>{error.code}</code> {error.message}
        </p>
      </section>
    );
  }
  if (!info) {
    return (
      <section className="file-info-panel empty" data-testid="file-info-empty">
        <p>{loading ? `Reading ${path ?? ''}…` : 'No file open. Type a path above.'}</p>
      </section>
    );
  }
  const rows: [string, string, string][] = [
    ['path', 'Path', info.path],
    ['size', 'Size', sizeLabelOf(info.size)],
    ['lines', 'Lines', count.format(info.lines)],
    ['encoding', 'Encoding', encodingLabelOf(info)],
    ['newline', 'Newlines', `${NEWLINE_LABELS[info.newlineStyle]}${info.finalNewline ? '' : ', no final newline'}`],
    ['version', 'Version', info.version.etag],
  ];
  return (
    <section className="file-info-panel" data-testid="file-info-panel" aria-busy={loading}>
      <dl>
        {rows.map(([key, label, value]) => (
          <div className="row" key={key}>
            <dt>{label}</dt>
            <dd data-testid={`file-${key}`}>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
