/**
 * The review's layout, measured in Chromium over a real agent session: at
 * 1024×700 the panel's diff shows at least 20 rows, with the hunk list and the
 * decisions, and neither the page nor the panel scrolls; the queue grows with the
 * window; an empty panel collapses to a rail and the file view takes the width.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Locator, type Page } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe } from './folio-serve.ts';
import { queueItem, startReviewSession, type ReviewSession } from './review-session.ts';

let session: ReviewSession | undefined;
test.afterEach(async () => {
  await session?.close();
  session = undefined;
});

const boxOf = async (l: Locator) => (await l.boundingBox())!;

/**
 * Rows of diff the panel's diff box holds: its height over one row's. (The diff shows
 * a proposal's hunks only, without context, so a short proposal fills fewer rows than
 * the box has room for; the room is what the layout promises.)
 */
const diffRowsShown = (page: Page) =>
  page.getByTestId('diff-preview').evaluate((diff) => {
    const box = diff.getBoundingClientRect();
    const row = diff.querySelector('.editor.modified .view-line') ?? diff.querySelector('.view-line');
    const height = row?.getBoundingClientRect().height ?? 0;
    return height > 0 ? Math.floor((box.height + 0.5) / height) : 0;
  });

test('at 1024×700 the panel shows 20 rows of diff, the hunk list and the decisions, with no scrolling', async ({ page }) => {
  session = await startReviewSession(page, { width: 1024, height: 700 });
  await queueItem(page, session.multiHunkId).click();
  await expect(page.getByTestId('hunk')).toHaveCount(3);
  await expect(page.getByTestId('diff-preview').locator('.view-line').first()).toBeVisible();

  await expect.poll(() => diffRowsShown(page)).toBeGreaterThanOrEqual(20);
  for (const el of [page.getByTestId('hunk-list'), page.getByTestId('diff-preview'), page.getByTestId('approve'), page.getByTestId('reject')]) {
    const box = await boxOf(el);
    expect(box.y, (await el.getAttribute('data-testid')) ?? '').toBeGreaterThanOrEqual(0);
    expect(box.y + box.height, (await el.getAttribute('data-testid')) ?? '').toBeLessThanOrEqual(700);
  }
  // Every hunk row whole inside the list: no scrolling inside it either.
  const list = await boxOf(page.getByTestId('hunk-list'));
  for (const hunk of await page.getByTestId('hunk').all()) {
    const box = await boxOf(hunk);
    expect(box.y + box.height).toBeLessThanOrEqual(list.y + list.height + 0.5);
  }
  const scrolled = await page.evaluate(() => ({
    page: document.scrollingElement!.scrollHeight - window.innerHeight,
    panel: document.querySelector('[data-testid="review-panel"]')!.scrollTop,
  }));
  expect(scrolled).toEqual({ page: 0, panel: 0 });
});

test('the queue grows with the window: more proposals listed at 1080 px than at 700 px', async ({ page }) => {
  session = await startReviewSession(page, { width: 1024, height: 700 });
  const read = await session.agent.call('read', { path: 'client.ts' });
  for (let k = 0; k < 10; k++) {
    const line = 70 + 5 * k;
    await session.agent.call('upsert', {
      path: 'client.ts',
      target: { replace: { start: line, end: line } },
      content: `/** Fetch page ${k}, again. */\n`,
      if_match: read.version.etag,
    });
  }
  await expect(page.getByTestId('queue-count')).toHaveText('14');
  await queueItem(page, session.multiHunkId).click();
  const rowsInView = () =>
    page.getByTestId('queue-panel').evaluate((queue) => {
      const box = queue.getBoundingClientRect();
      return [...queue.querySelectorAll('[data-testid="queue-item"]')].filter((li) => {
        const r = li.getBoundingClientRect();
        return r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
      }).length;
    });
  const at700 = await rowsInView();
  expect(at700).toBeGreaterThanOrEqual(2);
  // With a batch bar above the proposal, the diff still has its 20 rows.
  expect(await diffRowsShown(page)).toBeGreaterThanOrEqual(20);
  await page.setViewportSize({ width: 1024, height: 1080 });
  await expect.poll(rowsInView).toBeGreaterThanOrEqual(at700 + 6);
  // And the diff kept its 20 rows.
  await expect.poll(() => diffRowsShown(page)).toBeGreaterThanOrEqual(20);
});

test('an empty review panel collapses to a rail; the first proposal opens it', async ({ page }) => {
  const fixtures = makeFixtureDir();
  const workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'notes.txt'), 'Notes\n\nNothing proposed yet.\n');
  const env = { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') };
  const server = await startFolioServe([join(workspace, 'notes.txt')], { cwd: workspace, env });
  try {
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.goto(server.url.href);
    const panel = page.getByTestId('review-panel');
    await expect(panel).toHaveAttribute('data-collapsed', 'true');
    await expect(page.getByTestId('queue-empty')).toBeVisible();
    expect((await boxOf(panel)).width).toBeLessThan(48);
    expect((await boxOf(page.getByTestId('viewer'))).width).toBeGreaterThan(1024 - 48 - 1);
    // Help is still one click away.
    await expect(page.getByTestId('review-help-open')).toBeVisible();

    const { connectAgent } = await import('./mcp-agent.ts');
    const agent = await connectAgent(workspace, env);
    try {
      await agent.call('edit', { path: 'notes.txt', edits: [{ old_text: 'Nothing proposed yet.', new_text: 'One proposal.' }] });
      await expect(panel).toHaveAttribute('data-collapsed', 'false');
      expect((await boxOf(panel)).width).toBeGreaterThan(300);
    } finally {
      await agent.close();
    }
  } finally {
    await server.stop();
    fixtures.remove();
  }
});
