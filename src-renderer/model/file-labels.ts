/** How file facts read in the UI: sizes, encodings, newline styles. */
import type { FileInfo, NewlineStyle } from '../../src-main/api/schemas.ts';

export const count = new Intl.NumberFormat('en-US');

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

/**
 * "utf-8", "utf-16le with BOM", "windows-1252 (detected, 92%)", "utf-8, invalid at
 * byte 1,234". Invalid UTF-8 is only news for a file read as UTF-8: a UTF-16 or
 * legacy-encoded file is not valid UTF-8 by nature and was decoded correctly.
 */
export function encodingLabelOf(info: FileInfo): string {
  if (info.binary.is_binary) return `binary${info.binary.type ? ` (${info.binary.type})` : ''}`;
  const bom = info.bom ? ' with BOM' : '';
  const detected = info.encoding_confidence !== undefined ? ` (detected, ${Math.round(info.encoding_confidence * 100)}%)` : '';
  const readAsUtf8 = info.encoding === 'utf-8' || info.encoding === 'unknown';
  const invalid = readAsUtf8 && !info.utf8.valid ? `, invalid at byte ${count.format(info.utf8.first_invalid_offset ?? 0)}` : '';
  return `${info.encoding}${bom}${detected}${invalid}`;
}

/** "LF", "CRLF, no final newline" */
export function newlineLabelOf(info: FileInfo): string {
  return `${NEWLINE_LABELS[info.newline_style]}${info.final_newline ? '' : ', no final newline'}`;
}

const BACKEND_NAMES: Record<string, string> = { pg: 'PostgreSQL row', az: 'Azure blob', s3: 'S3 object' };

/**
 * Where a remote value lives and its own version: "Azure blob, ETag "0x8DC…"",
 * "PostgreSQL row, xmin 812, ctid (0,3)" (the row version follow mode polls).
 */
export function backendLabelOf(backend: NonNullable<FileInfo['backend']>): string {
  const name = BACKEND_NAMES[backend.scheme] ?? `${backend.scheme}://`;
  if (backend.scheme !== 'pg') return `${name}, ETag ${backend.version}`;
  const at = backend.version.indexOf('@');
  return at < 0 ? `${name}, xmin ${backend.version}` : `${name}, xmin ${backend.version.slice(0, at)}, ctid ${backend.version.slice(at + 1)}`;
}

/**
 * A tab's name: a file's base name; a blob's or object's last name segment; a
 * PostgreSQL value's KEY/COLUMN (its column alone says little).
 */
export function tabNameOf(path: string): string {
  const pg = /^pg:\/\/[^/]+\/([^/]+)\/([^/]+)$/.exec(path);
  if (pg) return `${pg[1]}/${pg[2]}`;
  return path.split(/[\\/]/).pop() || path;
}

/** "3 min ago" for an ISO time, relative to `now` (ms). */
export function ageLabelOf(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.round(hours / 24)} d ago`;
}
