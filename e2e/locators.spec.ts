/**
 * Remote locators in the app (issue 19), as a user in Chromium against `folio serve`:
 * a log kept as a bytea row of a real PostgreSQL and as a blob in Azurite (both
 * started here, e2e/remote-stores.ts) is opened by typing its locator in the path
 * box. The app shows its line count and lines (checked with sed against a local
 * file holding the same bytes), goes to a deep line, pages with PageDown, follows
 * lines appended by another writer (the Azure SDK; `folio upsert` from the CLI), and
 * says what is wrong with a missing value or a bad locator. An agent of the same
 * workspace is refused a locator outside the policy's `remote` globs.
 *
 * Azurite sits behind the counting proxy (test/fixtures/counting-proxy.ts), so the
 * test counts every byte that reached `folio serve`: after the line index exists (a
 * sidecar blob written by `folio info`, as after any earlier open), opening, a deep
 * window and paging cost ranged GETs of a small fraction of the blob, and following
 * an append fetches the appended bytes and the index's edges, never the blob again.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { BIN, startFolioServe, type FolioServe } from './folio-serve.ts';
import { logLineOf, writeLogFixture, type LogFixture } from './log-fixture.ts';
import { connectAgent } from './mcp-agent.ts';
import { offHostOf, PAINT_POLL_INTERVALS, type ShownLine, shownLinesOf, watchPage } from './page-helpers.ts';
import { sedLine, sedLines } from './sed.ts';
import { startRemoteStores, type RemoteStores } from './remote-stores.ts';

/** Tens of MiB: big enough that a whole download stands out, small enough to stay quick. */
const LOG_BYTES = Number(process.env.FOLIO_E2E_REMOTE_LOG_BYTES ?? 24 * 1024 * 1024);
const AZ = 'az://logs/app.log';
const PG = 'pg://applogs/app/body';
const count = (n: number) => new Intl.NumberFormat('en-US').format(n);

let fixtures: ReturnType<typeof makeFixtureDir>;
let stores: RemoteStores;
let server: FolioServe;
let workspace: string;
let env: Record<string, string>;
let log: LogFixture;
/** Local files with the bytes of the blob and of the row, appended to as they are: sed's view of each. */
const copies = { az: '', pg: '' };

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  fixtures = makeFixtureDir();
  workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  log = writeLogFixture(fixtures.dir, 'app.log', LOG_BYTES);
  copies.az = join(fixtures.dir, 'az.log');
  copies.pg = join(fixtures.dir, 'pg.log');
  copyFileSync(log.path, copies.az);
  copyFileSync(log.path, copies.pg);
  stores = await startRemoteStores();
  const bytes = readFileSync(log.path);
  await stores.putBlob('logs', 'app.log', bytes);
  await stores.putRow('applogs', 'app', bytes);
  // PostgreSQL from the workspace config, Azure from the environment (the two ways a workspace connects);
  // agents may open the logs container and the applogs bodies, nothing else.
  writeFileSync(join(workspace, 'folio.config.json'), JSON.stringify({ backends: { pg: stores.pgConfig }, remote: ['az/logs/**', 'pg/applogs/*/body'] }));
  env = {
    FOLIO_CACHE_DIR: join(fixtures.dir, 'cache'),
    FOLIO_CONFIG_DIR: join(fixtures.dir, 'config'),
    AZURE_STORAGE_CONNECTION_STRING: stores.azurite.connectionString,
  };
  server = await startFolioServe([], { cwd: workspace, env });
});

test.afterAll(async () => {
  await server?.stop();
  await stores?.stop();
  fixtures?.remove();
});

/**
 * `folio ARGS` in the workspace, as a person at a terminal would run it. Never spawnSync:
 * the counting proxy in front of Azurite runs in this process, and must keep answering.
 */
