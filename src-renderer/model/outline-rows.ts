/**
 * What the outline panel shows: whether a file has an outline (markdown, by its
 * name), which headings pass the filter, which heading's section holds a line,
 * and which rows of a long list are in view (fixed row height, so tens of
 * thousands of headings cost only the rows on screen).
 */

/** The fields of an `outline` heading the panel needs. */
export interface HeadingRow {
  level: number;
  text: string;
  line: number;
  end_line: number;
}

const MARKDOWN_NAME = /\.(md|markdown|mdx|mdown|mkd|mkdn)$/i;

/** Markdown by its name, as editors decide (the engine parses any text it is given). */
export function isMarkdownPath(path: string | null): boolean {
  return path !== null && MARKDOWN_NAME.test(path);
}

/** Indices of the headings whose text contains `query` (case-insensitive); every index when the query is blank. */
export function filteredIndicesOf(texts: readonly string[], query: string): number[] {
  const needle = query.trim().toLowerCase();
  const out: number[] = [];
  for (let i = 0; i < texts.length; i++) if (!needle || texts[i]!.includes(needle)) out.push(i);
  return out;
}

/**
 * The heading whose section holds `lineNo`, deepest first: the last heading that
 * starts at or before it. Its section runs at least to the line before the next
 * heading, so it always holds `lineNo`. -1 before the first heading.
 * `headings` are in file order, as `outline` answers.
 */
export function headingIndexAt(headings: readonly HeadingRow[], lineNo: number): number {
  let lo = 0;
  let hi = headings.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (headings[mid]!.line <= lineNo) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** The row showing heading `index` among the filtered `rows` (ascending heading indices), or -1 when filtered out. */
export function rowOfHeading(rows: readonly number[], index: number): number {
  let lo = 0;
  let hi = rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = rows[mid]!;
    if (v === index) return mid;
    if (v < index) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Rows [first, end) to render for a list scrolled to `scrollTop`, with `overscan` rows either side. */
export function visibleRowsOf(scrollTop: number, viewportPx: number, rowPx: number, totalRows: number, overscan = 8): { first: number; end: number } {
  const first = Math.min(totalRows, Math.max(0, Math.floor(scrollTop / rowPx) - overscan));
  const end = Math.min(totalRows, Math.ceil((scrollTop + viewportPx) / rowPx) + overscan);
  return { first, end: Math.max(first, end) };
}

/** The scrollTop that brings row `row` into view, centred, or null when it is already fully in view. */
export function scrollTopToShow(row: number, scrollTop: number, viewportPx: number, rowPx: number): number | null {
  const top = row * rowPx;
  if (top >= scrollTop && top + rowPx <= scrollTop + viewportPx) return null;
  return Math.max(0, top - Math.floor((viewportPx - rowPx) / 2));
}
