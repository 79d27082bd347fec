/**
 * The two sides of a unified diff (the `preview` of an upsert or a proposal), for
 * a side-by-side view: the text before and after, and for each side the file's
 * line number of every shown line (hunks are numbered as in the file).
 * Format: GNU diffutils "Detailed Description of Unified Format".
 */
export interface DiffSides {
  original: string;
  modified: string;
  /** originalLineNos[i] is the file line of shown original line i + 1 */
  originalLineNos: number[];
  modifiedLineNos: number[];
  /** true when the preview holds no hunk (a summary of a region too big to diff) */
  summaryOnly: boolean;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

export function diffSidesOf(preview: string): DiffSides {
  const original: string[] = [];
  const modified: string[] = [];
  const originalLineNos: number[] = [];
  const modifiedLineNos: number[] = [];
  let oldLineNo = 0;
  let newLineNo = 0;
  let inHunk = false;
  // Lines each side of the current hunk still to come: a hunk ends when both are used up, so the
  // `--- a` / `+++ b` header of the next file's diff (a proposal of several edits) is not read as lines.
  let oldLeft = 0;
  let newLeft = 0;
  let sawHunk = false;
  for (const line of preview.split('\n')) {
    const header = HUNK_HEADER.exec(line);
    if (header) {
      oldLineNo = Number(header[1]);
      newLineNo = Number(header[3]);
      oldLeft = header[2] === undefined ? 1 : Number(header[2]);
      newLeft = header[4] === undefined ? 1 : Number(header[4]);
      inHunk = sawHunk = true;
      continue;
    }
    if (!inHunk || (oldLeft <= 0 && newLeft <= 0)) continue;
    const mark = line[0];
    const text = line.slice(1);
    if (mark === ' ') {
      original.push(text);
      originalLineNos.push(oldLineNo++);
      modified.push(text);
      modifiedLineNos.push(newLineNo++);
      oldLeft--;
      newLeft--;
    } else if (mark === '-') {
      original.push(text);
      originalLineNos.push(oldLineNo++);
      oldLeft--;
    } else if (mark === '+') {
      modified.push(text);
      modifiedLineNos.push(newLineNo++);
      newLeft--;
    }
    // "\ No newline at end of file" and blank trailing lines carry no text
  }
  if (!sawHunk) return { original: preview, modified: preview, originalLineNos: [], modifiedLineNos: [], summaryOnly: true };
  return { original: original.join('\n'), modified: modified.join('\n'), originalLineNos, modifiedLineNos, summaryOnly: false };
}
