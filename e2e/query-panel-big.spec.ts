/**
 * The query panel at scale (issue 31), as an SRE in Chromium against `folio serve`:
 * a generated service log (test/fixtures/query-log.ts) of 64 MiB per commit and
 * 1 GiB in the deep run (FOLIO_DEEP=1; FOLIO_E2E_QUERY_LOG_BYTES sets it by hand).
 * Each answer is checked against an independent tool run on the same file: the
 * level count and a key=value query against awk, a JSON-body query against jq
 * over the bodies grep cuts out, and the last `status = 500` row's link against
 * sed at the line it names.
 *
 * The oracles follow the operation's row model (docs/API.md, "Queries over log
 * fields"): a row is a stamped line and the unstamped lines under it (the
 * generator's stack traces), TRACE is the level debug, keys are the stamped line's
 * `key=value` pairs and the top-level keys of its JSON body (`ok` true/false as 1/0).
 * `amount` is a float with two decimals: summed as whole cents (round(amount × 100)
 * on both sides), so the comparison is exact whatever order each side adds in.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { DEEP } from '../test/fixtures/effort.ts';
import { writeQueryLog } from '../test/fixtures/query-log.ts';
import { AWK_STAMPED, awkLevelCounts } from './awk-levels.ts';
import { expect, test, type Page } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { PAINT_POLL_INTERVALS, shownLinesOf, watchPage } from './page-helpers.ts';
import { sedLine } from './sed.ts';

/** Bytes of the log: 64 MiB per commit, 1 GiB in the deep run. */
const LOG_BYTES = Number(process.env.FOLIO_E2E_QUERY_LOG_BYTES ?? (DEEP ? 1024 ** 3 : 64 * 1024 ** 2));
/** A query's time limit: a 1 GiB query took 25–50 s here (docs/BENCHMARKS.md, "query"); minutes for the deep run. */
const QUERY_TIMEOUT = DEEP ? 600_000 : 120_000;

let fixtures: ReturnType<typeof makeFixtureDir>;
let server: FolioServe;
let log: string;
let written: ReturnType<typeof writeQueryLog>;

const sh = (script: string, file: string) =>
  execFileSync('sh', ['-c', script, 'sh', file], { encoding: 'utf8', maxBuffer: 16 << 20, env: { ...process.env, LC_ALL: 'C' } });

/** awk over the key=value rows with status=500: their count, dur_ms's sum, the last one's line and dur_ms. */
function awkStatus500(file: string): { n: number; durMs: number; lastLine: number; lastDurMs: number } {
  const out = sh(
    `awk '${AWK_STAMPED} {
       s = ""; d = ""
       for (i = 3; i <= NF; i++) { if ($i ~ /^status=/) s = substr($i, 8); else if ($i ~ /^dur_ms=/) d = substr($i, 8) }
       if (s == "500") { n++; sum += d; last = NR; lastD = d }
     }
     END { printf "%d %.0f %d %d\\n", n, sum, last, lastD }' "$1"`,
    file,
  );
  const [n, durMs, lastLine, lastDurMs] = out.trim().split(' ').map(Number);
  return { n: n!, durMs: durMs!, lastLine: lastLine!, lastDurMs: lastDurMs! };
}

/** jq over the JSON bodies (grep cuts out each line's `{…}`) of user u42: [rows, sum of order, rows ok, sum of amount in cents]. */
function jqUser42(file: string): number[] {
  const out = sh(
    `grep -o '{.*}' "$1" | jq -n -c 'reduce (inputs | select(.user == "u42")) as $o ([0, 0, 0, 0];
       [.[0] + 1, .[1] + $o.order, .[2] + (if $o.ok then 1 else 0 end), .[3] + ($o.amount * 100 | round)])'`,
    file,
  );
  return JSON.parse(out) as number[];
}

let levels: Record<string, number>;
let status500: ReturnType<typeof awkStatus500>;
let user42: number[];