async function runFolio(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: workspace, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** `folio ARGS --json`: its one JSON answer. */
async function folioJson(args: string[]): Promise<Record<string, unknown> & { version: { etag: string }; lines: number; backend: Record<string, string> }> {
  const r = await runFolio([...args, '--json']);
  if (r.code !== 0) throw new Error(`folio ${args.join(' ')} exited ${r.code}: ${r.stdout}${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** The painted rows are consecutive lines of `file`, each with sed's text. */
function expectSedRows(file: string, shown: ShownLine[]) {
  expect(shown.length).toBeGreaterThan(10);
  const texts = sedLines(file, shown[0]!.lineNo, shown.at(-1)!.lineNo);
  shown.forEach((row, i) => {
    expect(row.lineNo, `row ${i}`).toBe(shown[0]!.lineNo + i);
    expect(row.text, `line ${row.lineNo}`).toBe(texts[i]);
  });
}

async function openByPathBox(page: Page, locator: string) {
  await page.getByTestId('path-input').fill(locator);
  await page.getByTestId('path-input').press('Enter');
}

async function waitForTop(page: Page, predicate: (top: number) => boolean, what: string): Promise<ShownLine[]> {
  let shown: ShownLine[] = [];
  await expect
    .poll(
      async () => {
        shown = await shownLinesOf(page);
        return shown[0] !== undefined && predicate(shown[0].lineNo);
      },
      { message: what, intervals: PAINT_POLL_INTERVALS },
    )
    .toBe(true);
  return shown;
}

/** The last painted row, once it is `lineNo` with sed's text. */
async function expectBottomRow(page: Page, file: string, lineNo: number) {
  await expect
    .poll(async () => (await shownLinesOf(page)).at(-1) ?? null, { message: `line ${lineNo} at the bottom`, intervals: [50], timeout: 20_000 })
    .toEqual({ lineNo, text: sedLine(file, lineNo) });
}

/** Open `locator` from the path box: its line count, its first lines, a deep line, then PageDown. */
async function openAndPage(page: Page, locator: string, file: string) {
  await openByPathBox(page, locator);
  await expect(page.getByTestId('file-path')).toHaveText(locator);
  await expect(page.getByTestId('file-lines')).toHaveText(count(log.lines));
  expectSedRows(file, await waitForTop(page, (top) => top === 1, 'line 1 at the top'));

  const deep = Math.floor(log.lines * 0.8) + 7;
  await page.getByTestId('goto-input').fill(count(deep));
  await page.getByTestId('goto-input').press('Enter');
  const shown = await waitForTop(page, (top) => top <= deep && deep < top + 30, `line ${deep} in view`);
  expect(shown.find((r) => r.lineNo === deep)?.text).toBe(sedLine(file, deep));
  expectSedRows(file, shown);

  // PageDown, in batches a person holding the key would see, across window edges.
  await page.locator('[data-testid="file-view"] .view-lines').click();
  const before = shown[0]!.lineNo;
  let top = before;
  for (let batch = 0; batch < 20 && top <= before + 1_500; batch++) {
    for (let i = 0; i < 10; i++) await page.keyboard.press('PageDown');
    const moved = await waitForTop(page, (t) => t > top, 'PageDown moves the view down');
    expectSedRows(file, moved);
    top = moved[0]!.lineNo;
  }
  expect(top, 'PageDown went past the first window').toBeGreaterThan(before + 1_500);
}

/** Lines first..last of the log, appended to a value, as text. */
const linesFrom = (first: number, last: number) => Array.from({ length: last - first + 1 }, (_, i) => logLineOf(first + i) + '\n').join('');

test('az:// in the path box: pages the blob by ranged GETs, follows an append by another writer', async ({ page }) => {
  test.setTimeout(120_000);
  // The line index exists once the blob was opened anywhere: `folio info` streams it once and keeps a sidecar.
  const info = await folioJson(['info', AZ]);
  expect(info.lines).toBe(log.lines);
  expect(info.backend.index_from).toBe('stream');

  const seen = watchPage(page);
  await page.setViewportSize({ width: 1400, height: 800 });
  await page.goto(server.url.href);
  const proxy = stores.azurite.proxy;
  proxy.reset();
  await openAndPage(page, AZ, copies.az);
  await expect(page.getByTestId('file-backend')).toHaveText(/^Azure blob, ETag "?0x[0-9A-F]+"?$/);

  const blobPath = '/devstoreaccount1/logs/app.log';
  const blobGets = proxy.counts.requests.filter((r) => r.method === 'GET' && decodeURIComponent(r.url.split('?')[0]!) === blobPath);
  const down = Object.values(proxy.counts.down).reduce((a, b) => a + b, 0);
  console.log(
    `[measure] az:// open + deep window + PageDown: ${count(down)} bytes down in ${proxy.counts.requests.length} requests ` +
      `(${blobGets.length} ranged GETs of the blob) for a ${count(log.size)}-byte blob (${((100 * down) / log.size).toFixed(2)}%)`,
  );
  expect(blobGets.length).toBeGreaterThan(0);
  for (const get of blobGets) expect(get.headers['x-ms-range'] ?? get.headers.range, `GET ${get.url} has a range`).toMatch(/^bytes=\d+-\d+$/);
  expect(down, 'bytes that reached folio serve').toBeLessThan(log.size / 20);

  // Follow: another writer appends a block (Azure SDK, straight to Azurite); the new last lines appear.
  await page.getByTestId('follow-toggle').click();
  await expect(page.getByTestId('follow-toggle')).toHaveAttribute('aria-pressed', 'true');
  await expectBottomRow(page, copies.az, log.lines);
  const etagBefore = await page.getByTestId('file-backend').textContent();
  proxy.reset();
  const appended = linesFrom(log.lines + 1, log.lines + 400);
  await stores.appendToBlob('logs', 'app.log', Buffer.from(appended));
  appendFileSync(copies.az, appended);
  const appendedAt = performance.now();
  await expectBottomRow(page, copies.az, log.lines + 400);
  console.log(`[measure] az:// follow: appended lines painted ${Math.round(performance.now() - appendedAt)} ms after the commit`);
  await expect(page.getByTestId('file-lines')).toHaveText(count(log.lines + 400));
  await expect(page.getByTestId('file-backend')).not.toHaveText(etagBefore!);
  expectSedRows(copies.az, await shownLinesOf(page));
  const followDown = Object.values(proxy.counts.down).reduce((a, b) => a + b, 0);
  const heads = proxy.counts.requests.filter((r) => r.method === 'HEAD').length;
  console.log(`[measure] az:// follow: ${count(followDown)} bytes down for ${count(appended.length)} appended bytes; ${heads} version checks (HEAD)`);
  expect(heads, 'follow asks the version with Get Blob Properties').toBeGreaterThan(0);
  // The index is extended over the new bytes (its edges and the tail), not built by streaming the blob again.
  expect(followDown).toBeLessThan(appended.length + 1024 * 1024);

  expect(seen.problems).toEqual([]);
  expect(offHostOf(seen.urls)).toEqual([]);
});

