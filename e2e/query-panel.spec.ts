/**
 * The query panel (issue 31), acting as an SRE in Chromium against `folio serve`:
 * 2.6 MB of service log (ISO stamps, levels, key=value pairs, JSON bodies, stack
 * traces under errors); the level count and a `status = 500` query are checked
 * against awk run on the same file, a row's link against sed, and a bad SQL and a
 * write against their typed errors. Cancel stops a query that would run for hours:
 * the server's query process is gone (its hold on the log, seen in /proc, is released).
 *
 * awk follows the operation's row model (docs/API.md, "Queries over log fields"): a
 * row is a stamped line and the unstamped lines under it, TRACE is the level debug,
 * `message` is the line after its stamp and level word (then its unstamped lines).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { awkLevelCounts } from './awk-levels.ts';
import { expect, test, type Page } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { docsScreenshot, PAINT_POLL_INTERVALS, shownLinesOf } from './page-helpers.ts';
import { sedLine } from './sed.ts';

let fixtures: ReturnType<typeof makeFixtureDir>;
let server: FolioServe;
let log: string;

const LEVELS = ['INFO', 'INFO', 'INFO', 'DEBUG', 'TRACE', 'WARN', 'ERROR'] as const;

/** ~2.6 MB of a service's log, the same every run (a small LCG, not Math.random). */
function serviceLogOf(rows: number): string {
  let seed = 31;
  const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const start = Date.parse('2024-05-01T00:00:00Z');
  const out: string[] = [];
  for (let i = 0; i < rows; i++) {
    const stamp = new Date(start + i * 250).toISOString();
    const level = LEVELS[next(LEVELS.length)]!;
    const pick = next(10);
    if (level === 'ERROR') {
      out.push(`${stamp} ERROR GET /api/orders/${next(9000)} status=500 dur_ms=${next(900)} upstream=db-${next(4)}`);
      if (pick < 6)
        out.push(
          'java.lang.IllegalStateException: pool exhausted',
          `    at com.shop.Orders.load(Orders.java:${next(400)})`,
          '    at com.shop.Api.handle(Api.java:88)',
        );
    } else if (pick < 3) out.push(`${stamp} ${level} request body {"user":"u${next(500)}","items":${next(9)},"ok":true}`);
    else out.push(`${stamp} ${level} GET /api/items/${next(9000)} status=${[200, 200, 201, 404, 503][next(5)]} dur_ms=${next(300)}`);
  }
  return out.join('\n') + '\n';
}

const awk = (program: string, file: string) => execFileSync('awk', [program, file], { encoding: 'utf8', maxBuffer: 64 << 20 });

