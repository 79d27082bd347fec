/**
 * The outline panel on a generated markdown file, in Chromium against `folio
 * serve`: it lists exactly the headings the `outline` operation answers (not the
 * '#' lines inside fences, and the setext heading too), renders only the rows in
 * view, clicking a deep heading puts its line at the top of the viewer, the
 * marked heading follows the view, the filter narrows the list, a non-markdown
 * file has no outline, and a heading added by the real `folio upsert` shows up
 * once the app sees the file's new version.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from './app-test.ts';
import { makeFixtureDir, writeTextFixture } from './fixtures.ts';
import { BIN, REPO_ROOT, startFolioServe, type FolioServe } from './folio-serve.ts';
import { connectAgent } from './mcp-agent.ts';
import { offHostOf, shownLinesOf, watchPage } from './page-helpers.ts';

const ARTIFACTS = join(REPO_ROOT, 'e2e', 'artifacts');
const count = (n: number) => new Intl.NumberFormat('en-US').format(n);

/** 20 parts × 10 chapters × 25 sections, a setext heading, and fences full of '#' lines. */
const PARTS = 20;
const CHAPTERS = 10;
const SECTIONS = 25;

interface Heading {
  level: number;
  text: string;
  path: string;
  line: number;
  end_line: number;
}

/** The document, and the headings it was written with (the oracle of the count). */
function markdownBook(): { text: string; headings: { level: number; text: string; line: number }[] } {
  const lines: string[] = [];
  const headings: { level: number; text: string; line: number }[] = [];
  const heading = (level: number, text: string) => {
    headings.push({ level, text, line: lines.length + 1 });
    lines.push(`${'#'.repeat(level)} ${text}`, '');
  };
  headings.push({ level: 1, text: 'Setext Overview', line: 1 });
  lines.push('Setext Overview', '===============', '', 'What this book is about.', '');
  for (let p = 1; p <= PARTS; p++) {
    heading(1, `Part ${p}`);
    lines.push(`Intro of part ${p}.`, '');
    for (let c = 1; c <= CHAPTERS; c++) {
      heading(2, `Chapter ${p}.${c}`);
      for (let s = 1; s <= SECTIONS; s++) {
        heading(3, `Section ${p}.${c}.${s}`);
        lines.push(`Body of section ${p}.${c}.${s}, first line.`, 'Second line of the body.', '');
        if (s % 5 === 0) lines.push('```sh', `# not a heading ${p}.${c}.${s}`, '## nor this', '```', '');
      }
    }
  }
  return { text: lines.join('\n') + '\n', headings };
}