test('pg:// in the path box: pages the bytea row, follows an append made with folio upsert', async ({ page }) => {
  test.setTimeout(120_000);
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1400, height: 800 });
  await page.goto(server.url.href);
  await openAndPage(page, PG, copies.pg);
  await expect(page.getByTestId('file-backend')).toHaveText(/^PostgreSQL row, xmin \d+, ctid \(\d+,\d+\)$/);
  await expect(page.getByRole('tab', { selected: true })).toHaveText('app/body');

  await page.getByTestId('follow-toggle').click();
  await expect(page.getByTestId('follow-toggle')).toHaveAttribute('aria-pressed', 'true');
  await expectBottomRow(page, copies.pg, log.lines);
  const versionBefore = await page.getByTestId('file-backend').textContent();
  const { version } = await folioJson(['info', PG]);
  const appended = linesFrom(log.lines + 1, log.lines + 250);
  const contentFile = join(fixtures.dir, 'pg-append.txt');
  writeFileSync(contentFile, appended);
  const r = await folioJson(['upsert', PG, '--append', '--content-file', contentFile, '--if-match', version.etag]);
  expect(r.applied).toBe(true);
  appendFileSync(copies.pg, appended);
  // The count first: a failure then says whether the new version was counted wrong or shown wrong.
  await expect(page.getByTestId('file-lines')).toHaveText(count(log.lines + 250), { timeout: 20_000 });
  await expectBottomRow(page, copies.pg, log.lines + 250);
  await expect(page.getByTestId('file-backend')).not.toHaveText(versionBefore!);
  expectSedRows(copies.pg, await shownLinesOf(page));

  expect(seen.problems).toEqual([]);
  expect(offHostOf(seen.urls)).toEqual([]);
});

test('a missing blob or row, and a malformed locator, show a typed error; an agent is refused a locator outside remote', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 800 });
  await page.goto(server.url.href);
  // What failed to open shows under the path box (and adds no tab).
  const problem = page.getByTestId('open-problem');

  await openByPathBox(page, 'az://logs/missing.log');
  await expect(problem).toContainText('Cannot open az://logs/missing.log');
  await expect(problem).toContainText('(not_found)');

  await openByPathBox(page, 'pg://applogs/nobody/body');
  await expect(problem).toContainText('Cannot open pg://applogs/nobody/body');
  await expect(problem).toContainText('(not_found)');

  await openByPathBox(page, 'pg://applogs/app');
  await expect(problem).toContainText('(invalid_input)');
  await expect(problem).toContainText('pg://TABLE/KEY/COLUMN');

  // After an error, a good locator opens as before: here from a terminal, `folio open LOCATOR`
  // with this workspace's server running, which prints its URL and shows the value in this page.
  const opened = await runFolio(['open', AZ]);
  expect(opened.code, opened.stderr).toBe(0);
  expect(new URL(opened.stdout.trim()).searchParams.get('file')).toBe(AZ);
  await expect(page.getByTestId('file-path')).toHaveText(AZ);
  await expect(page.getByTestId('file-lines')).toHaveText(count(log.lines + 400));
  await expect(problem).toHaveCount(0);
  await expect(page.getByRole('tab', { selected: true })).toHaveText('app.log');

  // The workspace policy lets agents open az/logs/** and pg/applogs/*/body only.
  const agent = await connectAgent(workspace, env);
  try {
    const head = await agent.call('read', { path: AZ, head: 1 });
    expect(head.content).toBe(sedLine(copies.az, 1) + '\n');
    await stores.putBlob('private', 'keys.log', Buffer.from('secret line\n'));
    await expect(agent.call('read', { path: 'az://private/keys.log', head: 1 })).rejects.toThrow(/permission_denied/);
    await expect(agent.call('read', { path: 'pg://applogs/app/name', head: 1 })).rejects.toThrow(/permission_denied/);
  } finally {
    await agent.close();
  }
});