/** awk's rows with status=500: [line, message] with the unstamped lines under it. */
function awkStatus500(file: string): [string, string][] {
  const out = awk(
    `function flush() { if (at) print at "\\t" msg; at = 0 }
     /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T/ { flush(); if (index(" " $0 " ", " status=500 ")) { at = NR; msg = $0; sub(/^[^ ]+ +[^ ]+ +/, "", msg) } next }
     at { msg = msg "\\\\n" $0 }
     END { flush() }`,
    file,
  );
  return out
    .trim()
    .split('\n')
    .map((row) => {
      const [line, msg] = row.split('\t');
      return [line!, msg!.replaceAll('\\n', '\n')];
    });
}

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  log = join(fixtures.dir, 'service.log');
  writeFileSync(log, serviceLogOf(30_000));
  server = await startFolioServe([log], { env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache'), HOME: fixtures.dir } });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

async function runSql(page: Page, sql: string) {
  await page.getByTestId('query-sql').fill(sql);
  await page.getByTestId('query-sql').press('Control+Enter');
}

/** The result table's cells, row by row (textContent keeps a message's newlines). */
function tableOf(page: Page): Promise<string[][]> {
  return page
    .getByTestId('query-table')
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
}

test('level counts and status=500 rows equal awk; a row shows its line; bad SQL and a write are typed errors', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(server.url.href);
  await expect(page.getByTestId('file-lines')).not.toHaveText('');
  // q opens the panel (the key table's key), prefilled with the level count.
  await page.getByTestId('file-view').click();
  await page.keyboard.press('q');
  const panel = page.getByTestId('query-panel');
  await expect(panel).toBeVisible();
  await expect(page.getByTestId('query-sql')).toHaveValue('SELECT level, count(*) AS n FROM log GROUP BY level ORDER BY n DESC');
  await expect(page.getByTestId('query-columns')).toContainText('status, dur_ms');

  await page.getByTestId('query-run').click();
  await expect(page.getByTestId('query-summary')).toContainText(/rows? in \d+ ms/);
  await expect(page.getByTestId('query-table').locator('thead th')).toHaveText(['level', 'n']);
  const levels = await tableOf(page);
  const counts = levels.map(([, n]) => Number(n));
  expect(counts, 'ORDER BY n DESC').toEqual([...counts].sort((a, b) => b - a));
  expect(Object.fromEntries(levels.map(([level, n]) => [level, Number(n)]))).toEqual(awkLevelCounts(log));

  // The 500s: line and message (stack trace included) as awk reads them.
  const sql500 = 'SELECT line, message FROM log WHERE status = 500 LIMIT 20';
  await runSql(page, sql500);
  await expect(page.getByTestId('query-table').locator('thead th')).toHaveText(['line', 'message']);
  const want = awkStatus500(log).slice(0, 20);
  expect(want).toHaveLength(20);
  expect(want.some(([, msg]) => msg.includes('\n    at '))).toBe(true);
  await expect.poll(() => tableOf(page)).toEqual(want);

  // A row links back to its line: the tenth, by the keyboard (focus, ArrowDown, Enter).
  const rows = page.getByTestId('query-table').locator('tbody tr');
  await rows.first().focus();
  for (let i = 0; i < 9; i++) await page.keyboard.press('ArrowDown');
  await expect(rows.nth(9)).toBeFocused();
  await page.keyboard.press('Enter');
  const target = Number(want[9]![0]);
  await expect
    .poll(async () => (await shownLinesOf(page)).find((l) => l.lineNo === target)?.text, { intervals: PAINT_POLL_INTERVALS })
    .toBe(sedLine(log, target));
  // and by a click: the third.
  await rows.nth(2).click();
  const third = Number(want[2]![0]);
  await expect
    .poll(async () => (await shownLinesOf(page)).find((l) => l.lineNo === third)?.text, { intervals: PAINT_POLL_INTERVALS })
    .toBe(sedLine(log, third));
  await docsScreenshot(page, 'log-query.png');

  // Bad SQL: SQLite's message, the SQL kept.
  // Typed key by key: q, e, h, m, u are the viewer's keys, but not in the SQL box.
  const bad = 'SELEC quantity, mean, hue FROM log';
  await page.getByTestId('query-sql').fill('');
  await page.getByTestId('query-sql').pressSequentially(bad);
  await page.getByTestId('query-sql').press('Control+Enter');
  await expect(page.getByTestId('query-error')).toHaveAttribute('data-code', 'parse_error');
  await expect(page.getByTestId('query-error')).toContainText('near "SELEC"');
  await expect(page.getByTestId('query-sql')).toHaveValue(bad);

  // A write is refused.
  await runSql(page, 'DELETE FROM log');
  await expect(page.getByTestId('query-error')).toHaveAttribute('data-code', 'permission_denied');
  await expect(page.getByTestId('query-sql')).toHaveValue('DELETE FROM log');

  // Escape closes the panel.
  await page.getByTestId('query-sql').press('Escape');
  await expect(panel).toBeHidden();
});

/** How many of the server's open files are `path` (the server holds the log open for its query process while it runs). */
function serverOpenCountOf(path: string): number {
  let n = 0;
  for (const fd of readdirSync(`/proc/${server.pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${server.pid}/fd/${fd}`) === path) n++;
    } catch {
      // closed while we looked
    }
  }
  return n;
}

test('Cancel stops a query that would run for hours: its process is gone, the next query answers', async ({ page }) => {
  test.skip(process.platform !== 'linux', 'reads /proc');
  await page.goto(server.url.href);
  await expect(page.getByTestId('file-lines')).not.toHaveText('');
  await page.getByTestId('file-view').click();
  await page.keyboard.press('q');
  // The panel's first query (the key columns) has answered and its process gone: the server holds the log no more.
  await expect(page.getByTestId('query-columns')).toContainText('status, dur_ms');
  await expect.poll(() => serverOpenCountOf(log), { timeout: 30_000 }).toBe(0);
  // 30 000² row pairs.
  await runSql(page, 'SELECT count(*) FROM log a, log b WHERE a.message < b.message');
  const cancel = page.getByTestId('query-cancel');
  await expect(cancel).toBeVisible();
  await expect.poll(() => serverOpenCountOf(log), { timeout: 30_000 }).toBe(1);
  await cancel.click();
  await expect(page.getByTestId('query-note')).toHaveText('Cancelled: the query was stopped.');
  await expect.poll(() => serverOpenCountOf(log), { timeout: 60_000 }).toBe(0);
  // The server is free: a query answers, and equals awk.
  await runSql(page, 'SELECT level, count(*) AS n FROM log GROUP BY level ORDER BY n DESC');
  await expect(page.getByTestId('query-table').locator('thead th')).toHaveText(['level', 'n']);
  const levels = await tableOf(page);
  expect(Object.fromEntries(levels.map(([level, n]) => [level, Number(n)]))).toEqual(awkLevelCounts(log));
  await expect(page.getByTestId('query-note')).toBeHidden();
});
