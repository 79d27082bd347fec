/**
 * Each applied edit has its own Undo (Redo once undone): two agent edits of two
 * files approved in the panel; undoing the older one by its own button restores
 * its file on disk and leaves the newer edit, and its file, as they were.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { REPO_ROOT, startFolioServe, type FolioServe } from './folio-serve.ts';
import { connectAgent, type McpAgent } from './mcp-agent.ts';
import { watchPage } from './page-helpers.ts';

const ORIGINAL = {
  'first.txt': 'first 1\nfirst 2\nfirst 3\n',
  'second.txt': 'second 1\nsecond 2\nsecond 3\n',
  'third.txt': 'third 1\nthird 2\nthird 3\n',
} as const;
type Name = keyof typeof ORIGINAL;

let fixtures: ReturnType<typeof makeFixtureDir>;
let workspace: string;
let server: FolioServe;
let agent: McpAgent;

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  for (const [name, text] of Object.entries(ORIGINAL)) writeFileSync(join(workspace, name), text);
  const env = { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') };
  server = await startFolioServe([], { cwd: workspace, env });
  agent = await connectAgent(workspace, env);
});

test.afterAll(async () => {
  await agent?.close();
  await server?.stop();
  fixtures?.remove();
});

const onDisk = (name: Name) => readFileSync(join(workspace, name), 'utf8');

/** The agent proposes to replace lines `start..end` of `name`; the person approves it in the panel. Resolves with the journal id. */
async function proposeAndApprove(page: Page, name: Name, content: string, start = 2, end = start): Promise<string> {
  const read = await agent.call('read', { path: name, ranges: [{ start, end }] });
  const answer = await agent.call('upsert', { path: name, target: { replace: { start, end } }, content: `${content}\n`, if_match: read.version.etag });
  const item = page.locator(`[data-testid="queue-item"][data-proposal-id="${answer.proposal_id as string}"]`);
  await item.click();
  await expect(page.getByTestId('proposal-detail')).toHaveAttribute('data-proposal-id', answer.proposal_id as string);
  await page.getByTestId('approve').click();
  // The decision's outcome first: a refused approve names its reason here (the queue alone would only time out).
  await expect(page.getByTestId('review-notice').or(page.getByTestId('review-problem'))).toContainText(/Approved|\w+_\w+|conflict/);
  await expect(page.getByTestId('review-problem')).toHaveCount(0);
  await expect(item).toHaveCount(0);
  const status = await agent.call('proposal_status', { proposal_id: answer.proposal_id });
  expect(status.status).toBe('applied');
  // The newest entry is the first.
  const entry = page.getByTestId('applied-edit').first();
  await expect(entry).toContainText(name);
  return (await entry.getAttribute('data-journal-id')) ?? '';
}

test('undo the older of two applied edits by its own button: its file is restored, the other edit stays', async ({ page }) => {
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1500, height: 900 });
  await page.goto(server.url.href);
  await expect(page.getByTestId('channel')).toHaveText('live');
  const older = await proposeAndApprove(page, 'first.txt', 'FIRST 2');
  const newer = await proposeAndApprove(page, 'second.txt', 'SECOND 2');
  expect(onDisk('first.txt')).toBe('first 1\nFIRST 2\nfirst 3\n');
  const olderRow = page.locator(`[data-journal-id="${older}"]`);
  const newerRow = page.locator(`[data-journal-id="${newer}"]`);
  // Newest first.
  await expect(page.getByTestId('applied-edit').first()).toHaveAttribute('data-journal-id', newer);

  await olderRow.getByTestId('entry-undo').click();
  await expect(page.getByTestId('review-notice')).toContainText('Undid the edit of first.txt');
  expect(onDisk('first.txt')).toBe(ORIGINAL['first.txt']);
  expect(onDisk('second.txt')).toBe('second 1\nSECOND 2\nsecond 3\n');
  await expect(olderRow).toHaveAttribute('data-undone', 'true');
  await expect(newerRow).toHaveAttribute('data-undone', 'false');
  await expect(newerRow.getByTestId('entry-undo')).toBeVisible();
  await page.screenshot({ path: join(REPO_ROOT, 'e2e', 'artifacts', 'applied-edits-per-entry.png') });

  // The undone entry's button is now Redo.
  await olderRow.getByTestId('entry-redo').click();
  await expect(page.getByTestId('review-notice')).toContainText('Redid the edit of first.txt');
  expect(onDisk('first.txt')).toBe('first 1\nFIRST 2\nfirst 3\n');
  await expect(olderRow).toHaveAttribute('data-undone', 'false');

  // Ctrl+Z in the panel still undoes the latest edit (the redo made first.txt's the latest).
  await page.getByTestId('review-panel').focus();
  await page.keyboard.press('Control+z');
  await expect(olderRow).toHaveAttribute('data-undone', 'true');
  expect(onDisk('first.txt')).toBe(ORIGINAL['first.txt']);
  await page.keyboard.press('Control+z');
  await expect(newerRow).toHaveAttribute('data-undone', 'true');
  expect(onDisk('second.txt')).toBe(ORIGINAL['second.txt']);
  expect(seen.problems).toEqual([]);
});

test('undoing an older edit that a later one rewrote shows the conflict naming the later edit, and writes nothing', async ({ page }) => {
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1500, height: 900 });
  await page.goto(server.url.href);
  await expect(page.getByTestId('channel')).toHaveText('live');
  const older = await proposeAndApprove(page, 'third.txt', 'THIRD 2');
  const later = await proposeAndApprove(page, 'third.txt', 'all\nnew\nlines', 1, 3);
  const before = onDisk('third.txt');
  expect(before).toBe('all\nnew\nlines\n');

  await page.locator(`[data-journal-id="${older}"]`).getByTestId('entry-undo').click();
  await expect(page.getByTestId('review-problem')).toContainText('conflict');
  await expect(page.getByTestId('review-problem')).toContainText(`later edits of this file are applied (${later}): undo them first`);
  expect(onDisk('third.txt')).toBe(before);
  await expect(page.locator(`[data-journal-id="${older}"]`)).toHaveAttribute('data-undone', 'false');

  // As it says: undo the later edit, then the older one.
  await page.locator(`[data-journal-id="${later}"]`).getByTestId('entry-undo').click();
  await expect(page.locator(`[data-journal-id="${later}"]`)).toHaveAttribute('data-undone', 'true');
  await page.locator(`[data-journal-id="${older}"]`).getByTestId('entry-undo').click();
  await expect(page.locator(`[data-journal-id="${older}"]`)).toHaveAttribute('data-undone', 'true');
  expect(onDisk('third.txt')).toBe(ORIGINAL['third.txt']);
  // The refused undo answers 409, which Chromium logs as a console error: expected.
  expect(seen.problems.filter((m) => !/\b4\d\d\b/.test(m))).toEqual([]);
});