let fixtures: ReturnType<typeof makeFixtureDir>;
let workspace: string;
let book: string;
let written: ReturnType<typeof markdownBook>['headings'];
let server: FolioServe;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  book = join(workspace, 'book.md');
  const doc = markdownBook();
  writeFileSync(book, doc.text);
  written = doc.headings;
  writeTextFixture(workspace, 'notes.txt', { lines: 300, newline: '\n', finalNewline: true });
  server = await startFolioServe([book], { cwd: workspace, env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') } });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

/** The `outline` operation over HTTP with the token, as any client would ask it. */
async function outlineOf(page: Page): Promise<{ headings: Heading[]; version: { etag: string } }> {
  const response = await page.request.post(`${server.origin}/api/outline`, {
    data: { path: book },
    headers: { Authorization: `Bearer ${server.token}` },
  });
  expect(response.ok(), await response.text()).toBe(true);
  return response.json();
}

const rows = (page: Page) => page.getByTestId('outline-row');
const currentRow = (page: Page) => page.locator('[data-testid="outline-row"][aria-current="location"]');

/** The heading whose section holds `lineNo`: the last one starting at or before it. */
const headingAt = (headings: Heading[], lineNo: number) => headings.filter((h) => h.line <= lineNo).at(-1)!;

async function topRow(page: Page) {
  return (await shownLinesOf(page))[0] ?? null;
}

test('the outline lists the operation’s headings; click, follow, filter; none for a .txt; a CLI edit shows up', async ({ page }) => {
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1500, height: 900 });
  await page.goto(server.url.href);
  await expect(page.locator('[data-testid="file-view"] .view-line').first()).toBeVisible();

  // --- The same headings as the operation, which are the ones written (fences excluded).
  const outline = await outlineOf(page);
  const headings = outline.headings;
  expect(headings.length).toBe(written.length);
  expect(headings.length).toBeGreaterThan(5000);
  expect(headings.map((h) => [h.level, h.text, h.line])).toEqual(written.map((h) => [h.level, h.text, h.line]));
  expect(headings.some((h) => h.text.includes('not a heading') || h.text.includes('nor this'))).toBe(false);

  const panel = page.getByTestId('outline-panel');
  await expect(panel).toBeVisible(); // opened by itself for markdown
  await expect(page.getByTestId('outline-toggle')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('outline-count')).toHaveText(count(headings.length));
  await expect(rows(page).first()).toHaveText(/Setext Overview/);
  // Only the rows in view (and a few more) are in the page.
  const rendered = await rows(page).count();
  expect(rendered).toBeGreaterThan(10);
  expect(rendered).toBeLessThan(100);
  const firstTexts = await rows(page).locator('.text').allTextContents();
  expect(firstTexts).toEqual(headings.slice(0, rendered).map((h) => h.text));
  // Indented by level, with line numbers.
  await expect(rows(page).nth(3)).toHaveAttribute('data-level', '3');
  await expect(rows(page).nth(3).locator('.line-no')).toHaveText(count(headings[3]!.line));
  const indent = async (i: number) =>
    rows(page)
      .nth(i)
      .evaluate((el) => parseFloat(getComputedStyle(el).paddingLeft));
  expect(await indent(3)).toBeGreaterThan(await indent(2));
  expect(await indent(2)).toBeGreaterThan(await indent(1));
  await expect(page.getByTestId('outline-filter')).toBeVisible();

  // --- Filter: '#' lines in fences are not headings; a deep heading is one row.
  await page.getByTestId('outline-filter').fill('not a heading');
  await expect(page.getByTestId('outline-count')).toHaveText(`0 of ${count(headings.length)}`);
  await expect(rows(page)).toHaveCount(0);
  const deep = headings.find((h) => h.text === 'Section 17.4.12')!;
  await page.getByTestId('outline-filter').fill('section 17.4.12');
  await expect(page.getByTestId('outline-count')).toHaveText(`1 of ${count(headings.length)}`);
  await expect(rows(page)).toHaveCount(1);
  const chapterRows = headings.filter((h) => h.text.toLowerCase().includes('chapter 17.')).length;
  await page.getByTestId('outline-filter').fill('Chapter 17.');
  await expect(page.getByTestId('outline-count')).toHaveText(`${count(chapterRows)} of ${count(headings.length)}`);
  await expect(rows(page).locator('.text')).toHaveText(headings.filter((h) => h.text.startsWith('Chapter 17.')).map((h) => h.text));

  // --- Click a deep heading: its line at the top of the viewer, and it is the marked one.
  await page.getByTestId('outline-filter').fill('Section 17.4.12');
  await rows(page).first().click();
  await expect.poll(() => topRow(page), { message: 'the heading at the top' }).toEqual({ lineNo: deep.line, text: '### Section 17.4.12' });
  await expect(page.getByTestId('view-top-line')).toHaveText(count(deep.line));
  await expect(currentRow(page)).toHaveText(/Section 17\.4\.12/);
  // The text is coloured by Monaco's markdown grammar: a heading line looks unlike a body line.
  const colourOfLine = (prefix: string) =>
    page.evaluate((p) => {
      const line = [...document.querySelectorAll('[data-testid="file-view"] .view-line')].find((l) =>
        (l.textContent ?? '').replace(/\u00a0/g, ' ').startsWith(p),
      );
      const span = line?.querySelector('span span');
      return span ? getComputedStyle(span).color : null;
    }, prefix);
  // (Monaco tokenizes a fresh window in the background, so the colour may come a moment after the text.)
  await expect
    .poll(async () => {
      const [heading, body] = [await colourOfLine('### Section 17.4.12'), await colourOfLine('Body of section 17.4.12')];
      return heading !== null && body !== null && heading !== body;
    })
    .toBe(true);
  // Unfiltered, the marked heading is scrolled into view among tens of thousands of rows' worth of list.
  await page.getByTestId('outline-filter').fill('');
  await expect(page.getByTestId('outline-count')).toHaveText(count(headings.length));
  await expect(currentRow(page)).toBeInViewport();
  await expect(currentRow(page)).toHaveAttribute('data-line', String(deep.line));
  await page.screenshot({ path: join(ARTIFACTS, 'outline-panel.png') });

  // --- Scroll the file: the mark follows the section of the top line.
  await page.getByTestId('file-view').hover();
  for (let i = 0; i < 12; i++) await page.mouse.wheel(0, 100);
  let top = 0;
  await expect
    .poll(async () => {
      top = (await topRow(page))?.lineNo ?? 0;
      return top > deep.line + 5;
    })
    .toBe(true);
  await expect.poll(async () => headingAt(headings, (await topRow(page))!.lineNo).line).not.toBe(deep.line);
  const scrolledTop = (await topRow(page))!.lineNo;
  await expect(currentRow(page)).toHaveAttribute('data-line', String(headingAt(headings, scrolledTop).line));

  // Jump far away with go to: the mark follows (and is brought into view).
  await page.getByTestId('goto-input').fill('3,000');
  await page.getByTestId('goto-input').press('Enter');
  await expect.poll(async () => (await shownLinesOf(page)).some((r) => r.lineNo === 3000)).toBe(true);
  const jumpedTop = (await topRow(page))!.lineNo;
  const jumpedTo = headingAt(headings, jumpedTop);
  await expect(currentRow(page)).toHaveAttribute('data-line', String(jumpedTo.line));
  await expect(currentRow(page)).toHaveText(new RegExp(jumpedTo.text.replace(/\./g, '\\.')));
  await expect(currentRow(page)).toBeInViewport();

  // --- The toggle and its key hide and show it.
  await page.getByTestId('outline-toggle').click();
  await expect(panel).toHaveCount(0);
  await page.getByTestId('file-view').click();
  await page.keyboard.press('Control+Shift+O');
  await expect(panel).toBeVisible();

  // --- A text file has no outline.
  await page.getByTestId('path-input').fill(join(workspace, 'notes.txt'));
  await page.getByTestId('path-input').press('Enter');
  await expect(page.getByTestId('file-lines')).toHaveText('300');
  await expect(panel).toHaveCount(0);
  await expect(page.getByTestId('outline-toggle')).toBeDisabled();

  // Back to the book: the outline comes back by itself.
  await page.getByTestId('path-input').fill(book);
  await page.getByTestId('path-input').press('Enter');
  await expect(page.getByTestId('outline-count')).toHaveText(count(headings.length));

  // --- A person adds a heading with the real CLI; follow mode sees the new version and the outline re-reads it.
  const chapter = headings.find((h) => h.text === 'Chapter 3.7')!;
  execFileSync(
    process.execPath,
    [BIN, 'upsert', book, '--insert-at', String(chapter.line), '--content', '## Added by the CLI\n\nNew text.\n\n', '--if-match', outline.version.etag],
    {
      cwd: workspace,
      env: { ...process.env, FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') },
    },
  );
  const after = await outlineOf(page);
  expect(after.headings.length).toBe(headings.length + 1);
  expect(after.headings.find((h) => h.text === 'Added by the CLI')?.line).toBe(chapter.line);
  await page.getByTestId('follow-toggle').click();
  await expect(page.getByTestId('outline-count')).toHaveText(count(headings.length + 1));
  await page.getByTestId('follow-toggle').click();
  await page.getByTestId('outline-filter').fill('added by');
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page)).toHaveAttribute('data-line', String(chapter.line));
  await rows(page).first().click();
  await expect.poll(() => topRow(page)).toEqual({ lineNo: chapter.line, text: '## Added by the CLI' });

  expect(offHostOf(seen.urls)).toEqual([]);
  expect(seen.problems).toEqual([]);
});

