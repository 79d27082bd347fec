/**
 * The app page with the launch file's first lines already in it. When the page is
 * opened as `/?file=PATH` with the page cookie (the printed `/?token=…&file=PATH`
 * redirects there, see door-auth.ts), the server reads the same first window the
 * renderer would ask for (`read {start_byte: 0, max_bytes: 65536}`) and puts it in
 * the HTML twice:
 * - as rows of plain numbered text inside #root, in the markup PlainLines renders,
 *   so the browser paints the file as soon as the HTML and its stylesheet arrive,
 *   before any script runs (React replaces them with the same rows when it mounts);
 * - as JSON in `<script type="application/json" id="folio-first-window">`, which
 *   the renderer adopts instead of asking for that read again.
 *
 * The read has a time budget: if it isn't answered within FIRST_WINDOW_BUDGET_MS
 * (a cold disk, a path that blocks), the plain page is sent and the renderer reads
 * as usual. Any error is left to the renderer too, which shows it properly.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { handle, type Actor } from '../../api/handle.ts';
import type { ReadOutput } from '../../api/schemas.ts';

export const FIRST_WINDOW_BYTES = 16_384;
/** Rows painted from the HTML: enough for any viewport (PlainLines paints the same count). */
const HTML_ROWS = 120;
const FIRST_WINDOW_BUDGET_MS = 60;

export interface FirstWindow {
  path: string;
  read: ReadOutput;
  /** the workspace has no review state yet: the app's review panel starts collapsed, and the shell draws it so */
  reviewEmpty?: boolean;
}

/** The first window of `path`, or null when it's not there within the budget (or is not whole lines of text). */
export async function firstWindowOf(path: string, actor: Actor, workspace: string): Promise<FirstWindow | null> {
  const read = handle('read', { path, start_byte: 0, max_bytes: FIRST_WINDOW_BYTES }, actor, { workspace }).catch(() => null);
  const review = reviewEmptyOf(actor, workspace);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolveLate) => {
    timer = setTimeout(() => resolveLate(null), FIRST_WINDOW_BUDGET_MS);
  });
  const answer = await Promise.race([read, late]);
  clearTimeout(timer);
  if (!answer || answer.line_cut || answer.content === '') return null;
  // Nothing to review and nothing applied: the app's panel is a rail and the viewer wider (its toolbar
  // one row shorter). Not known within the budget: drawn open, as the app draws it with anything in it.
  const empty = await Promise.race([review, new Promise<boolean>((r) => setTimeout(() => r(false), 0))]);
  return { path, read: answer, reviewEmpty: empty };
}

/** Whether the review panel starts collapsed (ReviewPanel.tsx: no proposal waiting, no applied edit, no damaged data). */
async function reviewEmptyOf(actor: Actor, workspace: string): Promise<boolean> {
  try {
    const [list, history] = await Promise.all([handle('review_list', {}, actor, { workspace }), handle('review_history', {}, actor, { workspace })]);
    const waiting = list.proposals.some((p) => p.status === 'pending' || p.status === 'conflict');
    return !waiting && list.damaged.length === 0 && history.entries.length === 0;
  } catch {
    return false;
  }
}

/** index.html with the first window's rows in #root and its JSON (after them) for the renderer. */
export function pageWithFirstWindow(indexHtml: string, first: FirstWindow): string {
  const data = `<script type="application/json" id="folio-first-window">${jsonForHtml(first)}</script>`;
  return indexHtml.replace('<div id="root"></div>', `<div id="root">${shellOf(first.read, first.reviewEmpty === true)}</div>\n    ${data}`);
}

let cachedIndex: { dir: string; html: string } | null = null;

/**
 * The built index.html (read once per renderer directory), with its stylesheets
 * inlined: a linked stylesheet holds the first paint until it is fetched (the CSP
 * allows inline styles; scripts stay external).
 */
export async function indexHtmlOf(rendererDir: string): Promise<string> {
  if (cachedIndex?.dir !== rendererDir) {
    let html = await readFile(join(rendererDir, 'index.html'), 'utf8');
    for (const link of html.match(/<link rel="stylesheet"[^>]*href="\.\/([^"]+\.css)"[^>]*>/g) ?? []) {
      const href = /href="\.\/([^"]+)"/.exec(link)![1]!;
      const css = await readFile(join(rendererDir, href), 'utf8').catch(() => null);
      if (css !== null && !css.includes('</style')) html = html.replace(link, `<style>${css}</style>`);
    }
    cachedIndex = { dir: rendererDir, html };
  }
  return cachedIndex.html;
}

/** The rows as the app lays them out (header, viewer, plain lines), so nothing moves when React takes over. */
function shellOf(read: ReadOutput, reviewEmpty: boolean): string {
  const firstLine = read.start_line ?? 1;
  const lines = read.content.replace(/\r?\n$/, '').split('\n', HTML_ROWS);
  // The gutter Monaco will have (FileView: one digit more than the file's last line number), so nothing moves when it takes over.
  const digits = Math.max(5, String(read.total_lines ?? firstLine + lines.length - 1).length + 1);
  const rows = lines
    .map(
      (text, i) =>
        `<div class="plain-line"><span class="plain-line-no">${firstLine + i}</span><span class="plain-line-text">${escapeHtml(text.replace(/\r$/, ''))}</span></div>`,
    )
    .join('');
  return (
    `<div class="app" data-first-window=""><header class="app-header"><h1>Folio</h1></header>` +
    // An empty toolbar of the real one's height keeps the rows where the app paints them.
    `<main class="viewer"><div class="viewer-toolbar"></div><div class="viewer-body"><div class="file-view">` +
    `<div class="plain-lines" style="--digits: ${digits}">${rows}</div></div></div></main>` +
    (reviewEmpty ? '<aside class="review-panel collapsed"></aside>' : '') +
    '</div>'
  );
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON that can sit inside a <script> element: no "</script", no "<!--", no line separators that old parsers choke on. */
function jsonForHtml(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
