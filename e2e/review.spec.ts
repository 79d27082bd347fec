/**
 * The review panel against a real agent: an MCP client proposes edits through
 * `folio mcp` in the workspace that `folio serve` shows; each proposal appears in
 * the QueuePanel without a reload, with its diff; approve writes the file, Undo
 * and Redo (buttons and keys) put it back and again; reject and conflicts show.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { REPO_ROOT, startFolioServe, type FolioServe } from './folio-serve.ts';
import { connectAgent, type McpAgent } from './mcp-agent.ts';
import { offHostOf, selectByMouse, selectedLinesOf, shownLinesOf, watchPage } from './page-helpers.ts';

const ARTIFACTS = join(REPO_ROOT, 'e2e', 'artifacts');
const ORIGINAL = Array.from({ length: 60 }, (_, i) => `config line ${i + 1}: value=${(i * 7) % 13}`).join('\n') + '\n';

let fixtures: ReturnType<typeof makeFixtureDir>;
let workspace: string;
let file: string;
let env: Record<string, string>;
let server: FolioServe;
let agent: McpAgent;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  file = join(workspace, 'settings.txt');
  writeFileSync(file, ORIGINAL);
  env = { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') };
  server = await startFolioServe([file], { cwd: workspace, env });
  agent = await connectAgent(workspace, env);
});

test.afterAll(async () => {
  await agent?.close();
  await server?.stop();
  fixtures?.remove();
});

const lineOfDisk = (lineNo: number) => readFileSync(file, 'utf8').split('\n')[lineNo - 1];

/** The agent reads lines `start..end` and proposes to replace them; resolves with the proposal id and when the answer came. */
async function propose(start: number, end: number, content: string): Promise<{ id: string; answeredAt: number; sentAt: number }> {
  const read = await agent.call('read', { path: 'settings.txt', ranges: [{ start, end }] });
  const sentAt = performance.now();
  const answer = await agent.call('upsert', {
    path: 'settings.txt',
    target: { replace: { start, end } },
    content,
    if_match: read.version.etag,
  });
  expect(answer.proposal_id, JSON.stringify(answer)).toEqual(expect.any(String));
  return { id: answer.proposal_id as string, answeredAt: performance.now(), sentAt };
}

const queueItem = (page: Page, id: string) => page.locator(`[data-testid="queue-item"][data-proposal-id="${id}"]`);