test('an agent’s proposal, once approved in the review panel, is in the outline without a reload', async ({ page }) => {
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1500, height: 900 });
  await page.goto(server.url.href);
  const before = (await outlineOf(page)).headings;
  await expect(page.getByTestId('outline-count')).toHaveText(count(before.length));
  await expect(page.getByTestId('channel')).toHaveText('live');

  const agent = await connectAgent(workspace, { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') });
  try {
    const part = before.find((h) => h.text === 'Part 9')!;
    const read = await agent.call('read', { path: 'book.md', ranges: [{ start: part.line, end: part.line }] });
    const answer = await agent.call('upsert', {
      path: 'book.md',
      target: { insert: { at: part.line } },
      content: '# Proposed by the agent\n\nWhy it matters.\n\n',
      if_match: read.version.etag,
    });
    expect(answer.proposal_id, JSON.stringify(answer)).toEqual(expect.any(String));
    const item = page.locator(`[data-testid="queue-item"][data-proposal-id="${answer.proposal_id}"]`);
    await item.click();
    await page.getByTestId('approve').click();
    await expect(page.getByTestId('review-notice')).toContainText('Approved');
  } finally {
    await agent.close();
  }
  await expect(page.getByTestId('outline-count')).toHaveText(count(before.length + 1));
  await page.getByTestId('outline-filter').fill('proposed by');
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page)).toHaveAttribute('data-level', '1');
  await expect(rows(page)).toHaveAttribute('data-line', String(before.find((h) => h.text === 'Part 9')!.line));
  expect(seen.problems).toEqual([]);
});

