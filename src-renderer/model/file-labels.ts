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

/** "3 min ago" for an ISO time, relative to `now` (ms). */
export function ageLabelOf(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.round(hours / 24)} d ago`;
}
