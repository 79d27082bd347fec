/**
 * Every proposal kind reviewed the same way, against a real agent (the MCP SDK
 * client over `folio mcp`): a quote edit of 3 hunks, a two-file edit, a create, a
 * move and a delete each show inline (removed and added lines, or the file-level
 * banner) with their label; the quote edit is decided hunk by hunk with a click and
 * the keys; a quote edit whose own line a person changed is resolved in the 3-way
 * view. Every file on disk is compared byte for byte with what the decisions make.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { connectAgent, type McpAgent } from './mcp-agent.ts';
import { watchPage } from './page-helpers.ts';

/** 20 lines; the quote edit changes lines 2, 9 and 17. */
const CONFIG = [
  'export const config = {',
  '  retries: 3,',
  '  backoffMs: 250,',
  '  maxBackoffMs: 8000,',
  '  jitter: true,',
  '  poolSize: 16,',
  '  keepAlive: true,',
  '  idleMs: 30000,',
  '  timeout: 504,',
  '  logLevel: INFO,',
  '  tracing: false,',
  '  sampleRate: 0.1,',
  '  cacheTtl: 60,',
  '  cacheSize: 1024,',
  '  compress: true,',
  '  userAgent: FOLIO,',
  '  region: EU_WEST,',
  '  zone: A,',
  '  shards: 4,',
  '};',
]
  .map((l) => `${l}\n`)
  .join('');
const QUOTES = [
  { old_text: 'retries: 3,', new_text: 'retries: 5,' },
  { old_text: 'timeout: 504,', new_text: 'timeout: 504, // gateway timeout' },
  { old_text: 'region: EU_WEST,', new_text: 'region: EU_CENTRAL,' },
];
const API = 'export function get(url: string) {\n  return fetch(url);\n}\n';
const CACHE = 'export const cache = new Map<string, string>();\nexport const CACHE_LIMIT = 100;\n';
const OLD_NAME = '// a small helper, 1.2 KB once grown\n' + 'export const helper = 1;\n'.repeat(40);
const LEGACY = 'export const legacyA = 1;\nexport const legacyB = 2;\nexport const legacyC = 3;\n';
const CREATED = 'export const created = true;\nexport const version = 2;\n';

interface Session {
  ws: string;
  server: FolioServe;
  agent: McpAgent;
  close(): Promise<void>;
}

// Each test has its own workspace, server and agent: the tests of this file may run on several workers at once.
test.describe.configure({ mode: 'parallel' });