test('an agent’s proposal appears live, shows its diff, and approve → undo → redo change the file', async ({ page }) => {
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1500, height: 900 });
  await page.goto(server.url.href);
  await expect(page.getByTestId('queue-empty')).toBeVisible();
  await expect(page.getByTestId('channel')).toHaveText('live');

  const p = await propose(10, 11, 'config line 10: value=CHANGED\nconfig line 11: value=CHANGED TOO\n');
  // Checked every frame (an expect() retries at 100, 250, 500 ms…, which would be what it measured).
  await page.waitForFunction((id) => document.querySelector(`[data-testid="queue-item"][data-proposal-id="${id}"]`) !== null, p.id, { polling: 'raf' });
  const visibleAt = performance.now();
  await expect(queueItem(page, p.id)).toBeVisible();
  console.log(
    `[measure] proposal → visible in QueuePanel: ${Math.round(visibleAt - p.answeredAt)} ms after the agent's answer, ` +
      `${Math.round(visibleAt - p.sentAt)} ms after the upsert call`,
  );
  await expect(queueItem(page, p.id)).toContainText('settings.txt');
  await expect(queueItem(page, p.id)).toContainText('lines 10–11');
  await expect(queueItem(page, p.id)).toContainText('e2e-agent');

  await queueItem(page, p.id).click();
  const diff = page.getByTestId('diff-preview');
  // The modified side's own lines: once the diff worker answers, the removed lines may be drawn in it too, as a view zone.
  await expect(diff.locator('.modified-in-monaco-diff-editor .view-lines:not([monaco-view-zone])')).toContainText('value=CHANGED TOO');
  // The removed lines are drawn once the diff worker answered.
  await expect(diff.locator('.view-lines.line-delete, .view-zones .line-delete, .inline-deleted-text, .char-delete').first()).toBeAttached();
  await expect(diff).toContainText('config line 10: value=11');
  // The diff is the proposal's hunk (the change model), numbered as in the file: it starts at line 10.
  await expect(diff.locator('.modified-in-monaco-diff-editor .line-numbers').first()).toHaveText('10');
  await page.screenshot({ path: join(ARTIFACTS, 'review-panel-diff.png') });

  await page.getByTestId('approve').click();
  await expect(page.getByTestId('review-notice')).toContainText('Approved');
  // Two lines: no question asked.
  await expect(page.getByTestId('confirm-approve-dialog')).toHaveCount(0);
  expect(lineOfDisk(10)).toBe('config line 10: value=CHANGED');
  await expect(queueItem(page, p.id)).toHaveCount(0);
  await expect(page.getByTestId('applied-edit')).toHaveCount(1);
  // The viewer follows the file it shows.
  await expect.poll(async () => (await shownLinesOf(page)).find((r) => r.lineNo === 11)?.text).toBe('config line 11: value=CHANGED TOO');

  await page.getByTestId('undo').click();
  await expect(page.getByTestId('review-notice')).toContainText('Undid');
  expect(readFileSync(file, 'utf8')).toBe(ORIGINAL);

  // Keys work while the review panel has focus.
  await page.getByTestId('review-panel').focus();
  await page.keyboard.press('Control+Shift+z');
  await expect(page.getByTestId('review-notice')).toContainText('Redid');
  expect(lineOfDisk(10)).toBe('config line 10: value=CHANGED');
  await page.keyboard.press('Control+z');
  await expect(page.getByTestId('review-notice')).toContainText('Undid');
  expect(readFileSync(file, 'utf8')).toBe(ORIGINAL);
  await page.getByTestId('redo').click();
  await expect(page.getByTestId('review-notice')).toContainText('Redid');
  expect(lineOfDisk(11)).toBe('config line 11: value=CHANGED TOO');

  const status = await agent.call('proposal_status', { proposal_id: p.id });
  expect(status.status).toBe('applied');
  expect(seen.problems).toEqual([]);
  expect(offHostOf(seen.urls)).toEqual([]);
});

test('a proposal arriving while lines are selected leaves them selected, and Copy link names them', async ({ page }) => {
  await page.setViewportSize({ width: 1500, height: 900 });
  await page.goto(server.url.href);
  await expect(page.locator('[data-testid="file-view"] .view-line').first()).toBeVisible();
  await selectByMouse(page, 5, 7);
  await expect.poll(() => selectedLinesOf(page)).toEqual([5, 6, 7]);
  // The queue changes under the view (the same window drawn again): the person's selection stays.
  const p = await propose(50, 50, 'config line 50: value=LATER\n');
  await expect(queueItem(page, p.id)).toBeVisible();
  await expect.poll(() => selectedLinesOf(page)).toEqual([5, 6, 7]);
  await page.getByRole('button', { name: 'Copy link' }).click();
  await expect(page.getByTestId('copy-link-command')).toHaveText(`folio read ${file} --lines 5-7`);
  await page.keyboard.press('Escape');
  await queueItem(page, p.id).click();
  await page.getByTestId('reject').click();
  await expect(queueItem(page, p.id)).toHaveCount(0);
});

test('reject with a reason: the proposal leaves the queue and the agent sees the reason', async ({ page }) => {
  await page.goto(server.url.href);
  const before = readFileSync(file, 'utf8');
  const p = await propose(20, 20, 'config line 20: value=NOPE\n');
  await queueItem(page, p.id).click();
  await page.getByTestId('reject-reason').fill('wrong value');
  await page.getByTestId('reject').click();
  await expect(queueItem(page, p.id)).toHaveCount(0);
  const status = await agent.call('proposal_status', { proposal_id: p.id });
  expect(status.status).toBe('rejected');
  expect(JSON.stringify(status)).toContain('wrong value');
  expect(readFileSync(file, 'utf8')).toBe(before);
});

