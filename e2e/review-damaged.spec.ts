/**
 * Damaged review data is shown, not skipped: an agent makes two proposals, the
 * last frame of its change log is then damaged on disk (bytes flipped in its
 * middle), and `folio serve` starts on that workspace. The review panel shows
 * the first proposal and a warning naming what did not load and where its bytes
 * were kept aside (src-main/review/damaged.ts), and that copy holds them.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { connectAgent } from './mcp-agent.ts';
import { watchPage } from './page-helpers.ts';

let fixtures: ReturnType<typeof makeFixtureDir>;
let workspace: string;
let server: FolioServe | undefined;

test.beforeAll(() => {
  fixtures = makeFixtureDir();
  workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'notes.txt'), 'one\ntwo\nthree\n');
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

test('a damaged change-log frame: the panel warns with where its bytes were kept, the good proposal is still in the queue', async ({ page }) => {
  const env = { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') };
  const agent = await connectAgent(workspace, env);
  const read = await agent.call('read', { path: 'notes.txt', ranges: [{ start: 1, end: 3 }] });
  const kept = await agent.call('upsert', { path: 'notes.txt', target: { replace: { start: 1, end: 1 } }, content: 'ONE\n', if_match: read.version.etag });
  await agent.call('upsert', { path: 'notes.txt', target: { replace: { start: 3, end: 3 } }, content: 'THREE\n', if_match: read.version.etag });
  await agent.close();

  // The agent's log: flip bytes in the middle of its last frame (4-byte big-endian length, then the payload).
  const changes = join(workspace, '.folio/review/changes');
  const [logName] = readdirSync(changes);
  const log = join(changes, logName!);
  const bytes = readFileSync(log);
  let last = 0;
  for (let pos = 0; pos + 4 <= bytes.length; pos += 4 + bytes.readUInt32BE(pos)) last = pos;
  const len = bytes.readUInt32BE(last);
  for (let i = 0; i < 4; i++) bytes[last + 4 + Math.floor(len / 2) + i]! ^= 0xff;
  writeFileSync(log, bytes);

  server = await startFolioServe([], { cwd: workspace, env });
  const seen = watchPage(page);
  await page.goto(server.url.href);
  await expect(page.getByTestId('channel')).toHaveText('live');
  await expect(page.locator(`[data-testid="queue-item"][data-proposal-id="${kept.proposal_id as string}"]`)).toBeVisible();
  await expect(page.getByTestId('queue-count')).toHaveText('1');
  const warning = page.getByTestId('review-damaged');
  await expect(warning).toBeVisible();
  await expect(warning).toContainText('Damaged review data: decisions may be missing.');
  await expect(warning).toContainText(`of .folio/review/changes/${logName!}`);
  const item = page.getByTestId('review-damaged-item');
  await expect(item).toHaveCount(1);
  const aside = readdirSync(join(workspace, '.folio/review/damaged')).find((n) => n.endsWith('.bin'))!;
  await expect(item).toContainText(join(workspace, '.folio/review/damaged', aside));
  expect(readFileSync(join(workspace, '.folio/review/damaged', aside))).toEqual(bytes.subarray(last + 4, last + 4 + len));
  expect(seen.problems).toEqual([]);
});
