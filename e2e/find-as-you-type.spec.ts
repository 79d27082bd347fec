/**
 * Issue 31 item 4, as an SRE on a generated log (12 MiB per commit, 1 GiB in the
 * deep run, FOLIO_DEEP=1; FOLIO_E2E_FIND_LOG_BYTES sets it): find as you type (the
 * count and first hits after the last key are grep's over the whole file, and no
 * earlier prefix's answer shows after a later one's), a boolean filter (its lines
 * are a grep pipeline's), and the filter view scrolled to its last match past
 * 10,000 (grep | tail -1). grep runs as a real child process; nothing sleeps: each
 * step waits for what the page shows.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { DEEP } from '../test/fixtures/effort.ts';

/** Bytes of the generated log. */
const LOG_BYTES = Number(process.env.FOLIO_E2E_FIND_LOG_BYTES ?? (DEEP ? 1024 ** 3 : 12 * 1024 * 1024));
/** How long a whole-file step (index, search, filter) may take: a GiB takes minutes on a loaded 2-core machine. */
const WAIT = LOG_BYTES > 64 * 1024 * 1024 ? 600_000 : 30_000;
test.describe.configure({ timeout: LOG_BYTES > 64 * 1024 * 1024 ? 1_800_000 : 120_000 });

const count = (n: number) => new Intl.NumberFormat('en-US').format(n);

const LEVELS = ['INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR', 'INFO', 'ERROR'];
const MESSAGES = [
  'request served in 12ms',
  'connect timeout after 30s',
  'connection refused by upstream',
  'retry 2 of 5 after timeout',
  'payment refund issued',
  'retry after connection refused',
  'cache miss for key',
  'upstream refused: timeout in handshake',
  'refunded order closed',
];

/** Line `lineNo` (1-based): a level, a worker, and a message whose words overlap ("ref" in refused and refund). */
function lineOf(lineNo: number): string {
  const level = LEVELS[lineNo % LEVELS.length]!;
  const message = MESSAGES[(lineNo * 7 + (lineNo >> 5)) % MESSAGES.length]!;
  return `2024-05-01T10:${String((lineNo >> 6) % 60).padStart(2, '0')}:00Z ${level} [svc-${lineNo % 5}] id=${lineNo} ${message}`;
}

/** Writes about `targetBytes` of lines; returns how many. */
function writeLog(path: string, targetBytes: number): number {
  const fd = openSync(path, 'w');
  let size = 0;
  let lineNo = 0;
  try {
    while (size < targetBytes) {
      let chunk = '';
      for (let i = 0; i < 10_000; i++) chunk += lineOf(++lineNo) + '\n';
      size += writeSync(fd, chunk);
    }
  } finally {
    closeSync(fd);
  }
  return lineNo;
}

/** grep's output lines (no match: none). */
function grep(args: string[]): string[] {
  try {
    return execFileSync('grep', args, { encoding: 'utf8', maxBuffer: 1 << 30 })
      .trimEnd()
      .split('\n');
  } catch (err) {
    if ((err as { status?: number }).status === 1) return [];
    throw err;
  }
}

let fixtures: ReturnType<typeof makeFixtureDir>;
let server: FolioServe;
let logPath: string;
let logLines: number;

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  const workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  logPath = join(workspace, 'sre.log');
  logLines = writeLog(logPath, LOG_BYTES);
  server = await startFolioServe([logPath], { cwd: workspace, env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') } });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

test('find as you type: after the last key, the count and first hits are grep -c and grep -n | head; no earlier prefix shows after a later one', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1300, height: 900 });
  await page.goto(server.url.href);
  await expect(page.getByTestId('file-lines')).toHaveText(count(logLines), { timeout: WAIT });
  await page.getByTestId('file-view').click();
  await page.keyboard.press('Control+f');
  const input = page.getByRole('textbox', { name: 'Find' });
  await expect(input).toBeFocused();

  // Every status the panel shows while typing, in order: the pattern it is for and its text.
  await page.evaluate(() => {
    const seen: { pattern: string; text: string }[] = [];
    (window as unknown as { seenStatus: typeof seen }).seenStatus = seen;
    const record = () => {
      const status = document.querySelector('[data-testid="find-status"]');
      if (!status) return;
      const entry = { pattern: status.getAttribute('data-pattern') ?? '', text: status.textContent ?? '' };
      const last = seen[seen.length - 1];
      if (!last || last.pattern !== entry.pattern || last.text !== entry.text) seen.push(entry);
    };
    new MutationObserver(record).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });

  // The prefixes' answers differ: "ref" and "refu" also find "refused", "refund" does not.
  const word = 'refund';
  const counts = [...word].map((_, i) => grep(['-c', '-i', word.slice(0, i + 1), logPath])[0]);
  expect(new Set(counts.slice(2)).size).toBeGreaterThan(1);
  // Keys at a typist's pace, some slower than the debounce: searches start and are cancelled by the next key.
  await input.pressSequentially(word, { delay: 180 });

  const expectedCount = Number(counts[counts.length - 1]);
  const expectedHits = grep(['-n', '-i', word, logPath]).map((row) => Number(row.slice(0, row.indexOf(':'))));
  expect(expectedHits.length).toBe(expectedCount);
  const status = page.getByTestId('find-status');
  await expect(status).toHaveAttribute('data-pattern', word);
  await expect(status).toHaveText(`${count(expectedCount)} lines · whole file searched`, { timeout: WAIT });
  const shown = await page.getByTestId('find-result').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-line'))));
  expect(shown.length).toBe(Math.min(200, expectedCount));
  expect(shown).toEqual(expectedHits.slice(0, shown.length));

  // No answer for a shorter prefix once a longer one's showed, and none at all after the final one's.
  const seen = await page.evaluate(() => (window as unknown as { seenStatus: { pattern: string; text: string }[] }).seenStatus);
  const lengths = seen.map((s) => s.pattern.length);
  expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
  expect(seen.every((s) => word.startsWith(s.pattern))).toBe(true);
  expect(seen[seen.length - 1]).toEqual({ pattern: word, text: `${count(expectedCount)} lines · whole file searched` });

  // Enter still steps: the first hit, then the next.
  await input.press('Enter');
  await expect(status).toHaveText(`1 of ${count(expectedCount)} lines · whole file searched`);
  await input.press('Enter');
  await expect(status).toHaveText(`2 of ${count(expectedCount)} lines · whole file searched`);
});