test('an outline of 60,000 headings stays light: a few dozen rows in the page, quick filter and scroll', async ({ page }) => {
  const seen = watchPage(page);
  const big = join(workspace, 'big.md');
  const lines: string[] = [];
  const total = 60_000;
  for (let i = 0; i < total; i++) lines.push(`${'#'.repeat(1 + (i % 4))} Topic ${i}`, '', `Text of topic ${i}.`, '');
  writeFileSync(big, lines.join('\n'));
  await page.setViewportSize({ width: 1500, height: 900 });
  await page.goto(server.url.href);
  await expect(page.getByTestId('outline-panel')).toBeVisible();

  const t0 = performance.now();
  await page.getByTestId('path-input').fill(big);
  await page.getByTestId('path-input').press('Enter');
  await page.waitForFunction((n) => document.querySelector('[data-testid="outline-count"]')?.textContent === n, count(total), { polling: 'raf' });
  console.log(`[measure] outline of ${count(total)} headings listed ${Math.round(performance.now() - t0)} ms after open`);
  expect(await rows(page).count()).toBeLessThan(100);

  // Scroll the list from end to end: each step paints its rows on the next frame.
  const list = page.locator('.outline-list');
  const steps = [0.25, 0.5, 0.75, 1, 0.1];
  const t1 = performance.now();
  for (const f of steps) {
    const expected = await list.evaluate((el, f) => {
      el.scrollTop = f * (el.scrollHeight - el.clientHeight);
      return Math.floor(el.scrollTop / 22);
    }, f);
    await page.waitForFunction(
      (row) => [...document.querySelectorAll('[data-testid="outline-row"] .text')].some((el) => el.textContent === `Topic ${row}`),
      expected,
      { polling: 'raf' },
    );
    expect(await rows(page).count()).toBeLessThan(100);
  }
  console.log(
    `[measure] outline scroll: ${steps.length} jumps across ${count(total)} rows, ${Math.round((performance.now() - t1) / steps.length)} ms each (incl. Playwright round trips)`,
  );

  const t2 = performance.now();
  await page.getByTestId('outline-filter').fill('Topic 4999');
  await page.waitForFunction(() => document.querySelector('[data-testid="outline-count"]')?.textContent?.startsWith('11 of'), null, { polling: 'raf' });
  console.log(`[measure] outline filter over ${count(total)} headings: ${Math.round(performance.now() - t2)} ms`);
  await expect(rows(page)).toHaveCount(11);
  await rows(page).last().click();
  await expect.poll(() => topRow(page)).toEqual({ lineNo: 4 * 49_999 + 1, text: '#### Topic 49999' });
  expect(seen.problems).toEqual([]);
});