test('a blob opened for the first time is streamed once to index it, then paged by ranged GETs', async ({ page }) => {
  const FRESH = 'az://logs/fresh.log';
  await stores.putBlob('logs', 'fresh.log', readFileSync(log.path));
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1400, height: 800 });
  await page.goto(server.url.href);
  const proxy = stores.azurite.proxy;
  proxy.reset();
  const t0 = performance.now();
  await openByPathBox(page, FRESH);
  await expect(page.getByTestId('file-lines')).toHaveText(count(log.lines));
  expectSedRows(log.path, await waitForTop(page, (top) => top === 1, 'line 1 at the top'));
  const openMs = Math.round(performance.now() - t0);
  const down = proxy.counts.down.GET ?? 0;
  console.log(`[measure] az:// first open (no index yet): lines painted ${openMs} ms after Enter, ${count(down)} bytes down for ${count(log.size)}`);
  // The app's file_info and first window open it at once: one stream between them, not one each.
  expect(down).toBeGreaterThanOrEqual(log.size);
  expect(down).toBeLessThan(log.size * 1.2);
  await expect(page.getByTestId('file-backend')).toHaveAttribute('title', 'the line index came from: stream');

  proxy.reset();
  const deep = log.lines - 1_234;
  await page.getByTestId('goto-input').fill(String(deep));
  await page.getByTestId('goto-input').press('Enter');
  const shown = await waitForTop(page, (top) => top <= deep && deep < top + 30, `line ${deep} in view`);
  expect(shown.find((r) => r.lineNo === deep)?.text).toBe(sedLine(log.path, deep));
  expect(proxy.counts.down.GET ?? 0, 'a window after the index exists').toBeLessThan(1024 * 1024);
  expect(seen.problems).toEqual([]);
});

test('a blob never indexed shows its first lines before its index is built, then its line count', async ({ page }) => {
  const FIRST = 'az://logs/first.log';
  await stores.putBlob('logs', 'first.log', readFileSync(log.path));
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1400, height: 800 });
  await page.goto(server.url.href);
  const proxy = stores.azurite.proxy;
  // The index stream (a Get Blob of the whole blob, no range or an open one) is held until the first lines are checked.
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let held = 0;
  proxy.before = async (req) => {
    const range = String(req.headers['x-ms-range'] ?? req.headers.range ?? '');
    const blob = decodeURIComponent((req.url ?? '').split('?')[0]!);
    if (req.method === 'GET' && blob === '/devstoreaccount1/logs/first.log' && (range === '' || range.endsWith('-'))) {
      held++;
      await gate;
    }
  };
  try {
    proxy.reset();
    const t0 = performance.now();
    await openByPathBox(page, FIRST);
    expectSedRows(log.path, await waitForTop(page, (top) => top === 1, 'line 1 at the top while the index stream is held'));
    const paintMs = Math.round(performance.now() - t0);
    const down = proxy.counts.down.GET ?? 0;
    console.log(`[measure] az:// never indexed: first lines painted ${paintMs} ms after Enter, ${count(down)} bytes down before them for ${count(log.size)}`);
    expect(held, 'the index build is under way').toBe(1);
    expect(down, 'bytes down before the first lines').toBeLessThanOrEqual(1024 * 1024);
    // No wrong total: the count is not known yet, the build's progress is.
    await expect(page.getByTestId('file-lines')).toHaveText('counting…');
    await expect(page.getByTestId('indexing-progress')).toHaveText(/^indexing \d+% of /);
  } finally {
    release();
    proxy.before = undefined;
  }
  await expect(page.getByTestId('file-lines')).toHaveText(count(log.lines), { timeout: 30_000 });
  await expect(page.getByTestId('indexing-progress')).toHaveCount(0);
  expectSedRows(log.path, await waitForTop(page, (top) => top === 1, 'line 1 still at the top'));
  expect(seen.problems).toEqual([]);
});
