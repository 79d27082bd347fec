/**
 * Accessibility of the review, checked by axe-core (injected into the page, run
 * over the whole document) on a real agent session: the file view with a
 * proposal drawn inline, the review panel with pending proposals and a conflict,
 * the 3-way view and the help. No critical and no serious violation; a failure
 * prints each one with its nodes.
 */
import { createRequire } from 'node:module';
import { expect, test, type Page } from '@playwright/test';
import { queueItem, startReviewSession, type ReviewSession } from './review-session.ts';

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
// The app's CSP (script-src 'self') refuses the injected axe script; only the test bypasses it.
test.use({ bypassCSP: true });

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/** axe's critical and serious violations of the page as it is now, one readable line per node. */
async function seriousViolationsOf(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE_PATH });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Violation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations;
  });
  return violations
    .filter((v: Violation) => v.impact === 'critical' || v.impact === 'serious')
    .flatMap((v: Violation) => v.nodes.map((n) => `${v.impact} ${v.id} (${v.help}) at ${JSON.stringify(n.target)}: ${n.failureSummary ?? ''}`));
}

let session: ReviewSession | undefined;
test.afterEach(async () => {
  await session?.close();
  session = undefined;
});

test('axe finds no critical or serious violation on the file view, the review panel, the 3-way view, the help and the query panel', async ({ page }) => {
  session = await startReviewSession(page, { width: 1024, height: 700 });
  const found: Record<string, string[]> = {};

  // The file view, the multi-hunk proposal drawn inline, the panel listing the others and the conflict.
  await queueItem(page, session.multiHunkId).click();
  await expect(page.locator('[data-testid="file-view"] [data-testid="inline-zone"]').first()).toBeVisible();
  await expect(page.getByTestId('diff-preview').locator('.view-line').first()).toBeVisible();
  // The removed lines coloured (asynchronously): their token colours on the red tint are checked too.
  await expect(page.locator('[data-testid="file-view"] .folio-inline-removed-row span').first()).toBeVisible();
  found['file view and review panel'] = await seriousViolationsOf(page);

  // The conflict selected: its explanation and ways out.
  await queueItem(page, session.conflictId).click();
  await expect(page.getByTestId('proposal-conflict')).toBeVisible();
  found['review panel with a conflict'] = await seriousViolationsOf(page);

  await page.getByTestId('open-three-way').click();
  await expect(page.getByTestId('three-way-now')).toBeVisible();
  await expect(page.getByTestId('proposal-editor').locator('.view-line').first()).toBeVisible();
  await expect(page.getByTestId('three-way-now').locator('.text span').first()).toBeVisible();
  found['3-way view'] = await seriousViolationsOf(page);
  await page.getByTestId('three-way-close').click();

  await page.getByTestId('review-help-open').click();
  await expect(page.getByTestId('review-help')).toBeVisible();
  found['help'] = await seriousViolationsOf(page);
  await page.keyboard.press('Escape');

  // The query panel with linked rows (focusable, labelled) and with a typed error.
  await page.getByTestId('query-open').click();
  await page.getByTestId('query-sql').fill('SELECT line, level, message FROM log LIMIT 5');
  await page.getByTestId('query-run').click();
  await expect(page.getByTestId('query-table').locator('tbody tr').first()).toBeVisible();
  found['query panel'] = await seriousViolationsOf(page);

  const report = Object.entries(found)
    .filter(([, v]) => v.length > 0)
    .map(([view, v]) => `${view}:\n  ${v.join('\n  ')}`)
    .join('\n');
  expect(report, report).toBe('');
});
