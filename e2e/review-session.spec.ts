/**
 * Reviewing a whole agent session with the keys only, against a real agent (the
 * MCP SDK client over `folio mcp`) that left pending proposals in four files (a
 * two-hunk edit, a replace, an insert, a whole-file delete): F7 walks every
 * pending hunk across the files, opening each file and revealing its hunk, and
 * wraps; Shift+F7 walks back; Ctrl+Shift+E opens the changed-files list, whose
 * Enter opens a file at its first hunk; Accept all of the session is one undo:
 * Ctrl+Z with the focus in the file view puts every file back byte for byte.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { connectAgent, type McpAgent } from './mcp-agent.ts';
import { docsScreenshot, watchPage } from './page-helpers.ts';

const lines = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `// ${tag} line ${i + 1}`).join('\n') + '\n';
/** The files of the workspace and their bytes before the session. */
const FILES: Record<string, string> = {
  'notes.md': lines('notes', 30),
  'old.txt': lines('old', 5),
  'src/alpha.ts': lines('alpha', 150),
  'src/beta.ts': lines('beta', 60),
};

let fixtures: ReturnType<typeof makeFixtureDir>;
let workspace: string;
let server: FolioServe;
let agent: McpAgent;

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  workspace = join(fixtures.dir, 'ws');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  for (const [name, text] of Object.entries(FILES)) writeFileSync(join(workspace, name), text);
  const env = { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') };
  server = await startFolioServe([join(workspace, 'notes.md')], { cwd: workspace, env });
  agent = await connectAgent(workspace, env);
});

test.afterAll(async () => {
  await agent?.close();
  await server?.stop();
  fixtures?.remove();
});

const etagOf = async (path: string) => (await agent.call('read', { path, ranges: [{ start: 1, end: 1 }] })).version.etag as string;
const onDisk = () =>
  Object.fromEntries(Object.keys(FILES).map((name) => [name, existsSync(join(workspace, name)) ? readFileSync(join(workspace, name), 'utf8') : null]));
const fileView = (page: Page) => page.getByTestId('file-view');
const activeTab = (page: Page) => page.locator('[data-testid="tab"][aria-selected="true"]');
const position = (page: Page) => page.getByTestId('change-position');

