/**
 * A person's `folio upsert` from a terminal while the app is open: the CLI journals
 * it without loading the review document (src-main/review/applied-log.ts), and the
 * app folds it in as it appears. It shows as an applied edit with its own Undo,
 * which restores the file on disk.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { BIN, startFolioServe, type FolioServe } from './folio-serve.ts';
import { watchPage } from './page-helpers.ts';

const ORIGINAL = 'notes 1\nnotes 2\nnotes 3\n';

let fixtures: ReturnType<typeof makeFixtureDir>;
let workspace: string;
let env: Record<string, string>;
let server: FolioServe;

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'notes.txt'), ORIGINAL);
  env = { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') };
  server = await startFolioServe([], { cwd: workspace, env });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

const folio = (...args: string[]) => execFileSync(process.execPath, [BIN, ...args], { cwd: workspace, env: { ...process.env, ...env }, encoding: 'utf8' });

test('an upsert made with the CLI while the app is open shows as an applied edit, and its Undo restores the file', async ({ page }) => {
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1500, height: 900 });
  await page.goto(server.url.href);
  await expect(page.getByTestId('channel')).toHaveText('live');

  const etag = JSON.parse(folio('info', 'notes.txt', '--json')).version.etag as string;
  const answer = JSON.parse(folio('upsert', 'notes.txt', '--replace', '2-2', '--content', 'NOTES 2\n', '--if-match', etag, '--json'));
  const entryId = /journaled as (j-[0-9a-f]+)/.exec((answer.notes as string[]).join('\n'))?.[1];
  expect(entryId).toBeDefined();
  expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('notes 1\nNOTES 2\nnotes 3\n');

  const row = page.locator(`[data-journal-id="${entryId}"]`);
  await expect(row).toContainText('notes.txt');
  await row.getByTestId('entry-undo').click();
  await expect(page.getByTestId('review-notice')).toContainText('Undid the edit of notes.txt');
  expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe(ORIGINAL);
  await expect(row).toHaveAttribute('data-undone', 'true');
  expect(seen.problems).toEqual([]);
});
