/**
 * Issue 25's "done when", as a reviewer meets it: a real agent (the MCP SDK client
 * over `folio mcp`) leaves a session of 12 proposals over 8 files of a small
 * TypeScript project (quote edits, one of 3 hunks and one replace_all, a two-file
 * edit, a create, a move, a delete, two overlapping positional edits, an insert),
 * a person edits a line one of them quotes, and the reviewer in Chromium:
 * - walks every pending hunk from the first to the last file with F7 alone;
 * - decides the 3-hunk quote edit hunk by hunk with the keys;
 * - resolves the quote edit whose line the person changed in the 3-way view;
 * - accepts all of the session at once, takes it back with one Ctrl+Z in the
 *   file view, and puts it back with Ctrl+Y.
 * Every file on disk is compared byte for byte with what those decisions give,
 * computed here by plain string edits of the original files.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { BIN, startFolioServe, type FolioServe } from './folio-serve.ts';
import { connectAgent, type McpAgent } from './mcp-agent.ts';
import { watchPage } from './page-helpers.ts';

const text = (...lines: string[]) => lines.map((l) => `${l}\n`).join('');

const ORIGINAL: Record<string, string> = {
  'README.md': text('# Demo client', '', 'Talks to foo over http.', '', '## Usage', '', 'Call load() or list().', '', 'See foo docs.'),
  'src/client.ts': text(
    "import { config } from './config';",
    "import { fetchJson } from './util';",
    '',
    'export async function load(id: string) {',
    '  return fetchJson(`${config.host}/items/${id}`);',
    '}',
    '',
    'export async function list() {',
    '  return fetchJson(`${config.host}/items`);',
    '}',
    '',
    'export const VERSION = 1;',
  ),
  'src/config.ts': text(
    '// settings of the http client',
    'export const config = {',
    "  host: 'localhost',",
    '  port: 8080,',
    '  retries: 3,',
    '  timeout: 504,',
    "  region: 'eu-west',",
    '};',
    '',
    'export const DEBUG = false;',
  ),
  'src/legacy.ts': text('export const legacyA = 1;', 'export const legacyB = 2;', 'export const legacyC = 3;'),
  'src/server.ts': text(
    "import { fetchJson } from './util';",
    '',
    'export function start(port: number) {',
    "  console.log('starting on', port);",
    '  const handlers = [];',
    "  handlers.push('items');",
    "  handlers.push('health');",
    '  return handlers;',
    '}',
    '',
    'export function stop() {',
    "  console.log('stopping');",
    '}',
  ),
  'src/util.ts': text('export function fetchJson(url: string) {', '  return fetch(url).then((r) => r.json());', '}'),
};
const CREATED = text(
  'export async function retry<T>(f: () => Promise<T>, times = 3): Promise<T> {',
  '  return f().catch((e) => (times > 1 ? retry(f, times - 1) : Promise.reject(e)));',
  '}',
);
const FILES = [...Object.keys(ORIGINAL), 'src/json.ts', 'src/retry.ts'].sort();

let fixtures: ReturnType<typeof makeFixtureDir>;
let workspace: string;
let server: FolioServe;
let agent: McpAgent;
let env: Record<string, string>;

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  workspace = join(fixtures.dir, 'ws');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  for (const [name, bytes] of Object.entries(ORIGINAL)) writeFileSync(join(workspace, name), bytes);
  env = { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') };
  server = await startFolioServe([join(workspace, 'README.md')], { cwd: workspace, env });
  agent = await connectAgent(workspace, env);
});

test.afterAll(async () => {
  await agent?.close();
  await server?.stop();
  fixtures?.remove();
});

const onDisk = () => Object.fromEntries(FILES.map((f) => [f, existsSync(join(workspace, f)) ? readFileSync(join(workspace, f), 'utf8') : null]));
const etagOf = async (path: string) => (await agent.call('read', { path })).version.etag as string;
const fileView = (page: Page) => page.getByTestId('file-view');
const inFileView = (page: Page) => page.evaluate(() => Boolean(document.activeElement?.closest('[data-testid="file-view"]')));

/** The agent's session: 12 proposals, each answered with its id (review mode). */
async function agentSession(): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  const id = async (name: string, answer: Promise<{ proposal_id?: string; proposals?: { proposal_id: string }[] }>) => {
    const a = await answer;
    ids[name] = a.proposal_id ?? a.proposals![0]!.proposal_id;
  };
  // Positional edits from one read of server.ts: the second overlaps the first.
  const server = await etagOf('src/server.ts');
  await id(
    'quote3',
    agent.call('edit', {
      path: 'src/config.ts',
      edits: [
        { old_text: 'retries: 3', new_text: 'retries: 5' },
        { old_text: 'timeout: 504,', new_text: 'timeout: 504, // gateway timeout' },
        { old_text: "'eu-west'", new_text: "'eu-central'" },
      ],
    }),
  );
  await id(
    'group',
    agent.call('edit', {
      edits: [
        { path: 'src/client.ts', old_text: "from './util'", new_text: "from './json'" },
        { path: 'src/server.ts', old_text: "from './util'", new_text: "from './json'" },
      ],
    }),
  );
  await id('create', agent.call('upsert', { path: 'src/retry.ts', target: { whole_file: true }, content: CREATED, if_none_match: '*' }));
  await id('move', agent.call('upsert', { path: 'src/util.ts', target: { move_to: 'src/json.ts' }, if_match: await etagOf('src/util.ts') }));
  await id('delete', agent.call('upsert', { path: 'src/legacy.ts', target: { delete_file: true }, if_match: await etagOf('src/legacy.ts') }));
  await id(
    'handlers',
    agent.call('upsert', {
      path: 'src/server.ts',
      target: { replace: { start: 6, end: 7 } },
      content: "  handlers.push('items', 'health');\n",
      if_match: server,
    }),
  );
  await id(
    'overlap',
    agent.call('upsert', {
      path: 'src/server.ts',
      target: { replace: { start: 7, end: 7 } },
      content: "  handlers.push('health', 'metrics');\n",
      if_match: server,
    }),
  );
  await id('title', agent.call('edit', { path: 'README.md', edits: [{ old_text: '# Demo client', new_text: '# Demo HTTP client' }] }));
  await id(
    'insert',
    agent.call('upsert', { path: 'README.md', target: { insert: { at: 7 } }, content: 'Install with npm first.\n', if_match: await etagOf('README.md') }),
  );
  await id('all', agent.call('edit', { path: 'README.md', edits: [{ old_text: 'foo', new_text: 'the API', replace_all: true }] }));
  await id('host', agent.call('edit', { path: 'src/config.ts', edits: [{ old_text: "host: 'localhost',", new_text: "host: 'api.example.org'," }] }));
  await id('version', agent.call('edit', { path: 'src/client.ts', edits: [{ old_text: 'VERSION = 1', new_text: 'VERSION = 2' }] }));
  return ids;
}