/** Lines of `cmd` run by the shell (a grep pipeline), with the log's path as $1. */
function pipeline(cmd: string, file: string): string[] {
  const out = execFileSync('sh', ['-c', cmd, 'sh', file], { encoding: 'utf8', maxBuffer: 1 << 30 }).trimEnd();
  return out === '' ? [] : out.split('\n');
}

test('a boolean filter keeps the lines of grep ERROR | grep -E "timeout|refused" | grep -v retry; a malformed one says where and applies nothing', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1300, height: 900 });
  await page.goto(server.url.href);
  await expect(page.getByTestId('file-lines')).toHaveText(count(logLines), { timeout: WAIT });
  await page.getByRole('button', { name: 'Filter', exact: true }).click();
  const panel = page.getByRole('region', { name: 'Filter view' });
  const field = panel.getByRole('textbox', { name: 'Filter expression' });
  const status = panel.getByTestId('filter-status');

  await field.fill('ERROR AND (timeout OR');
  await field.press('Enter');
  await expect(panel.getByTestId('filter-error')).toHaveText('invalid_input Filter expression, at character 22: expected a term, NOT or (, found the end');
  await expect(status).toHaveCount(0);
  await expect(panel.getByTestId('filter-row')).toHaveCount(0);

  const expected = pipeline(`grep -n ERROR "$1" | grep -E 'timeout|refused' | grep -v retry`, logPath);
  expect(expected.length).toBeGreaterThan(100);
  await field.fill('ERROR AND (timeout OR refused) AND NOT retry');
  await field.press('Enter');
  await expect(panel.getByTestId('filter-error')).toHaveCount(0);
  await expect(status).toHaveText(new RegExp(`^${count(expected.length)} lines · whole file searched`), { timeout: WAIT });
  const rows = await panel
    .getByTestId('filter-row')
    .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-line')}:${e.querySelector('.text')?.textContent ?? ''}`));
  expect(rows.length).toBeGreaterThan(20);
  expect(rows).toEqual(expected.slice(0, rows.length));
});

test('the filter view scrolls to its last match past 10,000 (grep | tail -1) and back to its first', async ({ page }) => {
  await page.setViewportSize({ width: 1300, height: 900 });
  await page.goto(server.url.href);
  await expect(page.getByTestId('file-lines')).toHaveText(count(logLines), { timeout: WAIT });
  await page.getByRole('button', { name: 'Filter', exact: true }).click();
  const panel = page.getByRole('region', { name: 'Filter view' });
  const list = panel.getByRole('listbox', { name: 'Filtered lines' });
  const expected = pipeline(`grep -n ERROR "$1" | grep -v retry`, logPath);
  expect(expected.length).toBeGreaterThan(30_000);
  await panel.getByRole('textbox', { name: 'Filter expression' }).fill('ERROR AND NOT retry');
  await panel.getByRole('textbox', { name: 'Filter expression' }).press('Enter');
  await expect(panel.getByTestId('filter-status')).toHaveText(new RegExp(`^${count(expected.length)} lines · whole file searched`), { timeout: WAIT });

  const rowOf = (line: string) => panel.locator(`[data-testid="filter-row"][data-line="${line.slice(0, line.indexOf(':'))}"]`);
  const lastLine = expected[expected.length - 1]!;
  await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
  await expect(rowOf(lastLine).locator('.text')).toHaveText(lastLine.slice(lastLine.indexOf(':') + 1), { timeout: WAIT });
  // The last row drawn is the last match; rows in memory stay bounded.
  const shown = await panel
    .getByTestId('filter-row')
    .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-line')}:${e.querySelector('.text')?.textContent ?? ''}`));
  expect(shown).toEqual(expected.slice(expected.length - shown.length));
  // Rows in memory stay bounded: a window of at most 12,000 (fewer when the jump counted its way down to the end).
  const listed = Number(/ · ([\d,]+) listed$/.exec((await panel.getByTestId('filter-status').textContent()) ?? '')?.[1]?.replaceAll(',', '') ?? NaN);
  expect(listed).toBeGreaterThan(0);
  expect(listed).toBeLessThanOrEqual(12_000);

  // And back to the top: the first rows are fetched again from the first checkpoint.
  await list.evaluate((el) => (el.scrollTop = 0));
  await expect(rowOf(expected[0]!).locator('.text')).toHaveText(expected[0]!.slice(expected[0]!.indexOf(':') + 1));
  const top = await panel
    .getByTestId('filter-row')
    .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-line')}:${e.querySelector('.text')?.textContent ?? ''}`));
  expect(top).toEqual(expected.slice(0, top.length));
});
