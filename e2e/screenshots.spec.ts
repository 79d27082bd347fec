/**
 * The README's screenshots of the review, at 1024×700 and 1920×1080, over a real
 * agent session (e2e/review-session.ts): the file view with a proposal drawn
 * inline, the review panel with a conflict, the 3-way view, the help. Written to
 * docs/screenshots/review-VIEW-WxH.png. Skipped unless FOLIO_SCREENSHOTS=1, so
 * the suite does not rewrite docs: `npm run screenshots` builds and runs it.
 */
import { join } from 'node:path';
import { expect, test, type Locator } from './app-test.ts';
import { REPO_ROOT } from './folio-serve.ts';
import { queueItem, startReviewSession, type ReviewSession } from './review-session.ts';

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots');
const SIZES = [
  { width: 1024, height: 700 },
  { width: 1920, height: 1080 },
];

test.skip(!process.env.FOLIO_SCREENSHOTS, 'writes docs/screenshots: run with FOLIO_SCREENSHOTS=1 (npm run screenshots)');

/** Resolves once `el`'s markup is the same on two looks 250 ms apart (Monaco computes a diff, then redraws). */
async function settled(el: Locator) {
  let last = '';
  await expect
    .poll(
      async () => {
        const now = await el.innerHTML();
        const same = now === last;
        last = now;
        return same;
      },
      { intervals: [250] },
    )
    .toBe(true);
}

let session: ReviewSession | undefined;
test.afterEach(async () => {
  await session?.close();
  session = undefined;
});

for (const size of SIZES) {
  test(`review views at ${size.width}×${size.height}`, async ({ page }) => {
    const shot = (view: string) => page.screenshot({ path: join(SCREENSHOTS, `review-${view}-${size.width}x${size.height}.png`) });
    session = await startReviewSession(page, size);

    // The 3-hunk proposal, its second hunk focused: drawn inline, listed in the panel.
    await queueItem(page, session.multiHunkId).click();
    await page.getByTestId('hunk').nth(1).getByTestId('hunk-show').click();
    await expect(page.locator('[data-testid="file-view"] [data-testid="inline-zone"][data-hunk="2"]')).toBeVisible();
    await expect(page.getByTestId('diff-preview').locator('.view-line').first()).toBeVisible();
    await page.mouse.move(0, size.height - 1);
    await settled(page.getByTestId('diff-preview'));
    await shot('file-view');

    await queueItem(page, session.conflictId).click();
    await expect(page.getByTestId('proposal-conflict')).toBeVisible();
    // The diff editor is reused: wait for the conflict's own diff, then for Monaco to finish drawing it.
    await expect(page.getByTestId('diff-preview')).toContainText('page through with a cursor');
    await settled(page.getByTestId('diff-preview'));
    await shot('panel');

    await page.getByTestId('open-three-way').click();
    await expect(page.getByTestId('three-way-now')).toBeVisible();
    await expect(page.getByTestId('proposal-editor').locator('.view-line').first()).toBeVisible();
    await shot('three-way');
    await page.getByTestId('three-way-close').click();

    await page.getByTestId('review-help-open').click();
    await expect(page.getByTestId('review-help')).toBeVisible();
    await shot('help');
  });
}
