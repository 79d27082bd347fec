/**
 * Scrolling re-renders what shows the scroll, not the whole app: the App
 * component subscribes to the viewer store with a selector (appViewOf), so the
 * many topLine / window / selection changes of a scroll do not render it again.
 *
 * React has no render counter in a production build, but it reports every commit
 * to the DevTools hook (`__REACT_DEVTOOLS_GLOBAL_HOOK__.onCommitFiberRoot`), which
 * this page installs before the app loads. A function component that rendered in
 * a commit has a new hooks list (fiber.memoizedState); one React skipped keeps
 * the old one. So App's renders are the commits where its hooks list changed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { shownLinesOf } from './page-helpers.ts';

let fixtures: ReturnType<typeof makeFixtureDir>;
let server: FolioServe;

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  const file = join(fixtures.dir, 'many.log');
  writeFileSync(file, Array.from({ length: 20_000 }, (_, i) => `2024-05-01T10:00:00Z INFO [app] line=${i + 1}\n`).join(''));
  server = await startFolioServe([file], { cwd: fixtures.dir, env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') } });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

/** Installs the DevTools hook: counts the commits in which the #root's first function component (App) rendered. */
function countAppRenders(): void {
  const w = window as unknown as { __appRenders: number; __REACT_DEVTOOLS_GLOBAL_HOOK__: unknown };
  type Fiber = { type: unknown; child: Fiber | null; memoizedState: unknown };
  let last: unknown = undefined;
  w.__appRenders = 0;
  const renderers = new Map<number, unknown>();
  w.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    renderers,
    supportsFiber: true,
    isDisabled: false,
    checkDCE() {},
    inject(renderer: unknown) {
      renderers.set(renderers.size + 1, renderer);
      return renderers.size;
    },
    onScheduleFiberRoot() {},
    onCommitFiberUnmount() {},
    onPostCommitFiberRoot() {},
    setStrictMode() {},
    onCommitFiberRoot(_id: number, root: { current: Fiber; containerInfo?: { id?: string } }) {
      if (root.containerInfo?.id !== 'root') return;
      let fiber: Fiber | null = root.current;
      while (fiber && typeof fiber.type !== 'function') fiber = fiber.child;
      if (!fiber || fiber.memoizedState === last) return;
      last = fiber.memoizedState;
      w.__appRenders++;
    },
  };
}

const appRenders = (page: Page) => page.evaluate(() => (window as unknown as { __appRenders: number }).__appRenders);
const topLine = async (page: Page) => Number((await page.getByTestId('view-top-line').textContent())!.replace(/\D/g, ''));

test('scrolling moves the view many times and renders App not once', async ({ page }) => {
  await page.addInitScript(countAppRenders);
  await page.setViewportSize({ width: 1400, height: 860 });
  await page.goto(server.url.href);
  await expect(page.getByTestId('view-top-line')).toHaveText('1');
  await expect(page.getByTestId('file-lines')).toHaveText('20,000');
  // The counter sees the app: it rendered at least once to show the file.
  await expect.poll(() => appRenders(page)).toBeGreaterThan(0);
  // Settled: nothing pending re-renders it (the first window, file_info, recent files, the queue).
  let previous = -1;
  await expect
    .poll(async () => {
      const now = await appRenders(page);
      const same = now === previous;
      previous = now;
      return same;
    })
    .toBe(true);
  const before = await appRenders(page);

  await expect.poll(async () => (await shownLinesOf(page)).length).toBeGreaterThan(10);
  await page.getByTestId('file-view').hover();
  const tops = new Set<number>([1]);
  for (let step = 0; step < 12; step++) {
    const was = await topLine(page);
    // A wheel event that lands before the editor takes wheels is lost: wheel again until the view moves.
    await expect
      .poll(async () => {
        await page.mouse.wheel(0, 400);
        return topLine(page);
      })
      .toBeGreaterThan(was);
    tops.add(await topLine(page));
  }
  expect(tops.size, 'the status bar followed the scroll').toBeGreaterThanOrEqual(12);
  const during = (await appRenders(page)) - before;
  console.log(`[measure] App renders while the view moved ${tops.size - 1} times: ${during}`);
  expect(during, 'App renders while scrolling').toBe(0);

  // And the counter does count App: opening Find (App shows the panel) renders it.
  await page.getByTestId('find-open').click();
  await expect.poll(() => appRenders(page)).toBeGreaterThan(before);
});
