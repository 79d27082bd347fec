/**
 * Playwright's `test` with one browser tab per worker, handed to each test in turn.
 *
 * A fresh context per test cost a new renderer process each time: ~0.6 CPU s of
 * Chromium per test on the 2-core build machines, ~1 CPU min per `npm test`
 * (docs/TESTING.md, "What the suite's time goes to"). Here the tab stays; between two
 * tests it is put back as a new one would be: the test's listeners and routes removed,
 * other tabs it opened closed, keys and the mouse button released, the origin's storage
 * and the context's cookies and permissions cleared, the default viewport, and
 * `about:blank` (so nothing of the last app runs while the next test sets up). A test
 * that failed, or a tab that cannot be reset, gets a new context for the next test.
 *
 * Specs that need their own context (context options through `test.use`, init scripts,
 * a CDP session, measures of a fresh page) import `@playwright/test` instead.
 */
import { test as base, type Page, type TestInfo, type ViewportSize } from '@playwright/test';

export * from '@playwright/test';

/** What each test adds to the tab through `page.on` (e2e/page-helpers.ts watchPage and the specs). */
const TEST_EVENTS = ['request', 'response', 'requestfailed', 'requestfinished', 'console', 'pageerror', 'dialog', 'download', 'popup'] as const;
const MODIFIERS = ['Shift', 'Control', 'Alt', 'Meta'];
const DEFAULT_VIEWPORT: ViewportSize = { width: 1280, height: 720 };

export const test = base.extend<object, { workerTab: { page: Page | null } }>({
  workerTab: [
    // Playwright reads a fixture's dependencies from its first parameter's pattern: none here.
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const tab: { page: Page | null } = { page: null };
      await use(tab);
      await tab.page?.context().close();
    },
    { scope: 'worker' },
  ],
  page: async ({ browser, workerTab, viewport }, use, testInfo) => {
    const size = viewport ?? DEFAULT_VIEWPORT;
    if (!workerTab.page || workerTab.page.isClosed()) {
      const context = await browser.newContext({ viewport: size });
      workerTab.page = await context.newPage();
    }
    const page = workerTab.page;
    await use(page);
    const reset = testInfo.status === testInfo.expectedStatus && (await resetTab(page, size, testInfo));
    if (!reset) {
      workerTab.page = null;
      await page.context().close();
    }
  },
});

/** Puts the tab back as a new one would be; false if it could not. */
async function resetTab(page: Page, viewport: ViewportSize, testInfo: TestInfo): Promise<boolean> {
  try {
    for (const other of page.context().pages()) if (other !== page) await other.close();
    for (const event of TEST_EVENTS) await page.removeAllListeners(event, { behavior: 'ignoreErrors' });
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    for (const key of MODIFIERS) await page.keyboard.up(key);
    await page.mouse.up();
    if (page.url().startsWith('http')) await page.evaluate(() => (localStorage.clear(), sessionStorage.clear()));
    await page.goto('about:blank');
    await page.setViewportSize(viewport);
    await page.context().clearCookies();
    await page.context().clearPermissions();
    return true;
  } catch (err) {
    testInfo.annotations.push({ type: 'tab reset failed', description: String(err) });
    return false;
  }
}