test('a proposal whose file changed meanwhile shows the conflict and writes nothing', async ({ page }) => {
  const seen = watchPage(page);
  await page.goto(server.url.href);
  const p = await propose(30, 30, 'config line 30: value=STALE\n');
  await expect(queueItem(page, p.id)).toBeVisible();
  // Someone else edits the file after the agent read it.
  const changed = readFileSync(file, 'utf8') + 'appended by a person\n';
  writeFileSync(file, changed);

  await queueItem(page, p.id).click();
  await page.getByTestId('approve').click();
  await expect(page.getByTestId('review-problem')).toContainText('precondition_failed');
  await expect(queueItem(page, p.id)).toHaveAttribute('data-status', 'conflict');
  await expect(page.getByTestId('proposal-conflict')).toContainText('the file changed after the agent read it');
  expect(readFileSync(file, 'utf8')).toBe(changed);
  // The failed approve answers 409, which Chromium logs as a console error: expected.
  expect(seen.problems.filter((m) => !/\b4\d\d\b/.test(m))).toEqual([]);
});

test('edit then approve: the file holds the person’s text, not the agent’s', async ({ page }) => {
  const seen = watchPage(page);
  await page.goto(server.url.href);
  const p = await propose(40, 41, 'config line 40: value=AGENT\nconfig line 41: value=AGENT TOO\n');
  await queueItem(page, p.id).click();
  // Enabled once review_show brought the proposed content.
  await expect(page.getByTestId('edit')).toBeEnabled();
  await page.getByTestId('edit').click();
  const editor = page.getByTestId('proposal-editor');
  await expect(editor.locator('.view-lines')).toContainText('value=AGENT TOO');
  await expect(page.getByTestId('diff-preview')).toHaveCount(0);

  await editor.locator('.view-lines').click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.insertText('config line 40: value=HUMAN\nconfig line 41: value=HUMAN TOO\n');
  await expect(editor.locator('.view-lines')).toContainText('value=HUMAN TOO');
  await expect(editor.locator('.view-lines')).not.toContainText('AGENT');
  await page.getByTestId('approve-edited').click();
  await expect(page.getByTestId('review-notice')).toContainText('Approved with your edit');

  expect(lineOfDisk(40)).toBe('config line 40: value=HUMAN');
  expect(lineOfDisk(41)).toBe('config line 41: value=HUMAN TOO');
  expect(readFileSync(file, 'utf8')).not.toContain('AGENT');
  await expect(queueItem(page, p.id)).toHaveCount(0);
  const status = await agent.call('proposal_status', { proposal_id: p.id });
  expect(status.status).toBe('applied');
  expect(seen.problems).toEqual([]);
});

test('approving a 60-line replace asks first: Cancel writes nothing, Approve applies', async ({ page }) => {
  const seen = watchPage(page);
  await page.goto(server.url.href);
  const rewritten = Array.from({ length: 60 }, (_, i) => `rewritten line ${i + 1}`).join('\n') + '\n';
  const p = await propose(1, 60, rewritten);
  await queueItem(page, p.id).click();
  const before = readFileSync(file, 'utf8');

  await page.getByTestId('approve').click();
  const dialog = page.getByTestId('confirm-approve-dialog');
  await expect(dialog).toBeVisible();
  await expect(page.getByTestId('confirm-approve-question')).toHaveText('edit, 1 hunk, lines 1–60: this replaces 60 lines. Approve?');
  await page.getByTestId('confirm-cancel').click();
  await expect(dialog).toHaveCount(0);
  expect(readFileSync(file, 'utf8')).toBe(before);
  expect((await agent.call('proposal_status', { proposal_id: p.id })).status).toBe('pending');
  await expect(queueItem(page, p.id)).toHaveAttribute('data-status', 'pending');

  await page.getByTestId('approve').click();
  await expect(dialog).toBeVisible();
  await page.getByTestId('confirm-approve').click();
  await expect(page.getByTestId('review-notice')).toContainText('Approved');
  await expect(dialog).toHaveCount(0);
  expect(lineOfDisk(1)).toBe('rewritten line 1');
  expect(lineOfDisk(60)).toBe('rewritten line 60');
  expect(readFileSync(file, 'utf8')).toBe(rewritten + before.split('\n').slice(60).join('\n'));
  expect((await agent.call('proposal_status', { proposal_id: p.id })).status).toBe('applied');
  expect(seen.problems).toEqual([]);
});
