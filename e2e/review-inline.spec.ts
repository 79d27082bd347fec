/**
 * Review in the editor against a real agent (the MCP SDK client over `folio mcp`):
 * the selected proposal's diff drawn inline in the main Monaco editor; an 8-edit
 * session from one read approved in a shuffled order with the review keys (the
 * rebase over many orders is test/review's property; here the keys and the UI); a
 * 3-hunk proposal decided hunk by hunk; conflicts rejected with a reason the agent
 * reads, applied to the current file, or resolved in the 3-way view; every
 * control on screen at 1024×700. Each test has its own workspace and server.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { REPO_ROOT, startFolioServe, type FolioServe } from './folio-serve.ts';
import { connectAgent, type McpAgent } from './mcp-agent.ts';
import { watchPage } from './page-helpers.ts';

// The README's screenshots of the review come from e2e/screenshots.spec.ts (npm run screenshots); these are for looking at a run.
const SCREENSHOTS = join(REPO_ROOT, 'e2e', 'artifacts');
const NAME = 'orders.py';

// Each test has its own workspace, server and agent: the tests of this file may run on several workers at once.
test.describe.configure({ mode: 'parallel' });

interface Session {
  file: string;
  server: FolioServe;
  agent: McpAgent;
  close(): Promise<void>;
}

/** A workspace with `text` as orders.py, served with the file open, and an agent on it. */
async function sessionWith(text: string): Promise<Session> {
  const fixtures = makeFixtureDir();
  const workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  const file = join(workspace, NAME);
  writeFileSync(file, text);
  const env = { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') };
  const server = await startFolioServe([file], { cwd: workspace, env });
  const agent = await connectAgent(workspace, env);
  return {
    file,
    server,
    agent,
    async close() {
      await agent.close();
      await server.stop();
      fixtures.remove();
    },
  };
}

const ordersPy = (lines: number) => Array.from({ length: lines }, (_, i) => `    total_${i + 1} = price * qty  # line ${i + 1}`).join('\n') + '\n';
const queueItem = (page: Page, id: string) => page.locator(`[data-testid="queue-item"][data-proposal-id="${id}"]`);
const fileView = (page: Page) => page.getByTestId('file-view');

/** The agent reads the file once; returns its version. */
async function readOnce(agent: McpAgent): Promise<string> {
  const read = await agent.call('read', { path: NAME });
  return read.version.etag as string;
}

/** A deterministic shuffle (mulberry32), so a failing order can be replayed. */
function shuffled<T>(items: T[], seed: number): T[] {
  let a = seed;
  const random = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

test('the selected proposal’s diff is drawn inline in the main editor, its region marked on the scrollbar', async ({ page }) => {
  const s = await sessionWith(ordersPy(60));
  try {
    const seen = watchPage(page);
    await page.setViewportSize({ width: 1400, height: 800 });
    await page.goto(s.server.url.href);
    const etag = await readOnce(s.agent);
    const answer = await s.agent.call('upsert', {
      path: NAME,
      target: { replace: { start: 30, end: 31 } },
      content: '    total_30 = price * qty * (1 - discount)  # line 30\n    total_31 = round(total_30, 2)  # line 31\n',
      if_match: etag,
    });
    const id = answer.proposal_id as string;
    await queueItem(page, id).click();

    // The removed lines float above the added ones, numbered as in the file.
    const zone = fileView(page).locator('[data-testid="inline-zone"]');
    await expect(zone).toBeVisible();
    await expect(zone).toHaveAttribute('data-proposal-id', id);
    await expect(zone.getByTestId('inline-removed')).toContainText('total_30 = price * qty  # line 30');
    await expect(fileView(page).locator('.folio-inline-margin-row.removed').first()).toHaveText('30');
    // The added lines are rows of the editor, tinted, without a file line number.
    await expect(fileView(page).locator('.view-lines')).toContainText('total_31 = round(total_30, 2)');
    await expect(fileView(page).locator('.view-overlays .folio-inline-added')).toHaveCount(2);
    await expect(zone.getByTestId('inline-accept')).toHaveAttribute('title', /Ctrl\+Enter or Tab/);
    await expect(page.getByTestId('scrollbar-mark')).toHaveAttribute('data-proposal-id', id);
    await page.screenshot({ path: join(SCREENSHOTS, 'review-inline.png') });

    // Accept from the inline toolbar writes the file; the diff leaves the editor.
    await zone.getByTestId('inline-accept').click();
    await expect(page.getByTestId('review-notice')).toContainText('Approved');
    expect(readFileSync(s.file, 'utf8').split('\n')[30]).toBe('    total_31 = round(total_30, 2)  # line 31');
    await expect(fileView(page).locator('[data-testid="inline-zone"]')).toHaveCount(0);
    expect(seen.problems).toEqual([]);
  } finally {
    await s.close();
  }
});

test('8 edits from one read, approved in a shuffled order with F7, Alt+F5 and Ctrl+Enter / Tab: the file is as expected', async ({ page }) => {
  test.setTimeout(120_000);
  const lines = 100;
  const original = ordersPy(lines);
  const s = await sessionWith(original);
  try {
    const seen = watchPage(page);
    await page.setViewportSize({ width: 1400, height: 800 });
    await page.goto(s.server.url.href);
    const etag = await readOnce(s.agent);
    // Distinct regions: every 10th line; replaces of 1–3 lines, inserts and deletes (each kind at least once).
    const edits = Array.from({ length: 8 }, (_, k) => {
      const at = 5 + k * 10;
      if (k % 5 === 3)
        return {
          target: { insert: { at } },
          content: `    # note ${k} before line ${at}\n`,
          start: at,
          removed: 0,
          added: [`    # note ${k} before line ${at}`],
        };
      if (k % 5 === 4) return { target: { delete: { start: at, end: at + 1 } }, content: '', start: at, removed: 2, added: [] as string[] };
      const added = Array.from({ length: 1 + (k % 3) }, (_, j) => `    total_${at} = price * qty * ${k + 2}  # edit ${k}.${j}`);
      return { target: { replace: { start: at, end: at + 1 } }, content: added.join('\n') + '\n', start: at, removed: 2, added };
    });
    const ids: string[] = [];
    for (const e of edits) {
      const answer = await s.agent.call('upsert', { path: NAME, target: e.target, content: e.content, if_match: etag });
      ids.push(answer.proposal_id as string);
    }
    const expected = original.split('\n');
    for (const e of [...edits].sort((a, b) => b.start - a.start)) expected.splice(e.start - 1, e.removed, ...e.added);

    await expect(page.getByTestId('queue-count')).toHaveText(String(edits.length));
    const selectedId = () => page.evaluate(() => document.querySelector('[data-testid="proposal-detail"]')?.getAttribute('data-proposal-id') ?? null);
    const order = shuffled(ids, 20261124);
    for (const [n, id] of order.entries()) {
      // F7 (or Alt+F5) until the change is the focused one.
      for (let presses = 0; (await selectedId()) !== id; presses++) {
        expect(presses, `reaching ${id}`).toBeLessThan(edits.length + 5);
        const before = await selectedId();
        await page.keyboard.press(n % 3 === 2 ? 'Alt+F5' : 'F7');
        await expect.poll(selectedId).not.toBe(before);
      }
      await expect(fileView(page).locator(`[data-testid="inline-zone"][data-proposal-id="${id}"]`)).toBeVisible();
      if (n % 2 === 0) {
        await page.keyboard.press('Control+Enter');
      } else {
        // Tab accepts while the file view has the focus.
        await fileView(page).locator('textarea').focus();
        await page.keyboard.press('Tab');
      }
      await expect(queueItem(page, id)).toHaveCount(0);
    }
    await expect(page.getByTestId('queue-empty')).toBeVisible();
    expect(readFileSync(s.file, 'utf8')).toBe(expected.join('\n'));
    for (const id of ids) expect((await s.agent.call('proposal_status', { proposal_id: id })).status).toBe('applied');
    expect(seen.problems).toEqual([]);
  } finally {
    await s.close();
  }
});

test('a 3-hunk proposal decided hunk by hunk: only the accepted hunks are written, the agent sees each decision', async ({ page }) => {
  const original = ordersPy(60);
  const s = await sessionWith(original);
  try {
    const seen = watchPage(page);
    await page.setViewportSize({ width: 1400, height: 800 });
    await page.goto(s.server.url.href);
    const etag = await readOnce(s.agent);
    const answer = await s.agent.call('upsert', {
      path: NAME,
      targets: [
        { replace: { start: 10, end: 10 }, content: '    total_10 = HUNK_ONE\n' },
        { replace: { start: 25, end: 25 }, content: '    total_25 = HUNK_TWO\n' },
        { replace: { start: 40, end: 40 }, content: '    total_40 = HUNK_THREE\n' },
      ],
      if_match: etag,
    });
    const id = answer.proposal_id as string;
    await queueItem(page, id).click();
    const hunks = page.getByTestId('hunk');
    await expect(hunks).toHaveCount(3);
    // All three are drawn inline, each with its own toolbar.
    await expect(fileView(page).locator('[data-testid="inline-zone"]')).toHaveCount(3);

    // Hunk 1 from the panel.
    await hunks.nth(0).getByTestId('hunk-accept').click();
    await expect(hunks.nth(0)).toHaveAttribute('data-decision', 'applied');
    // Hunk 2 from its inline toolbar, with a reason.
    await page.getByTestId('reject-reason').fill('keep total_25 as it is');
    await fileView(page).locator('[data-testid="inline-zone"][data-hunk="2"]').getByTestId('inline-reject').click();
    await expect(hunks.nth(1)).toHaveAttribute('data-decision', 'rejected');
    // Hunk 3 with the key: the focus moved on to it.
    await expect(hunks.nth(2)).toHaveClass(/focused/);
    await page.keyboard.press('Control+Enter');
    await expect(queueItem(page, id)).toHaveCount(0);

    const expected = original.split('\n');
    expected[9] = '    total_10 = HUNK_ONE';
    expected[39] = '    total_40 = HUNK_THREE';
    expect(readFileSync(s.file, 'utf8')).toBe(expected.join('\n'));
    const status = await s.agent.call('proposal_status', { proposal_id: id });
    expect(status.status).toBe('applied');
    expect(status.hunks).toEqual([
      { index: 1, status: 'applied' },
      { index: 2, status: 'rejected' },
      { index: 3, status: 'applied' },
    ]);
    expect(seen.problems).toEqual([]);
  } finally {
    await s.close();
  }
});

/** Two proposals from one read over overlapping lines: `inner` (one line inside `outer`) is approved first, so `outer` conflicts. */
async function overlappingPair(page: Page, s: Session, outer: [number, number], innerLine: number) {
  const etag = await readOnce(s.agent);
  const outerAnswer = await s.agent.call('upsert', {
    path: NAME,
    target: { replace: { start: outer[0], end: outer[1] } },
    content: Array.from({ length: outer[1] - outer[0] + 1 }, (_, i) => `    total_${outer[0] + i} = AGENT_OUTER`).join('\n') + '\n',
    if_match: etag,
  });
  const innerAnswer = await s.agent.call('upsert', {
    path: NAME,
    target: { replace: { start: innerLine, end: innerLine } },
    content: `    total_${innerLine} = INNER_FIRST\n`,
    if_match: etag,
  });
  await queueItem(page, innerAnswer.proposal_id).click();
  await page.getByTestId('approve').click();
  await expect(queueItem(page, innerAnswer.proposal_id)).toHaveCount(0);
  const id = outerAnswer.proposal_id as string;
  await queueItem(page, id).click();
  await page.getByTestId('approve').click();
  await expect(queueItem(page, id)).toHaveAttribute('data-status', 'conflict');
  return id;
}

test('a conflict says which lines changed, and is rejected with a reason the agent receives', async ({ page }) => {
  const s = await sessionWith(ordersPy(80));
  try {
    await page.setViewportSize({ width: 1400, height: 800 });
    await page.goto(s.server.url.href);
    const id = await overlappingPair(page, s, [51, 61], 55);
    await expect(page.getByTestId('conflict-text')).toContainText('Lines 51–61 changed after the agent read them.');
    await expect(page.getByTestId('conflict-text')).toContainText('An edit applied since (line 55, by');
    const before = readFileSync(s.file, 'utf8');
    await page.getByTestId('reject-reason').fill('line 55 was just changed: re-read and propose again');
    await page.getByTestId('reject').click();
    await expect(queueItem(page, id)).toHaveCount(0);
    const status = await s.agent.call('proposal_status', { proposal_id: id });
    expect(status.status).toBe('rejected');
    expect(status.reason).toBe('line 55 was just changed: re-read and propose again');
    expect(readFileSync(s.file, 'utf8')).toBe(before);
  } finally {
    await s.close();
  }
});

test('a conflict whose own lines are unchanged is applied to the current file', async ({ page }) => {
  const original = ordersPy(40);
  const s = await sessionWith(original);
  try {
    await page.setViewportSize({ width: 1400, height: 800 });
    await page.goto(s.server.url.href);
    const etag = await readOnce(s.agent);
    const answer = await s.agent.call('upsert', {
      path: NAME,
      target: { replace: { start: 12, end: 12 } },
      content: '    total_12 = CURRENT\n',
      if_match: etag,
    });
    const id = answer.proposal_id as string;
    // Someone appends to the file outside Folio: the agent's version is gone, its line is not.
    writeFileSync(s.file, original + 'appended by a person\n');
    await queueItem(page, id).click();
    await page.getByTestId('approve').click();
    await expect(queueItem(page, id)).toHaveAttribute('data-status', 'conflict');
    await expect(page.getByTestId('conflict-text')).toContainText('The file changed after the agent read it.');
    await page.getByTestId('apply-current').click();
    await expect(queueItem(page, id)).toHaveCount(0);
    expect(readFileSync(s.file, 'utf8').split('\n')[11]).toBe('    total_12 = CURRENT');
    expect((await s.agent.call('proposal_status', { proposal_id: id })).status).toBe('applied');
  } finally {
    await s.close();
  }
});

test('a conflict resolved in the 3-way view: saw / now / proposed, the edited text written', async ({ page }) => {
  const s = await sessionWith(ordersPy(80));
  try {
    const seen = watchPage(page);
    await page.setViewportSize({ width: 1400, height: 800 });
    await page.goto(s.server.url.href);
    const id = await overlappingPair(page, s, [40, 42], 41);
    await page.getByTestId('open-three-way').click();
    const view = page.getByTestId('three-way');
    await expect(view.getByTestId('three-way-saw')).toContainText('total_41 = price * qty  # line 41');
    await expect(view.getByTestId('three-way-now')).toContainText('total_41 = INNER_FIRST');
    await expect(view.getByTestId('three-way-proposed')).toContainText('total_41 = AGENT_OUTER');
    await expect(view.getByTestId('three-way-start')).toHaveValue('40');
    await expect(view.getByTestId('three-way-end')).toHaveValue('42');
    await page.screenshot({ path: join(SCREENSHOTS, 'review-three-way.png') });

    const merged = '    total_40 = AGENT_OUTER\n    total_41 = INNER_FIRST + AGENT_OUTER\n    total_42 = AGENT_OUTER\n';
    const editor = view.getByTestId('proposal-editor');
    await editor.locator('.view-lines').click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.insertText(merged);
    await view.getByTestId('three-way-approve').click();
    await expect(view).toHaveCount(0);
    await expect(queueItem(page, id)).toHaveCount(0);
    const lines = readFileSync(s.file, 'utf8').split('\n');
    expect(lines.slice(39, 42).join('\n') + '\n').toBe(merged);
    expect(lines[42]).toBe('    total_43 = price * qty  # line 43');
    // The agent's proposal is applied, as the person merged it.
    const status = await s.agent.call('proposal_status', { proposal_id: id });
    expect(status.status).toBe('applied');
    // The approve that found the conflict answered 412: expected; nothing else failed.
    expect(seen.problems.filter((m) => !/\b412\b/.test(m))).toEqual([]);
  } finally {
    await s.close();
  }
});

test('at 1024×700 every control is on screen; the help overlay names the keys; the panel resizes', async ({ page }) => {
  // Some 40 checks on a 13,000-line file: ~20 s quiet, past 60 s at load 17 (three workers beside other suites).
  test.setTimeout(120_000);
  const s = await sessionWith(ordersPy(13_000));
  try {
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.goto(s.server.url.href);
    const etag = await readOnce(s.agent);
    await s.agent.call('upsert', { path: NAME, target: { replace: { start: 9_990, end: 9_991 } }, content: '    total = 1\n', if_match: etag });
    const answer = await s.agent.call('upsert', {
      path: NAME,
      targets: [
        { replace: { start: 12_001, end: 12_001 }, content: `    total_12001 = ${'a_really_long_expression + '.repeat(12)}0\n` },
        { insert: { at: 12_500 }, content: '    # inserted\n' },
        { delete: { start: 12_990, end: 12_991 } },
      ],
      if_match: etag,
    });
    await queueItem(page, answer.proposal_id).click();
    await expect(page.getByTestId('hunk')).toHaveCount(3);
    await expect(fileView(page).locator('[data-testid="inline-zone"]').first()).toBeVisible();
    // The diff numbers 5-digit lines whole.
    await expect(page.getByTestId('diff-preview').locator('.line-numbers').first()).toHaveText(/^\d{5}$/);

    const viewport = page.viewportSize()!;
    const controls = page.locator('.app button:visible, .app input:visible, .app [role="separator"]');
    const count = await controls.count();
    expect(count).toBeGreaterThan(15);
    const off: string[] = [];
    for (let i = 0; i < count; i++) {
      const c = controls.nth(i);
      await c.scrollIntoViewIfNeeded();
      const box = await c.boundingBox();
      const name = `${await c.evaluate((el) => el.outerHTML.slice(0, 80))}`;
      if (!box || box.x < 0 || box.y < 0 || box.x + box.width > viewport.width + 0.5 || box.y + box.height > viewport.height + 0.5)
        off.push(`${name} ${JSON.stringify(box)}`);
    }
    expect(off).toEqual([]);
    // The review panel itself needs no scrolling for its decision buttons.
    for (const id of ['approve', 'reject', 'reject-reason', 'next-change', 'review-help-open']) {
      const box = (await page.getByTestId(id).boundingBox())!;
      expect(box.y + box.height, id).toBeLessThanOrEqual(viewport.height);
    }
    await page.screenshot({ path: join(SCREENSHOTS, 'review-1024x700.png') });

    await page.locator('body').press('?');
    await expect(page.getByTestId('review-help')).toContainText('F7 or Alt+F5');
    await expect(page.getByTestId('review-help')).toContainText('Ctrl+Backspace or Alt+Delete');
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('review-help')).toHaveCount(0);

    const panel = page.getByTestId('review-panel');
    const before = (await panel.boundingBox())!.width;
    const handle = (await page.getByTestId('review-resizer').boundingBox())!;
    await page.mouse.move(handle.x + handle.width / 2, handle.y + 200);
    await page.mouse.down();
    await page.mouse.move(handle.x - 150, handle.y + 200, { steps: 5 });
    await page.mouse.up();
    expect((await panel.boundingBox())!.width).toBeGreaterThan(before + 100);
  } finally {
    await s.close();
  }
});

test("approve all of a file's proposals in one step: one write, and one undo takes the batch back", async ({ page }) => {
  const original = ordersPy(60);
  const s = await sessionWith(original);
  try {
    await page.goto(s.server.url.href);
    const etag = await readOnce(s.agent);
    const ids: string[] = [];
    for (const line of [10, 20, 30]) {
      const answer = await s.agent.call('upsert', {
        path: NAME,
        target: { replace: { start: line, end: line } },
        content: `    total_${line} = BATCH\n`,
        if_match: etag,
      });
      ids.push(answer.proposal_id as string);
    }
    await expect(queueItem(page, ids[2]!)).toBeVisible();
    await queueItem(page, ids[0]!).click();
    const bar = page.getByTestId('batch-bar');
    await expect(bar).toContainText('3 pending in orders.py');
    await bar.getByTestId('batch-approve').click();
    await expect(page.getByTestId('review-notice')).toContainText('orders.py: 3 approved');
    await expect(page.getByTestId('queue-empty')).toBeVisible();
    // The file, as sed sees it: the three lines changed, nothing else.
    for (const line of [10, 20, 30]) expect(execFileSync('sed', ['-n', `${line}p`, s.file], { encoding: 'utf8' })).toBe(`    total_${line} = BATCH\n`);
    expect(execFileSync('sed', ['-n', '11p', s.file], { encoding: 'utf8' })).toBe('    total_11 = price * qty  # line 11\n');
    for (const id of ids) expect((await s.agent.call('proposal_status', { proposal_id: id })).status).toBe('applied');
    // One undo: the whole batch.
    await page.getByTestId('undo').click();
    await expect.poll(() => readFileSync(s.file, 'utf8')).toBe(original);
  } finally {
    await s.close();
  }
});
