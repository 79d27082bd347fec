/**
 * The main editor's rows with a proposal's changes drawn inline, as VS Code and
 * Copilot review an edit in place: the added lines are rows of the editor
 * (decorated), the removed lines float above them in a view zone (not text of
 * the model). Rows are therefore no longer file lines: `fileLines[row - 1]` is the
 * file line a row shows, or null for an added row.
 */
import type { InlineChange } from './proposal-edits.ts';

export interface InlineZone {
  /** the zone goes after this row (0: above the first) */
  afterRow: number;
  change: InlineChange;
}

export interface InlineRows {
  text: string;
  /** per row (index row - 1): its file line, or null for an added line */
  fileLines: (number | null)[];
  zones: InlineZone[];
  /** rows (1-based) of each shown change's added lines: first..last (last < first: none added) */
  added: { change: InlineChange; firstRow: number; lastRow: number }[];
}

/**
 * The window `startLine..` (its `text`) with `changes` spliced in. A change is
 * shown only if all of it lies inside the window; overlapping ones after the
 * first are left out.
 */
export function inlineRowsOf(startLine: number, text: string, changes: InlineChange[]): InlineRows {
  const lines = text === '' ? [] : text.split('\n');
  const endLine = startLine + lines.length - 1;
  const shown: InlineChange[] = [];
  let freeFrom = startLine;
  for (const c of [...changes].sort((a, b) => a.startLine - b.startLine)) {
    const last = c.startLine + c.removed.length - 1;
    if (c.startLine < freeFrom || last > endLine || c.startLine > endLine + 1) continue;
    shown.push(c);
    freeFrom = Math.max(c.startLine, last + 1);
  }
  const out: string[] = [];
  const fileLines: (number | null)[] = [];
  const zones: InlineZone[] = [];
  const added: InlineRows['added'] = [];
  let next = 0;
  const putChange = (c: InlineChange) => {
    zones.push({ afterRow: out.length, change: c });
    const firstRow = out.length + 1;
    for (const a of c.added) {
      out.push(a);
      fileLines.push(null);
    }
    added.push({ change: c, firstRow, lastRow: out.length });
  };
  for (let k = 0; k < lines.length; k++) {
    const lineNo = startLine + k;
    const c = shown[next];
    if (c && c.startLine === lineNo) {
      putChange(c);
      next++;
      if (c.removed.length > 0) {
        k += c.removed.length - 1;
        continue;
      }
    }
    out.push(lines[k]!);
    fileLines.push(lineNo);
  }
  // An insert after the window's last line (the end of the file).
  for (; next < shown.length; next++) putChange(shown[next]!);
  return { text: out.join('\n'), fileLines, zones, added };
}

/** The row showing file line `lineNo`, or where it would be (the nearest row after it); clamped to the rows. */
export function rowOfFileLine(rows: Pick<InlineRows, 'fileLines'>, lineNo: number): number {
  const { fileLines } = rows;
  for (let i = 0; i < fileLines.length; i++) {
    const n = fileLines[i];
    if (n !== null && n !== undefined && n >= lineNo) return i + 1;
  }
  return Math.max(1, fileLines.length);
}

/** The file line of `row`, or for an added row the file line after it (else before it). */
export function fileLineOfRow(rows: Pick<InlineRows, 'fileLines'>, row: number): number {
  const { fileLines } = rows;
  const i = Math.min(Math.max(0, row - 1), fileLines.length - 1);
  for (let k = i; k < fileLines.length; k++) if (fileLines[k] != null) return fileLines[k]!;
  for (let k = i; k >= 0; k--) if (fileLines[k] != null) return fileLines[k]! + 1;
  return 1;
}