async function session(): Promise<Session> {
  const fixtures = makeFixtureDir();
  const ws = join(fixtures.dir, 'ws');
  mkdirSync(join(ws, 'src'), { recursive: true });
  writeFileSync(join(ws, 'src/config.ts'), CONFIG);
  writeFileSync(join(ws, 'src/api.ts'), API);
  writeFileSync(join(ws, 'src/cache.ts'), CACHE);
  writeFileSync(join(ws, 'src/old-name.ts'), OLD_NAME);
  writeFileSync(join(ws, 'src/legacy.ts'), LEGACY);
  const env = { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') };
  const server = await startFolioServe([join(ws, 'src/config.ts')], { cwd: ws, env });
  const agent = await connectAgent(ws, env);
  return {
    ws,
    server,
    agent,
    async close() {
      await agent.close();
      await server.stop();
      fixtures.remove();
    },
  };
}

const fileView = (page: Page) => page.getByTestId('file-view');
const queueItemOf = (page: Page, path: string) => page.getByTestId('queue-item').filter({ hasText: path });
const onDisk = (s: Session, path: string) => readFileSync(join(s.ws, path), 'utf8');

/** The agent's quote edit of config.ts (3 hunks), after reading it. */
async function sendQuoteEdit(s: Session): Promise<string> {
  await s.agent.call('read', { path: 'src/config.ts' });
  const answer = await s.agent.call('edit', { path: 'src/config.ts', edits: QUOTES });
  return answer.proposal_id as string;
}

test('every kind shows inline with its label; hunks of a quote edit decided one by one; disk as decided', async ({ page }) => {
  test.setTimeout(120_000);
  const s = await session();
  try {
    const seen = watchPage(page);
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(s.server.url.href);
    const quoteId = await sendQuoteEdit(s);
    await s.agent.call('edit', {
      edits: [
        { path: 'src/api.ts', old_text: 'return fetch(url);', new_text: 'return fetch(url, { cache: NO_STORE });' },
        { path: 'src/cache.ts', old_text: 'CACHE_LIMIT = 100', new_text: 'CACHE_LIMIT = 500' },
      ],
    });
    await s.agent.call('upsert', { path: 'src/new.ts', target: { whole_file: true }, content: CREATED, if_none_match: '*' });
    const moveEtag = (await s.agent.call('read', { path: 'src/old-name.ts' })).version.etag as string;
    await s.agent.call('upsert', { path: 'src/old-name.ts', target: { move_to: 'src/new-name.ts' }, if_match: moveEtag });
    const legacyEtag = (await s.agent.call('read', { path: 'src/legacy.ts' })).version.etag as string;
    await s.agent.call('upsert', { path: 'src/legacy.ts', target: { delete_file: true }, if_match: legacyEtag });
    await expect(page.getByTestId('queue-item')).toHaveCount(6);

    // Labels say what each change is.
    await expect(queueItemOf(page, 'src/config.ts')).toContainText('quote edit, 3 hunks');
    for (const path of ['src/new.ts', 'src/old-name.ts', 'src/legacy.ts']) {
      await expect(queueItemOf(page, path)).not.toContainText(/append|whole file|bytes 0–0|lines 2–1/);
    }
    await expect(queueItemOf(page, 'src/new.ts')).toContainText('create');
    await expect(queueItemOf(page, 'src/old-name.ts')).toContainText(/move .*old-name\.ts → .*new-name\.ts/);
    await expect(queueItemOf(page, 'src/legacy.ts')).toContainText('delete');

    // The quote edit: three zones, each with its removed line above its added one.
    await queueItemOf(page, 'src/config.ts').click();
    const zones = fileView(page).locator('[data-testid="inline-zone"]');
    await expect(zones).toHaveCount(3);
    await expect(zones.nth(0)).toHaveAttribute('data-hunk', '1');
    await expect(zones.nth(0).getByTestId('inline-removed')).toHaveText('  retries: 3,');
    await expect(zones.nth(1).getByTestId('inline-removed')).toHaveText('  timeout: 504,');
    await expect(zones.nth(2).getByTestId('inline-removed')).toHaveText('  region: EU_WEST,');
    const rows = fileView(page).locator('.view-lines');
    await expect(rows).toContainText('retries: 5,');
    await expect(rows).toContainText('timeout: 504, // gateway timeout');
    await expect(rows).toContainText('region: EU_CENTRAL,');
    await expect(page.getByTestId('hunk')).toHaveCount(3);
    await expect(page.getByTestId('hunk').nth(1)).toContainText('line 9');

    // Hunk 1 accepted with a click, hunk 3 rejected with the keys (F7 to it, Alt+Delete).
    await zones.nth(0).getByTestId('inline-accept').click();
    await expect(page.getByTestId('review-notice')).toContainText('Approved hunk 1');
    await expect(fileView(page).locator('[data-testid="inline-zone"][data-hunk="2"]')).toHaveClass(/focused/);
    await page.keyboard.press('F7');
    await expect(fileView(page).locator('[data-testid="inline-zone"][data-hunk="3"]')).toHaveClass(/focused/);
    await page.keyboard.press('Alt+Delete');
    await expect(page.getByTestId('review-notice')).toContainText('Rejected hunk 3');
    await expect(fileView(page).locator('[data-testid="inline-zone"]')).toHaveCount(1);
    expect(onDisk(s, 'src/config.ts')).toBe(CONFIG.replace('retries: 3,', 'retries: 5,'));
    const status = await s.agent.call('proposal_status', { proposal_id: quoteId });
    expect(status.status).toBe('pending');

    // The two-file edit: each member inline; accepting one writes both (all or none).
    await queueItemOf(page, 'src/api.ts').click();
    await expect(fileView(page).getByTestId('inline-removed')).toHaveText('  return fetch(url);');
    await expect(rows).toContainText('return fetch(url, { cache: NO_STORE });');
    await queueItemOf(page, 'src/cache.ts').click();
    await expect(fileView(page).getByTestId('inline-removed')).toHaveText('export const CACHE_LIMIT = 100;');
    await expect(rows).toContainText('CACHE_LIMIT = 500');
    await fileView(page).getByTestId('inline-accept').click();
    await expect(queueItemOf(page, 'src/cache.ts')).toHaveCount(0);
    await expect(queueItemOf(page, 'src/api.ts')).toHaveCount(0);
    expect(onDisk(s, 'src/api.ts')).toBe(API.replace('return fetch(url);', 'return fetch(url, { cache: NO_STORE });'));
    expect(onDisk(s, 'src/cache.ts')).toBe(CACHE.replace('CACHE_LIMIT = 100', 'CACHE_LIMIT = 500'));

    // The create: its lines stand in for the file that is not there yet; Ctrl+Enter accepts it.
    await queueItemOf(page, 'src/new.ts').click();
    const proposed = page.getByTestId('proposed-file');
    await expect(proposed.getByTestId('inline-added')).toHaveText(/export const created = true;\s*export const version = 2;/);
    await expect(page.getByTestId('proposal-label')).toHaveText('create, 2 lines');
    await page.keyboard.press('Control+Enter');
    await expect(queueItemOf(page, 'src/new.ts')).toHaveCount(0);
    expect(onDisk(s, 'src/new.ts')).toBe(CREATED);

    // The move: a banner naming it, with Accept; no "too big to preview" question.
    await queueItemOf(page, 'src/old-name.ts').click();
    const banner = fileView(page).getByTestId('change-banner');
    await expect(banner).toContainText(/move .*old-name\.ts → .*new-name\.ts/);
    await banner.getByTestId('inline-accept').click();
    await expect(page.getByTestId('confirm-approve-dialog')).toHaveCount(0);
    await expect(queueItemOf(page, 'src/old-name.ts')).toHaveCount(0);
    expect(existsSync(join(s.ws, 'src/old-name.ts'))).toBe(false);
    expect(onDisk(s, 'src/new-name.ts')).toBe(OLD_NAME);

    // The delete: every line shown removed; rejected with the key, the file stays.
    await queueItemOf(page, 'src/legacy.ts').click();
    await expect(fileView(page).getByTestId('inline-removed')).toHaveText(/export const legacyA = 1;\s*export const legacyB = 2;\s*export const legacyC = 3;/);
    await expect(page.getByTestId('hunk')).toContainText('delete lines 1–3');
    await page.keyboard.press('Alt+Delete');
    await expect(queueItemOf(page, 'src/legacy.ts')).toHaveCount(0);
    expect(onDisk(s, 'src/legacy.ts')).toBe(LEGACY);
    // The create's file before it exists and the moved file after the move answer 404: expected; nothing else failed.
    expect(seen.problems.filter((m) => !/\b404\b/.test(m))).toEqual([]);
  } finally {
    await s.close();
  }
});

test('a Codex patch from an agent is one group: each change inline with its label; approving one applies the whole patch', async ({ page }) => {
  test.setTimeout(90_000);
  const s = await session();
  try {
    const seen = watchPage(page);
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(s.server.url.href);
    const patch = [
      '*** Begin Patch',
      '*** Update File: src/config.ts',
      '@@',
      '-  retries: 3,',
      '+  retries: 5,',
      '@@',
      '   zone: A,',
      '-  shards: 4,',
      '+  shards: 8,',
      '*** Update File: src/old-name.ts',
      '*** Move to: src/new-name.ts',
      '@@',
      '-// a small helper, 1.2 KB once grown',
      '+// a small helper, renamed',
      '*** Delete File: src/legacy.ts',
      '*** Add File: src/added.ts',
      '+export const added = 1;',
      '*** End Patch',
    ].join('\n');
    const answer = await s.agent.call('edit', { patch });
    expect(answer.group_id).toEqual(expect.any(String));
    // The config's edit, the renamed file's edit and its move, the delete, the create.
    await expect(page.getByTestId('queue-item')).toHaveCount(5);
    await expect(queueItemOf(page, 'src/legacy.ts')).toContainText('delete');
    await expect(queueItemOf(page, 'src/added.ts')).toContainText('create');

    // Only the lines the patch changes are hunks (its context lines are not rewritten).
    await queueItemOf(page, 'src/config.ts').click();
    const zones = fileView(page).locator('[data-testid="inline-zone"]');
    await expect(zones).toHaveCount(2);
    await expect(zones.nth(0).getByTestId('inline-removed')).toHaveText('  retries: 3,');
    await expect(zones.nth(1).getByTestId('inline-removed')).toHaveText('  shards: 4,');
    await expect(page.getByTestId('proposal-detail')).toContainText(/file 1 of 5/);

    // Approving the config's proposal applies the group: every file as the patch says.
    await page.getByTestId('approve').click();
    await expect(page.getByTestId('queue-item')).toHaveCount(0);
    expect(onDisk(s, 'src/config.ts')).toBe(CONFIG.replace('retries: 3,', 'retries: 5,').replace('shards: 4,', 'shards: 8,'));
    expect(onDisk(s, 'src/new-name.ts')).toBe(OLD_NAME.replace('// a small helper, 1.2 KB once grown', '// a small helper, renamed'));
    expect(existsSync(join(s.ws, 'src/old-name.ts'))).toBe(false);
    expect(existsSync(join(s.ws, 'src/legacy.ts'))).toBe(false);
    expect(onDisk(s, 'src/added.ts')).toBe('export const added = 1;\n');
    expect(seen.problems.filter((m) => !/\b404\b/.test(m))).toEqual([]);
  } finally {
    await s.close();
  }
});

test('a quote edit whose own line a person changed is resolved in the 3-way view; the file is the merged text', async ({ page }) => {
  test.setTimeout(90_000);
  const s = await session();
  try {
    const seen = watchPage(page);
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(s.server.url.href);
    const id = await sendQuoteEdit(s);
    // A person edits the very line hunk 2 quotes; the quote still matches inside it.
    const byPerson = CONFIG.replace('  timeout: 504,', '  timeout: 504, // set by a human');
    writeFileSync(join(s.ws, 'src/config.ts'), byPerson);
    await queueItemOf(page, 'src/config.ts').click();
    await page.getByTestId('approve').click();
    await expect(queueItemOf(page, 'src/config.ts')).toHaveAttribute('data-status', 'conflict');
    expect(onDisk(s, 'src/config.ts')).toBe(byPerson);

    await page.getByTestId('open-three-way').click();
    const view = page.getByTestId('three-way');
    await expect(view.getByTestId('three-way-saw')).toContainText('timeout: 504,');
    await expect(view.getByTestId('three-way-now')).toContainText('timeout: 504, // set by a human');
    await expect(view.getByTestId('three-way-proposed')).toContainText('timeout: 504, // gateway timeout');
    await expect(view.getByTestId('three-way-start')).toHaveValue('2');
    await expect(view.getByTestId('three-way-end')).toHaveValue('17');
    const editor = view.getByTestId('proposal-editor');
    // Hunks 1 and 3 are in; hunk 2 is a conflict block (file now / proposed) to settle by hand.
    await expect(view.getByTestId('three-way-conflicts')).toContainText('One hunk’s lines changed since the agent read them');
    await expect(editor.locator('.view-lines')).toContainText('retries: 5,');
    // Markers left: nothing can be written yet.
    await expect(view.getByTestId('three-way-approve')).toBeDisabled();

    const lines = byPerson.split('\n');
    const merged = [
      '  retries: 5,',
      ...lines.slice(2, 8),
      '  timeout: 504, // gateway timeout, set by a human',
      ...lines.slice(9, 16),
      '  region: EU_CENTRAL,',
    ].join('\n');
    await editor.locator('.view-line').first().click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.insertText(`${merged}\n`);
    await view.getByTestId('three-way-approve').click();
    await expect(view).toHaveCount(0);
    await expect(queueItemOf(page, 'src/config.ts')).toHaveCount(0);
    expect(onDisk(s, 'src/config.ts')).toBe([lines[0], merged, ...lines.slice(17)].join('\n'));
    expect((await s.agent.call('proposal_status', { proposal_id: id })).status).toBe('applied');
    // The approve that found the conflict answered 412: expected; nothing else failed.
    expect(seen.problems.filter((m) => !/\b4(09|12)\b/.test(m))).toEqual([]);
  } finally {
    await s.close();
  }
});

test('the big-edit question names the change, keeps focus inside, and goes when another proposal is selected', async ({ page }) => {
  const s = await session();
  try {
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(s.server.url.href);
    await sendQuoteEdit(s);
    const before = Array.from({ length: 70 }, (_, i) => `export const v${i + 1} = ${i + 1};\n`).join('');
    writeFileSync(join(s.ws, 'src/big.ts'), before);
    const etag = (await s.agent.call('read', { path: 'src/big.ts' })).version.etag as string;
    const big = 'export const rewritten = 2;\n'.repeat(45);
    await s.agent.call('upsert', { path: 'src/big.ts', target: { whole_file: true }, content: big, if_match: etag });
    await queueItemOf(page, 'src/big.ts').click();
    const approve = page.getByTestId('approve');
    await approve.click();
    const dialog = page.getByTestId('confirm-approve-dialog');
    await expect(dialog.getByTestId('confirm-approve-question')).toContainText(/^whole-file edit, .*: this replaces 70 lines\. Approve\?$/);
    await expect(dialog.getByTestId('confirm-cancel')).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(dialog.getByTestId('confirm-approve')).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(dialog.getByTestId('confirm-cancel')).toBeFocused();
    await page.keyboard.press('Shift+Tab');
    await expect(dialog.getByTestId('confirm-approve')).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    await expect(approve).toBeFocused();
    expect(onDisk(s, 'src/big.ts')).toBe(before);
    // Asked again, then another proposal is selected: the question goes, nothing is written.
    await approve.click();
    await expect(dialog).toBeVisible();
    await queueItemOf(page, 'src/config.ts').click();
    await expect(dialog).toHaveCount(0);
    expect(onDisk(s, 'src/big.ts')).toBe(before);
  } finally {
    await s.close();
  }
});

test('a create whose file appeared meanwhile and a move whose file changed are resolved from the 3-way view', async ({ page }) => {
  test.setTimeout(90_000);
  const s = await session();
  try {
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(s.server.url.href);
    await s.agent.call('upsert', { path: 'src/new.ts', target: { whole_file: true }, content: CREATED, if_none_match: '*' });
    const etag = (await s.agent.call('read', { path: 'src/old-name.ts' })).version.etag as string;
    await s.agent.call('upsert', { path: 'src/old-name.ts', target: { move_to: 'src/new-name.ts' }, if_match: etag });
    // A person creates the file first, and changes the one to be moved.
    writeFileSync(join(s.ws, 'src/new.ts'), 'export const byPerson = 1;\n');
    const changed = `${OLD_NAME}export const addedByPerson = 1;\n`;
    writeFileSync(join(s.ws, 'src/old-name.ts'), changed);

    await queueItemOf(page, 'src/new.ts').click();
    await page.getByTestId('approve').click();
    await expect(queueItemOf(page, 'src/new.ts')).toHaveAttribute('data-status', 'conflict');
    await page.getByTestId('open-three-way').click();
    const view = page.getByTestId('three-way');
    await expect(view.getByTestId('three-way-label')).toHaveText('create, 2 lines');
    await expect(view.getByTestId('three-way-now')).toContainText('export const byPerson = 1;');
    await expect(view.getByTestId('three-way-proposed')).toContainText('export const created = true;');
    await expect(view.getByTestId('three-way-conflicts')).toBeVisible();
    await view.getByTestId('proposal-editor').locator('.view-line').first().click();
    await page.keyboard.press('ControlOrMeta+a');
    const merged = 'export const byPerson = 1;\nexport const created = true;\n';
    await page.keyboard.insertText(merged);
    await view.getByTestId('three-way-approve').click();
    await expect(view).toHaveCount(0);
    await expect(queueItemOf(page, 'src/new.ts')).toHaveCount(0);
    expect(onDisk(s, 'src/new.ts')).toBe(merged);

    await queueItemOf(page, 'src/old-name.ts').click();
    await page.getByTestId('approve').click();
    await expect(queueItemOf(page, 'src/old-name.ts')).toHaveAttribute('data-status', 'conflict');
    await page.getByTestId('open-three-way').click();
    await expect(view.getByTestId('three-way-file-op')).toContainText(/move .*old-name\.ts → .*new-name\.ts/);
    await expect(view.getByTestId('three-way-now')).toContainText('export const addedByPerson = 1;');
    await view.getByTestId('three-way-approve').click();
    await expect(view).toHaveCount(0);
    await expect(queueItemOf(page, 'src/old-name.ts')).toHaveCount(0);
    expect(existsSync(join(s.ws, 'src/old-name.ts'))).toBe(false);
    expect(onDisk(s, 'src/new-name.ts')).toBe(changed);
  } finally {
    await s.close();
  }
});

test('edit then approve a quote edit: the person’s text over its lines, every hunk decided', async ({ page }) => {
  test.setTimeout(90_000);
  const s = await session();
  try {
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(s.server.url.href);
    await sendQuoteEdit(s);
    await expect(page.getByTestId('queue-item')).toHaveCount(1);

    // Edit: the proposal's lines 2–17 with its three hunks in; the person changes one and approves theirs.
    await queueItemOf(page, 'src/config.ts').click();
    await page.getByTestId('edit').click();
    const editor = page.getByTestId('proposal-detail').getByTestId('proposal-editor');
    await expect(editor.locator('.view-lines')).toContainText('retries: 5,');
    await editor.locator('.view-line').first().click();
    await page.keyboard.press('ControlOrMeta+a');
    const lines = CONFIG.split('\n');
    const mine = ['  retries: 7,', ...lines.slice(2, 8), '  timeout: 504, // gateway timeout', ...lines.slice(9, 16), '  region: EU_CENTRAL,'].join('\n');
    await page.keyboard.insertText(`${mine}\n`);
    await page.getByTestId('approve-edited').click();
    await expect(page.getByTestId('review-notice')).toContainText('Approved with your edit');
    await expect(queueItemOf(page, 'src/config.ts')).toHaveCount(0);
    expect(onDisk(s, 'src/config.ts')).toBe([lines[0], mine, ...lines.slice(17)].join('\n'));
  } finally {
    await s.close();
  }
});

test('a two-file edit member whose line an applied edit changed is resolved in the 3-way view', async ({ page }) => {
  test.setTimeout(90_000);
  const s = await session();
  try {
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(s.server.url.href);
    await s.agent.call('edit', {
      edits: [
        { path: 'src/api.ts', old_text: 'return fetch(url);', new_text: 'return fetch(url, { cache: NO_STORE });' },
        { path: 'src/cache.ts', old_text: 'CACHE_LIMIT = 100', new_text: 'CACHE_LIMIT = 500' },
      ],
    });
    // Another edit of the same line, approved first: the member's own line changed under it.
    const etag = (await s.agent.call('read', { path: 'src/api.ts' })).version.etag as string;
    const other = await s.agent.call('upsert', {
      path: 'src/api.ts',
      target: { replace: { start: 2, end: 2 } },
      content: '  return fetch(url); // traced\n',
      if_match: etag,
    });
    const otherItem = page.locator(`[data-testid="queue-item"][data-proposal-id="${other.proposal_id as string}"]`);
    await otherItem.click();
    await page.getByTestId('approve').click();
    await expect(page.getByTestId('review-notice')).toContainText('Approved');
    // The queue refreshes after the notice: wait for the approved one to leave it.
    await expect(otherItem).toHaveCount(0);
    const member = page.getByTestId('queue-item').filter({ hasText: 'src/api.ts' });
    await member.click();
    await page.getByTestId('approve').click();
    await expect(member).toHaveAttribute('data-status', 'conflict');
    await page.getByTestId('open-three-way').click();
    const view = page.getByTestId('three-way');
    await expect(view.getByTestId('three-way-now')).toContainText('return fetch(url); // traced');
    await expect(view.getByTestId('three-way-proposed')).toContainText('return fetch(url, { cache: NO_STORE });');
    await view.getByTestId('proposal-editor').locator('.view-line').first().click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.insertText('  return fetch(url, { cache: NO_STORE }); // traced\n');
    await view.getByTestId('three-way-approve').click();
    await expect(view).toHaveCount(0);
    await expect(member).toHaveCount(0);
    expect(onDisk(s, 'src/api.ts')).toBe(API.replace('return fetch(url);', 'return fetch(url, { cache: NO_STORE }); // traced'));
  } finally {
    await s.close();
  }
});