test.beforeAll(async () => {
  test.setTimeout(DEEP ? 900_000 : 120_000);
  fixtures = makeFixtureDir();
  log = join(fixtures.dir, 'service.log');
  const t0 = Date.now();
  written = writeQueryLog(log, { bytes: LOG_BYTES });
  const t1 = Date.now();
  levels = awkLevelCounts(log);
  status500 = awkStatus500(log);
  user42 = jqUser42(log);
  console.log(
    `[measure] query log of ${(written.bytes / 1024 ** 2).toFixed(0)} MiB (${written.lines} lines, ${written.stamped} rows): ` +
      `written in ${t1 - t0} ms, awk and jq answers in ${Date.now() - t1} ms`,
  );
  server = await startFolioServe([log], { env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache'), HOME: fixtures.dir } });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

/** The result table's cells, row by row. */
function tableOf(page: Page): Promise<string[][]> {
  return page
    .getByTestId('query-table')
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
}

/**
 * Run `sql` by Ctrl+Enter and wait for its answer: the table's header becomes
 * `columns` (each query here names other columns, so a previous answer cannot pass)
 * and Running… is gone. Logs the time seen in the page and the server's own.
 */
async function answerOf(page: Page, sql: string, columns: string[]): Promise<string[][]> {
  await page.getByTestId('query-sql').fill(sql);
  const asked = Date.now();
  await page.getByTestId('query-sql').press('Control+Enter');
  await expect(page.getByTestId('query-table').locator('thead th')).toHaveText(columns, { timeout: QUERY_TIMEOUT });
  await expect(page.getByTestId('query-running')).toBeHidden();
  const shown = Date.now() - asked;
  const summary = (await page.getByTestId('query-summary').textContent()) ?? '';
  const serverMs = /in (\d+) ms/.exec(summary)?.[1];
  console.log(
    `[measure] ${(written.bytes / 1024 ** 2).toFixed(0)} MiB, ${sql.replace(/\s+/g, ' ')}: table shown ${shown} ms after Ctrl+Enter ` +
      `(query ${serverMs} ms in the server; load ${loadavg()[0]!.toFixed(1)})`,
  );
  await expect(page.getByTestId('query-error')).toBeHidden();
  return tableOf(page);
}

test('on a big log, level counts, a JSON-body query and a key=value query equal awk and jq; the last 500 shows its line', async ({ page }) => {
  test.setTimeout(DEEP ? 1_800_000 : 240_000);
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(server.url.href);
  await expect(page.getByTestId('file-lines')).not.toHaveText('', { timeout: QUERY_TIMEOUT });
  await page.getByTestId('file-view').click();
  await page.keyboard.press('q');
  await expect(page.getByTestId('query-panel')).toBeVisible();
  // The keys of the first 1000 rows, key=value and JSON alike, are columns.
  for (const key of ['user', 'status', 'dur_ms', 'path', 'order', 'amount', 'ok'])
    await expect(page.getByTestId('query-columns')).toContainText(new RegExp(`, ${key}\\b`));

  // 1. Rows per level, as awk counts the stamped lines.
  const byLevel = await answerOf(page, 'SELECT level, count(*) FROM log GROUP BY level', ['level', 'count(*)']);
  expect(Object.fromEntries(byLevel.map(([level, n]) => [level, Number(n)]))).toEqual(levels);
  expect(Object.values(levels).reduce((a, b) => a + b)).toBe(written.stamped);

  // 2. JSON-body keys, as jq reads the bodies.
  const json = await answerOf(
    page,
    `SELECT count(*) AS n, sum("order") AS orders, sum(ok) AS oks, sum(CAST(round(amount * 100) AS INTEGER)) AS cents
     FROM log WHERE user = 'u42' AND amount IS NOT NULL`,
    ['n', 'orders', 'oks', 'cents'],
  );
  expect(user42[0]).toBeGreaterThan(100);
  expect(json.map((row) => row.map(Number))).toEqual([user42]);

  // 3. key=value keys, as awk splits the fields.
  const kv = await answerOf(page, 'SELECT count(*), sum(dur_ms) FROM log WHERE status = 500', ['count(*)', 'sum(dur_ms)']);
  expect(status500.n).toBeGreaterThan(1000);
  expect(kv).toEqual([[String(status500.n), String(status500.durMs)]]);

  // 4. The last 500, deep in the file: its row links to its line, which the file view shows as sed prints it.
  const last = await answerOf(page, 'SELECT line, status, dur_ms FROM log WHERE status = 500 ORDER BY line DESC LIMIT 1', ['line', 'status', 'dur_ms']);
  expect(last).toEqual([[String(status500.lastLine), '500', String(status500.lastDurMs)]]);
  expect(status500.lastLine).toBeGreaterThan(written.lines * 0.99);
  const want = sedLine(log, status500.lastLine);
  expect(want).toContain(' status=500 ');
  const clicked = Date.now();
  await page.getByTestId('query-table').locator('tbody tr').first().click();
  await expect
    .poll(async () => (await shownLinesOf(page)).find((l) => l.lineNo === status500.lastLine)?.text, {
      intervals: PAINT_POLL_INTERVALS,
      timeout: QUERY_TIMEOUT,
    })
    .toBe(want);
  console.log(`[measure] ${(written.bytes / 1024 ** 2).toFixed(0)} MiB, line ${status500.lastLine} shown ${Date.now() - clicked} ms after the click`);
  expect(seen.problems).toEqual([]);
});