test('F7 across files, the changed-files list, Accept all of the session undone by one Ctrl+Z in the file view', async ({ page }) => {
  test.setTimeout(120_000);
  const seen = watchPage(page);
  // The agent's session: pending proposals in four files (review mode answers each with a proposal id).
  const ids: Record<string, string> = {};
  ids.alpha = (
    await agent.call('upsert', {
      path: 'src/alpha.ts',
      targets: [
        { replace: { start: 3, end: 3 }, content: '// ALPHA THREE\n' },
        { replace: { start: 119, end: 121 }, content: '// ALPHA ONE-TWENTY\n' },
      ],
      if_match: await etagOf('src/alpha.ts'),
    })
  ).proposal_id;
  ids.beta = (
    await agent.call('upsert', {
      path: 'src/beta.ts',
      target: { replace: { start: 10, end: 10 } },
      content: '// BETA TEN\n',
      if_match: await etagOf('src/beta.ts'),
    })
  ).proposal_id;
  ids.notes = (
    await agent.call('upsert', { path: 'notes.md', target: { insert: { at: 5 } }, content: '// a note\n', if_match: await etagOf('notes.md') })
  ).proposal_id;
  ids.old = (await agent.call('upsert', { path: 'old.txt', target: { delete_file: true }, if_match: await etagOf('old.txt') })).proposal_id;
  for (const id of Object.values(ids)) expect(id).toEqual(expect.any(String));
  expect(onDisk()).toEqual(FILES);

  await page.setViewportSize({ width: 1400, height: 850 });
  await page.goto(server.url.href);
  await expect(page.getByTestId('queue-count')).toHaveText('4');
  await expect(activeTab(page)).toContainText('notes.md');
  // The person's focus is in the file view (its editor) from here on.
  await fileView(page).locator('textarea').focus();

  // F7 from the first pending hunk to the last, file path order then line: the file opens, the hunk is in view.
  const walk = [
    { tab: 'notes.md', at: 'notes.md · line 5', id: ids.notes, shows: '// notes line 4' },
    { tab: 'old.txt', at: 'old.txt · line 1', id: ids.old, shows: '// old line 1' },
    { tab: 'alpha.ts', at: 'src/alpha.ts · line 3', id: ids.alpha, shows: '// alpha line 2' },
    { tab: 'alpha.ts', at: 'src/alpha.ts · line 119', id: ids.alpha, shows: '// alpha line 117' },
    { tab: 'beta.ts', at: 'src/beta.ts · line 10', id: ids.beta, shows: '// beta line 9' },
  ];
  const expectAt = async (stop: (typeof walk)[number], n: number) => {
    await expect(position(page)).toHaveText(`Hunk ${n} of ${walk.length} · ${stop.at}`);
    await expect(activeTab(page)).toContainText(stop.tab);
    await expect(page.getByTestId('proposal-detail')).toHaveAttribute('data-proposal-id', stop.id!);
    // Its neighbourhood is painted (Monaco paints only the rows in view: line 119 is far below the first screen).
    await expect(fileView(page)).toContainText(stop.shows);
  };
  await expect(position(page)).toHaveText(/^5 pending hunks/);
  for (const [i, stop] of walk.entries()) {
    await page.keyboard.press('F7');
    await expectAt(stop, i + 1);
  }
  // Past the last: back to the first.
  await page.keyboard.press('F7');
  await expectAt(walk[0]!, 1);
  // Shift+F7 walks back the same way, wrapping to the last.
  for (const n of [5, 4, 3, 2, 1]) {
    await page.keyboard.press('Shift+F7');
    await expectAt(walk[n - 1]!, n);
  }

  // The changed-files list, one key away: file, kind, pending hunks, agent.
  await page.keyboard.press('Control+Shift+E');
  const list = page.getByTestId('changed-files');
  await expect(list).toBeVisible();
  const rows = list.getByTestId('changed-file');
  await expect(rows).toHaveCount(4);
  await expect(rows.nth(0)).toContainText('notes.md');
  await expect(rows.nth(1)).toContainText('old.txt');
  await expect(rows.nth(1)).toContainText('delete');
  await expect(rows.nth(2)).toContainText('src/alpha.ts');
  await expect(rows.nth(2)).toContainText('2 hunks');
  await expect(rows.nth(3)).toContainText('e2e-agent');
  await expect(list.getByTestId('changed-files-summary')).toHaveText('4 files, 5 pending hunks');
  await docsScreenshot(page, 'review-changed-files.png');
  // Arrow keys move in it; Enter opens the file at its first pending hunk.
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowUp');
  await expect(rows.nth(2)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(list).toHaveCount(0);
  await expectAt(walk[2]!, 3);
  // The focus went back to the file view.
  await expect.poll(() => page.evaluate(() => Boolean(document.activeElement?.closest('[data-testid="file-view"]')))).toBe(true);

  // Accept all of the session (Shift+Ctrl+Enter in the list): every file written, the delete too.
  await page.keyboard.press('Control+Shift+E');
  await expect(list).toBeVisible();
  await page.keyboard.press('Shift+Control+Enter');
  await expect(page.getByTestId('review-notice')).toHaveText('The whole session: 4 approved (one undo takes it back)');
  await expect(page.getByTestId('queue-empty')).toBeVisible();
  await expect(list.getByTestId('changed-files-summary')).toHaveText('Nothing waits for a decision.');
  const approved = onDisk();
  expect(approved['old.txt']).toBeNull();
  expect(approved['notes.md']).toContain('// notes line 4\n// a note\n// notes line 5\n');
  expect(approved['src/alpha.ts']).toContain('// ALPHA THREE\n');
  expect(approved['src/alpha.ts']).toContain('// alpha line 118\n// ALPHA ONE-TWENTY\n// alpha line 122\n');
  expect(approved['src/beta.ts']).toContain('// BETA TEN\n');
  await page.keyboard.press('Escape');
  await expect(list).toHaveCount(0);

  // One Ctrl+Z, with the focus in the file view: every file as before the session, byte for byte.
  await expect.poll(() => page.evaluate(() => Boolean(document.activeElement?.closest('[data-testid="file-view"]')))).toBe(true);
  await page.keyboard.press('Control+Z');
  await expect(page.getByTestId('review-notice')).toContainText('Undid the edit of');
  await expect.poll(onDisk).toEqual(FILES);
  // And Ctrl+Y puts the whole session back.
  await page.keyboard.press('Control+Y');
  await expect(page.getByTestId('review-notice')).toContainText('Redid the edit of');
  await expect.poll(onDisk).toEqual(approved);
  expect(seen.problems).toEqual([]);
});
