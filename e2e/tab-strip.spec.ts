/**
 * Tabs that fit (issue 31, item 7), in Chromium against `folio serve`: a failed
 * open adds no tab; with 25 files open the tab strip scrolls sideways (the shown
 * tab kept in view, the others reached by the wheel, the keys still cycling),
 * the path box keeps its room and nothing in the header overlaps, at 1280×800
 * and in a 900 px window.
 *
 * The path box's floor is 320 px (styles.css --path-box-min): about 40 characters
 * of its monospace font, enough to read and edit a typical absolute path such as
 * /var/log/nginx/access.log.2024-05-01 without scrolling inside the box.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { logLineOf } from './log-fixture.ts';
import { watchPage } from './page-helpers.ts';

const PATH_BOX_MIN_PX = 320;
const FILES = 25;

let fixtures: ReturnType<typeof makeFixtureDir>;
let server: FolioServe;
let files: string[];

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  const workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  files = Array.from({ length: FILES }, (_, i) => join(workspace, `service-${String(i + 1).padStart(2, '0')}.log`));
  for (const [i, file] of files.entries()) writeFileSync(file, Array.from({ length: 50 + i }, (_, n) => logLineOf(n + 1) + '\n').join(''));
  server = await startFolioServe([files[0]!], { cwd: workspace, env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') } });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

const tabs = (page: Page) => page.getByRole('tablist', { name: 'Open files' }).getByRole('tab');

async function openByPathBox(page: Page, text: string) {
  await page.getByTestId('path-input').fill(text);
  await page.getByTestId('path-input').press('Enter');
}

/** The strip's scroll state and whether tab `index` lies wholly inside its visible part. */
function stripOf(page: Page, index: number) {
  return page.getByTestId('tab-bar').evaluate((strip, i) => {
    const tab = strip.querySelectorAll('.tab')[i]!.getBoundingClientRect();
    const box = strip.getBoundingClientRect();
    return {
      scrollWidth: strip.scrollWidth,
      clientWidth: strip.clientWidth,
      scrollLeft: strip.scrollLeft,
      tabWidth: tab.width,
      tabInView: tab.left >= box.left - 1 && tab.right <= box.right + 1,
    };
  }, index);
}

/** The header's parts side by side: each box, and any two that overlap. */
async function headerOverlapsOf(page: Page): Promise<string[]> {
  return page.locator('.app-header').evaluate((header) => {
    // A part of 1 px or less is there for screen readers only (the title in a narrow window).
    const parts = [...header.children].map((el) => ({ name: el.className || el.tagName, box: el.getBoundingClientRect() })).filter((p) => p.box.width > 1);
    const overlaps: string[] = [];
    const headerBox = header.getBoundingClientRect();
    for (const [i, a] of parts.entries()) {
      if (a.box.right > headerBox.right + 0.5) overlaps.push(`${a.name} spills out of the header`);
      for (const b of parts.slice(i + 1)) if (a.box.right > b.box.left + 0.5 && b.box.right > a.box.left + 0.5) overlaps.push(`${a.name} × ${b.name}`);
    }
    return overlaps;
  });
}

for (const width of [1280, 900]) {
  test(`at ${width} px: a failed open adds no tab; 25 tabs scroll, the path box keeps ${PATH_BOX_MIN_PX} px, nothing overlaps`, async ({ page }) => {
    const seen = watchPage(page);
    await page.setViewportSize({ width, height: 800 });
    await page.goto(server.url.href);
    await expect(tabs(page)).toHaveText(['service-01.log']);

    // A missing file: its error under the path box, the shown file and its tab as they were.
    await openByPathBox(page, join(fixtures.dir, 'no-such.log'));
    await expect(page.getByTestId('open-problem')).toContainText(/Cannot open .*no-such\.log: .*\(not_found\)/);
    await expect(tabs(page)).toHaveCount(1);
    await expect(page.getByTestId('file-path')).toHaveText(files[0]!);

    for (const [i, file] of files.entries()) {
      if (i === 0) continue;
      await openByPathBox(page, file);
      await expect(tabs(page)).toHaveCount(i + 1);
      await expect(page.getByTestId('file-path')).toHaveText(file);
    }
    await expect(page.getByTestId('open-problem')).toHaveCount(0);

    // The strip overflows and scrolls; the shown (last) tab is in view; the path box keeps its width.
    let strip = await stripOf(page, FILES - 1);
    expect(strip.scrollWidth).toBeGreaterThan(strip.clientWidth);
    expect(strip.scrollLeft).toBeGreaterThan(0);
    expect(strip.tabInView).toBe(true);
    expect(strip.clientWidth, 'the strip has room for the shown tab').toBeGreaterThanOrEqual(strip.tabWidth);
    const pathBox = await page.getByTestId('path-input').boundingBox();
    expect(pathBox!.width).toBeGreaterThanOrEqual(PATH_BOX_MIN_PX);
    expect(await headerOverlapsOf(page)).toEqual([]);

    // The wheel scrolls the strip back to the first tab, which a click then shows.
    await page.getByTestId('tab-bar').hover();
    await page.mouse.wheel(0, -100_000);
    await expect.poll(async () => (await stripOf(page, 0)).tabInView).toBe(true);
    await tabs(page).nth(0).click();
    await expect(page.getByTestId('file-path')).toHaveText(files[0]!);

    // The keys still cycle, wrapping to the last tab, which is scrolled into view.
    await page.getByTestId('file-view').click();
    await page.keyboard.press('Alt+PageUp');
    await expect(tabs(page).nth(FILES - 1)).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByTestId('file-path')).toHaveText(files[FILES - 1]!);
    await expect.poll(async () => (await stripOf(page, FILES - 1)).tabInView).toBe(true);
    await page.keyboard.press('Alt+PageDown');
    await expect(tabs(page).nth(0)).toHaveAttribute('aria-selected', 'true');
    await expect.poll(async () => (await stripOf(page, 0)).tabInView).toBe(true);
    strip = await stripOf(page, 0);
    expect(strip.scrollLeft).toBe(0);
    expect(await headerOverlapsOf(page)).toEqual([]);
    expect(seen.problems.filter((p) => !p.includes('status of 404'))).toEqual([]);
  });
}
