/**
 * The preview an agent gets: the unified diff of its edit without the file header
 * (the answer names the path) and with one unchanged line around each change
 * instead of three, hunks split and renumbered where the context between them
 * goes. An edit answer costs the agent's context on every call; the full diff is
 * the table's (`folio edit --json`, HTTP), and any line is a read away.
 */

/** Unchanged lines kept on each side of a change. */
const CONTEXT = 1;

interface BodyLine {
  text: string;
  /** old and new line numbers of this line (the next ones for lines not on that side) */
  oldNo: number;
  newNo: number;
}

/** `preview` (a unified diff) with CONTEXT lines of context; a preview that is no diff (a summary) as it is. */
export function compactPreview(preview: string): string {
  const lines = preview.split('\n');
  if (!lines.some((l) => l.startsWith('@@ '))) return preview;
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const h = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(lines[i]!);
    if (!h) {
      // A file's header (Index:, ===, ---, +++: the answer names the path) or the end.
      i++;
      continue;
    }
    // An empty side is numbered by the line before it (diff(1)): its next line is one on.
    let oldNo = Number(h[1]) + (h[2] === '0' ? 1 : 0);
    let newNo = Number(h[3]) + (h[4] === '0' ? 1 : 0);
    // The header's counts say where the hunk ends: a removed line may itself start with "---".
    let oldLeft = h[2] === undefined ? 1 : Number(h[2]);
    let newLeft = h[4] === undefined ? 1 : Number(h[4]);
    const body: BodyLine[] = [];
    for (i++; i < lines.length; i++) {
      const t = lines[i]!;
      if (t.startsWith('\\')) {
        body.push({ text: t, oldNo, newNo });
        continue;
      }
      if (oldLeft <= 0 && newLeft <= 0) break;
      body.push({ text: t, oldNo, newNo });
      if (t.startsWith('-')) {
        oldNo++;
        oldLeft--;
      } else if (t.startsWith('+')) {
        newNo++;
        newLeft--;
      } else {
        oldNo++;
        newNo++;
        oldLeft--;
        newLeft--;
      }
    }
    out.push(...compactHunk(body));
  }
  return out.join('\n') + (preview.endsWith('\n') ? '\n' : '');
}

const isChange = (t: string) => t.startsWith('-') || t.startsWith('+');

/** One hunk's lines with CONTEXT lines around its changes, as one or more hunks with their headers. */
function compactHunk(body: BodyLine[]): string[] {
  const keep = body.map(() => false);
  for (let k = 0; k < body.length; k++) {
    if (!isChange(body[k]!.text)) continue;
    keep[k] = true;
    // Context on each side, counted in unchanged lines; a "\ No newline" marker goes with the line before it.
    for (let j = k - 1, n = 0; j >= 0 && n < CONTEXT; j--) {
      keep[j] = true;
      if (body[j]!.text.startsWith(' ')) n++;
    }
    for (let j = k + 1, n = 0; j < body.length && n < CONTEXT; j++) {
      keep[j] = true;
      if (body[j]!.text.startsWith(' ')) n++;
    }
  }
  for (let k = 1; k < body.length; k++) if (body[k]!.text.startsWith('\\') && keep[k - 1]) keep[k] = true;
  const out: string[] = [];
  for (let k = 0; k < body.length;) {
    if (!keep[k]) {
      k++;
      continue;
    }
    let end = k;
    while (end < body.length && keep[end]) end++;
    const run = body.slice(k, end);
    const oldCount = run.filter((l) => l.text.startsWith(' ') || l.text.startsWith('-')).length;
    const newCount = run.filter((l) => l.text.startsWith(' ') || l.text.startsWith('+')).length;
    // As diff(1) numbers an empty side: the line before it.
    const oldStart = oldCount ? run[0]!.oldNo : run[0]!.oldNo - 1;
    const newStart = newCount ? run[0]!.newNo : run[0]!.newNo - 1;
    out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`, ...run.map((l) => l.text));
    k = end;
  }
  return out;
}

/** A created file's preview as a line: its hunk header and how many lines it has (the text is the agent's own). */
export function newFileSummary(preview: string): string {
  const h = /^@@ -0,0 \+1,(\d+) @@/m.exec(preview);
  return h ? `${h[0]} (new file, ${h[1]} line${h[1] === '1' ? '' : 's'} as sent)\n` : compactPreview(preview);
}
