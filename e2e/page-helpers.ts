/** What the page shows and asks for, read from the real DOM of the real app. */
import type { Page } from '@playwright/test';

/** Every request the page makes, and every page error or console error. */
export function watchPage(page: Page): { urls: string[]; problems: string[] } {
  const seen = { urls: [] as string[], problems: [] as string[] };
  page.on('request', (req) => seen.urls.push(req.url()));
  page.on('pageerror', (err) => seen.problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') seen.problems.push(`console: ${msg.text()}`);
  });
  return seen;
}

export function offHostOf(urls: string[]): string[] {
  return urls.filter((u) => !u.startsWith('data:') && !u.startsWith('blob:') && new URL(u).hostname !== '127.0.0.1');
}

/**
 * expect.poll intervals for waits on a paint (a jump, a key, a new window): one
 * probe every 50 ms, where expect.poll's default backs off to 1 s and a loop of
 * jumps paid up to a second a step after the page was done.
 */
export const PAINT_POLL_INTERVALS = [50];

export interface ShownLine {
  lineNo: number;
  text: string;
}

/**
 * The lines FileView paints, top to bottom: the number in Monaco's gutter paired
 * with the text on the same row (matched by their `top`).
 */
export function shownLinesOf(page: Page, { whole = false }: { whole?: boolean } = {}): Promise<ShownLine[]> {
  return page.evaluate(shownLinesIn, { whole }) as Promise<ShownLine[]>;
}

/**
 * The top line FileView shows once it is no longer `before`, polled in the page on
 * every animation frame: paging loops wait for the paint itself, not for a poll
 * interval of the test runner (100–1000 ms a step).
 */
export async function nextTopLineOf(page: Page, before: number, timeout = 15_000): Promise<number> {
  const handle = await page.waitForFunction(shownLinesIn, { whole: false, notTop: before }, { polling: 'raf', timeout });
  return (await handle.jsonValue()) as number;
}

/**
 * Runs in the page (serialised by page.evaluate, so self-contained; the app's CSP
 * forbids eval of a string): the lines shown, or with `notTop` the top line number
 * once it is another (false until then, a waitForFunction predicate).
 */
function shownLinesIn({ whole, notTop }: { whole: boolean; notTop?: number }): ShownLine[] | number | false {
  const view = document.querySelector('[data-testid="file-view"]');
  if (!view) return notTop === undefined ? [] : false;
  const topOf = (el: Element) => Math.round(parseFloat((el as HTMLElement).style.top));
  const numbers = new Map<number, number>();
  for (const el of view.querySelectorAll('.margin-view-overlays > div')) {
    const n = el.querySelector('.line-numbers')?.textContent?.trim();
    if (n) numbers.set(topOf(el), Number(n));
  }
  const rows: { top: number; lineNo: number; text: string }[] = [];
  for (const el of view.querySelectorAll('.view-lines > .view-line')) {
    const top = topOf(el);
    const lineNo = numbers.get(top);
    if (lineNo !== undefined) rows.push({ top, lineNo, text: (el.textContent ?? '').replace(/\u00a0/g, ' ') });
  }
  // Rows above or below the viewport are painted too; keep those in view.
  const box = view.querySelector('.lines-content')?.getBoundingClientRect();
  const viewBox = view.getBoundingClientRect();
  const shift = box ? box.top - viewBox.top : 0;
  const shown = rows
    // `whole`: only rows wholly in view, as the app counts its top line (Monaco's
    // completely visible range); otherwise a row cut by a pixel counts too.
    .filter((r) => r.top + shift >= (whole ? -0.5 : -1) && r.top + shift < viewBox.height - 10)
    .sort((a, b) => a.top - b.top)
    .map(({ lineNo, text }) => ({ lineNo, text }));
  if (notTop === undefined) return shown;
  return shown[0] !== undefined && shown[0].lineNo !== notTop ? shown[0].lineNo : false;
}

/**
 * A README screenshot (docs/screenshots/NAME), written only under FOLIO_SCREENSHOTS=1
 * (`npm run screenshots`): a plain test run neither dirties the checkout nor pays
 * for encoding full-page PNGs nobody looks at.
 */
export async function docsScreenshot(page: Page, name: string): Promise<void> {
  if (!process.env.FOLIO_SCREENSHOTS) return;
  const { join } = await import('node:path');
  const { REPO_ROOT } = await import('./folio-serve.ts');
  await page.screenshot({ path: join(REPO_ROOT, 'docs', 'screenshots', name) });
}

/** File lines with selected text painted on them (Monaco's selection layer, matched to the gutter by row top). */
export function selectedLinesOf(page: Page): Promise<number[]> {
  return page.evaluate(() => {
    const view = document.querySelector('[data-testid="file-view"]')!;
    const topOf = (el: Element) => Math.round(parseFloat((el as HTMLElement).style.top));
    const numbers = new Map<number, number>();
    for (const el of view.querySelectorAll('.margin-view-overlays > div')) {
      const n = el.querySelector('.line-numbers')?.textContent?.trim();
      if (n) numbers.set(topOf(el), Number(n));
    }
    const lines = [...view.querySelectorAll('.view-overlays > div')]
      .filter((el) => el.querySelector('.selected-text'))
      .map((el) => numbers.get(topOf(el)) ?? -1);
    return lines.sort((a, b) => a - b);
  });
}

/** Click into line `from`, Shift+click into line `to` (both in view). */
export async function selectByMouse(page: Page, from: number, to: number): Promise<void> {
  const pointOf = (lineNo: number) =>
    page.evaluate((n) => {
      const view = document.querySelector('[data-testid="file-view"]')!;
      const row = [...view.querySelectorAll('.margin-view-overlays > div')].find((el) => el.querySelector('.line-numbers')?.textContent?.trim() === String(n))!;
      const rowBox = row.getBoundingClientRect();
      const textBox = view.querySelector('.view-lines')!.getBoundingClientRect();
      return { x: textBox.left + 40, y: rowBox.top + rowBox.height / 2 };
    }, lineNo);
  const start = await pointOf(from);
  await page.mouse.click(start.x, start.y);
  const end = await pointOf(to);
  await page.keyboard.down('Shift');
  await page.mouse.click(end.x + 200, end.y);
  await page.keyboard.up('Shift');
}