test('a 12-proposal session over 8 files: F7 alone end to end, per-hunk keys, a 3-way resolve, Accept all and one undo', async ({ page }) => {
  test.setTimeout(240_000);
  const seen = watchPage(page);
  const ids = await agentSession();
  expect(Object.keys(ids)).toHaveLength(12);
  // A person edits, through the CLI (journaled), the very line the host quote edit quotes: its quote still matches.
  const personLine = "  host: 'localhost', // dev";
  const configEtag = JSON.parse(
    execFileSync(process.execPath, [BIN, 'info', 'src/config.ts', '--json'], { cwd: workspace, env: { ...process.env, ...env }, encoding: 'utf8' }),
  ).version.etag;
  execFileSync(process.execPath, [BIN, 'upsert', 'src/config.ts', '--replace', '3-3', '--content', `${personLine}\n`, '--if-match', configEtag, '--json'], {
    cwd: workspace,
    env: { ...process.env, ...env },
  });
  const byPerson = ORIGINAL['src/config.ts']!.replace("  host: 'localhost',\n", `${personLine}\n`);
  expect(onDisk()).toEqual({ ...ORIGINAL, 'src/config.ts': byPerson, 'src/json.ts': null, 'src/retry.ts': null });

  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(server.url.href);
  // 12 calls, 13 proposals: the two-file edit is one proposal per file.
  await expect(page.getByTestId('queue-count')).toHaveText('13');
  await fileView(page).locator('textarea').focus();

  // F7 alone, from the first pending hunk to the last, across every file (path order, then line).
  const walk: [string, number][] = [
    ['README.md', 1],
    ['README.md', 3],
    ['README.md', 7],
    ['src/client.ts', 2],
    ['src/client.ts', 12],
    ['src/config.ts', 3],
    ['src/config.ts', 5],
    ['src/config.ts', 6],
    ['src/config.ts', 7],
    ['src/legacy.ts', 1],
    ['src/retry.ts', 1],
    ['src/server.ts', 1],
    ['src/server.ts', 6],
    ['src/server.ts', 7],
    ['src/util.ts', 1],
  ];
  const position = page.getByTestId('change-position');
  await expect(position).toHaveText(new RegExp(`^${walk.length} pending hunks`));
  for (const [i, [path, line]] of walk.entries()) {
    await page.keyboard.press('F7');
    await expect(position).toHaveText(`Hunk ${i + 1} of ${walk.length} · ${path} · line ${line}`);
  }

  // The 3-hunk quote edit, decided hunk by hunk with the keys: accept, reject, accept.
  const zone = (hunk: number) => fileView(page).locator(`[data-testid="inline-zone"][data-hunk="${hunk}"]`);
  for (let k = 0; k < 8; k++) await page.keyboard.press('Shift+F7'); // back to src/config.ts line 5
  await expect(position).toHaveText(`Hunk 7 of ${walk.length} · src/config.ts · line 5`);
  await expect(zone(1)).toHaveClass(/focused/);
  await expect(zone(1).getByTestId('inline-removed')).toHaveText('  retries: 3,');
  await page.keyboard.press('Control+Enter');
  await expect(page.getByTestId('review-notice')).toContainText('Approved hunk 1');
  await expect(zone(2)).toHaveClass(/focused/);
  await page.keyboard.press('Alt+Delete');
  await expect(page.getByTestId('review-notice')).toContainText('Rejected hunk 2');
  await expect(zone(3)).toHaveClass(/focused/);
  await page.keyboard.press('Control+Enter');
  await expect(page.getByTestId('review-notice')).toContainText('Approved hunk 3');
  const perHunk = byPerson.replace('retries: 3', 'retries: 5').replace("'eu-west'", "'eu-central'");
  await expect.poll(() => onDisk()['src/config.ts']).toBe(perHunk);

  // The host quote edit: its own line changed, so approving it is a conflict, resolved in the 3-way view.
  const hostItem = page.locator(`[data-testid="queue-item"][data-proposal-id="${ids.host!}"]`);
  // The 3-hunk one left the queue once its last hunk was decided.
  await expect(page.locator(`[data-testid="queue-item"][data-proposal-id="${ids.quote3!}"]`)).toHaveCount(0);
  await hostItem.click();
  await expect(page.getByTestId('proposal-detail')).toHaveAttribute('data-proposal-id', ids.host!);
  await page.getByTestId('approve').click();
  await expect(hostItem).toHaveAttribute('data-status', 'conflict');
  expect(onDisk()['src/config.ts']).toBe(perHunk);
  await page.getByTestId('open-three-way').click();
  const view = page.getByTestId('three-way');
  await expect(view.getByTestId('three-way-saw')).toContainText("host: 'localhost',");
  await expect(view.getByTestId('three-way-now')).toContainText(personLine.trim());
  await expect(view.getByTestId('three-way-proposed')).toContainText("host: 'api.example.org',");
  const start = Number(await view.getByTestId('three-way-start').inputValue());
  const end = Number(await view.getByTestId('three-way-end').inputValue());
  const now = perHunk.split('\n');
  const mergedLines = now.slice(start - 1, end).map((l) => (l === personLine ? "  host: 'api.example.org', // dev" : l));
  await view.getByTestId('proposal-editor').locator('.view-line').first().click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.insertText(`${mergedLines.join('\n')}\n`);
  await view.getByTestId('three-way-approve').click();
  await expect(view).toHaveCount(0);
  const resolved = perHunk.replace(personLine, "  host: 'api.example.org', // dev");
  await expect.poll(() => onDisk()['src/config.ts']).toBe(resolved);
  const beforeAll = onDisk();

  // Accept all of the session (the changed-files list, Shift+Ctrl+Enter): the older of the overlapping edits wins, the other is a conflict.
  await fileView(page).locator('textarea').focus();
  await page.keyboard.press('Control+Shift+E');
  await expect(page.getByTestId('changed-files')).toBeVisible();
  await page.keyboard.press('Shift+Control+Enter');
  await expect(page.getByTestId('review-notice')).toContainText('The whole session');
  const serverTs = ORIGINAL['src/server.ts']!.replace("from './util'", "from './json'").replace(
    "  handlers.push('items');\n  handlers.push('health');\n",
    "  handlers.push('items', 'health');\n",
  );
  const accepted = {
    'README.md': text(
      '# Demo HTTP client',
      '',
      'Talks to the API over http.',
      '',
      '## Usage',
      '',
      'Install with npm first.',
      'Call load() or list().',
      '',
      'See the API docs.',
    ),
    'src/client.ts': ORIGINAL['src/client.ts']!.replace("from './util'", "from './json'").replace('VERSION = 1', 'VERSION = 2'),
    'src/config.ts': resolved,
    'src/json.ts': ORIGINAL['src/util.ts']!,
    'src/legacy.ts': null,
    'src/retry.ts': CREATED,
    'src/server.ts': serverTs,
    'src/util.ts': null,
  };
  await expect.poll(onDisk).toEqual(accepted);
  await page.keyboard.press('Escape');
  const overlap = await agent.call('proposal_status', { proposal_id: ids.overlap });
  expect(overlap.status).toBe('conflict');

  // One Ctrl+Z with the focus in the file view takes the whole session back; Ctrl+Y puts it back.
  await fileView(page).locator('textarea').focus();
  await expect.poll(() => inFileView(page)).toBe(true);
  await page.keyboard.press('Control+Z');
  // Undo takes the whole session back: the created file goes away, the moved one returns.
  await expect.poll(onDisk).toEqual(beforeAll);
  await page.keyboard.press('Control+Y');
  await expect.poll(onDisk).toEqual(accepted);
  // The approve that found the conflict answered 412, the create's and move's files 404 before they existed: expected.
  expect(seen.problems.filter((m) => !/\b4(04|09|12)\b/.test(m))).toEqual([]);
});
