/**
 * Time in the log viewer (issue 17), as a user in Chromium against `folio serve`:
 * "Go to" takes a time and lands on the first line at or after it (checked with
 * awk and sed), says why when it cannot (not a time, after the end, stamps out of
 * order); the Histogram panel counts the whole file with progress, its totals
 * equal grep's, and a click or Enter on a bar shows that bucket's first line.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from './app-test.ts';
import { writeTimedLog } from '../test/fixtures/timed-log.ts';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { docsScreenshot, shownLinesOf, watchPage, type ShownLine } from './page-helpers.ts';

const count = (n: number) => new Intl.NumberFormat('en-US').format(n);

let fixtures: ReturnType<typeof makeFixtureDir>;
let server: FolioServe;
/** ~75 MB of ISO-stamped lines over ~13 h, with stack traces: three slices of the histogram. */
let log: string;
let logLines: number;
/** The clock goes back an hour at line 30,001. */
let backLog: string;

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  const workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  log = join(workspace, 'service.log');
  logLines = writeTimedLog(log, { lines: 1_200_000, stepMs: 40, traceEvery: 97 }).lines;
  backLog = join(workspace, 'clock-back.log');
  writeTimedLog(backLog, { lines: 60_000, clockBackAfter: 30_000 });
  server = await startFolioServe([log], { cwd: workspace, env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') } });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 }).trim();
const sedLine = (file: string, lineNo: number) => sh('sed', ['-n', `${lineNo}{p;q}`, file]);
/** awk's first line stamped at or after `iso` (stamps and target in the same ISO form compare as strings). */
const awkFirstAtOrAfter = (file: string, iso: string) => Number(sh('awk', ['-v', `t=${iso}`, '/^[0-9][0-9][0-9][0-9]-/ && $1 >= t { print NR; exit }', file]));
const grepCount = (file: string, re: string) => Number(sh('sh', ['-c', `grep -cE '${re}' '${file}' || true`]));
const pageOf = (file: string) => `${server.url.href.replace(/&file=[^&]*/, '')}&file=${encodeURIComponent(file)}`;

async function open(page: Page, file: string, lines: number) {
  await page.setViewportSize({ width: 1300, height: 800 });
  await page.goto(pageOf(file));
  await expect(page.getByTestId('file-lines')).toHaveText(count(lines), { timeout: 30_000 });
}

async function topLineBecomes(page: Page, lineNo: number): Promise<ShownLine[]> {
  let shown: ShownLine[] = [];
  await expect
    .poll(async () => {
      shown = await shownLinesOf(page);
      return shown[0]?.lineNo;
    })
    .toBe(lineNo);
  return shown;
}

async function goTo(page: Page, typed: string) {
  await page.getByLabel('Go to').fill(typed);
  await page.getByLabel('Go to').press('Enter');
}

test('Go to takes a time and shows the first line at or after it at the top, as awk finds it', async ({ page }) => {
  const seen = watchPage(page);
  await open(page, log, logLines);
  await expect(page.getByLabel('Go to')).toHaveAttribute('placeholder', /time/);
  for (const [typed, iso] of [
    ['2024-05-01 03:00', '2024-05-01T03:00:00.000Z'],
    ['2024-05-01T07:42:13Z', '2024-05-01T07:42:13.000Z'],
    ['11:05:30', '2024-05-01T11:05:30.000Z'],
  ] as const) {
    await goTo(page, typed);
    const want = awkFirstAtOrAfter(log, iso);
    const shown = await topLineBecomes(page, want);
    expect(shown[0]!.text).toBe(sedLine(log, want));
    // The line before it (the last stamped one) is earlier than the time asked.
    const before = sh('sh', ['-c', `head -n ${want - 1} '${log}' | grep -E '^[0-9]{4}-' | tail -n 1`]);
    expect(before.split(' ')[0]! < iso).toBe(true);
    await expect(page.getByTestId('goto-problem')).toHaveCount(0);
  }
  expect(seen.problems).toEqual([]);
});

test('Go to says why a time cannot be used: not a time, after the end, stamps out of order', async ({ page }) => {
  await open(page, log, logLines);
  await goTo(page, 'tomorrow');
  await expect(page.getByRole('alert').filter({ hasText: 'tomorrow' })).toHaveText(
    '“tomorrow”: not a line number, byte offset @N, percent or time (2024-05-01 12:30, 12:30:05)',
  );
  await goTo(page, '27:61');
  await expect(page.getByTestId('goto-problem')).toContainText('not a time: "27:61"');
  await goTo(page, '2030-01-01 00:00');
  const last = sh('sh', ['-c', `grep -E '^[0-9]{4}-' '${log}' | tail -n 1`]).split(' ')[0]!;
  await expect(page.getByTestId('goto-problem')).toHaveText(`2030-01-01T00:00:00.000Z is after the file's last line time (${last})`);

  await open(page, backLog, 60_000);
  await goTo(page, '2024-05-01 01:00');
  const problem = page.getByTestId('goto-problem');
  await expect(problem).toContainText('timestamps are not in order: line');
  const [, a, , b] = /line ([\d,]+) \(([^)]+)\) comes before line ([\d,]+) \(([^)]+)\)/.exec((await problem.textContent()) ?? '')!.slice(0);
  const lineA = Number(a!.replace(/,/g, ''));
  const lineB = Number(b!.replace(/,/g, ''));
  expect(lineA).toBeLessThan(lineB);
  expect(sedLine(backLog, lineA).split(' ')[0]! > sedLine(backLog, lineB).split(' ')[0]!).toBe(true);
});

test('the Histogram counts the whole file with progress; totals equal grep; a bar click or Enter shows its first line', async ({ page }) => {
  const seen = watchPage(page);
  await open(page, log, logLines);
  // Record whether the progress ever showed (the count may finish between two polls).
  await page.evaluate(() => {
    (window as unknown as { sawProgress: boolean }).sawProgress = false;
    new MutationObserver(() => {
      if (document.querySelector('[data-testid="histogram-progress"]')) (window as unknown as { sawProgress: boolean }).sawProgress = true;
    }).observe(document.body, { childList: true, subtree: true });
  });
  await page.getByRole('button', { name: 'Histogram', exact: true }).click();
  const panel = page.getByRole('region', { name: 'Histogram' });
  await expect(panel).toBeVisible();
  await expect(page.getByTestId('histogram-progress')).toHaveCount(0, { timeout: 30_000 });
  expect(await page.evaluate(() => (window as unknown as { sawProgress: boolean }).sawProgress)).toBe(true);
  await expect(page.getByTestId('histogram-summary')).toContainText(`${count(logLines)} lines`);
  expect(logLines).toBe(Number(sh('sh', ['-c', `wc -l < '${log}'`])));

  const errors = grepCount(log, '^[^ ]+ ERROR ');
  const warns = grepCount(log, '^[^ ]+ WARN ');
  const infos = grepCount(log, '^[^ ]+ INFO ');
  const debugs = grepCount(log, '^[^ ]+ (DEBUG|TRACE) ');
  await expect(page.getByTestId('histogram-total-error')).toHaveText(`error ${count(errors)}`);
  await expect(page.getByTestId('histogram-total-warn')).toHaveText(`warn ${count(warns)}`);
  await expect(page.getByTestId('histogram-total-info')).toHaveText(`info ${count(infos)}`);
  await expect(page.getByTestId('histogram-total-debug')).toHaveText(`debug ${count(debugs)}`);
  await expect(page.getByTestId('histogram-total-other')).toHaveText(`other ${count(logLines - errors - warns - infos - debugs)}`);
  await docsScreenshot(page, 'log-histogram.png');

  // Bar 30: its label names its time span and counts, as awk counts that span.
  const bars = panel.getByRole('button', { name: /^2024-05-01 / });
  expect(await bars.count()).toBeGreaterThan(60);
  const bar = bars.nth(30);
  const label = (await bar.getAttribute('aria-label'))!;
  const [, from, to, total] = /^2024-05-01 (\d\d:\d\d) – (\d\d:\d\d): ([\d,]+) lines/.exec(label)!;
  const fromIso = `2024-05-01T${from}:00.000Z`;
  const toIso = `2024-05-01T${to}:00.000Z`;
  const awkTotal = sh('awk', ['-v', `a=${fromIso}`, '-v', `b=${toIso}`, '/^[0-9][0-9][0-9][0-9]-/ { s = $1 } s >= a && s < b { n++ } END { print n }', log]);
  expect(total!.replace(/,/g, '')).toBe(awkTotal);
  await bar.click();
  const want = awkFirstAtOrAfter(log, fromIso);
  const shown = await topLineBecomes(page, want);
  expect(shown[0]!.text).toBe(sedLine(log, want));

  // The keyboard: Tab to a bar, Enter.
  const other = bars.nth(50);
  await other.focus();
  await page.keyboard.press('Enter');
  const otherFrom = /^2024-05-01 (\d\d:\d\d)/.exec((await other.getAttribute('aria-label'))!)![1];
  const want2 = awkFirstAtOrAfter(log, `2024-05-01T${otherFrom}:00.000Z`);
  expect((await topLineBecomes(page, want2))[0]!.text).toBe(sedLine(log, want2));
  expect(seen.problems).toEqual([]);
});

test('Ctrl+Shift+H opens and closes the histogram from the file view; Esc closes it from inside', async ({ page }) => {
  await open(page, log, logLines);
  await page.locator('[data-testid="file-view"] .view-lines').click();
  await page.keyboard.press('Control+Shift+H');
  const panel = page.getByRole('region', { name: 'Histogram' });
  await expect(panel).toBeVisible();
  await expect(page.getByRole('button', { name: 'Histogram', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await page.locator('[data-testid="file-view"] .view-lines').click();
  await page.keyboard.press('Control+Shift+H');
  await expect(panel).toHaveCount(0);
  await page.getByRole('button', { name: 'Histogram', exact: true }).click();
  await panel
    .getByRole('button', { name: /^2024-05-01 / })
    .first()
    .focus();
  await page.keyboard.press('Escape');
  await expect(panel).toHaveCount(0);
});

test('the filter view lists the ERROR lines numbered as in the file, as grep -n does', async ({ page }) => {
  await open(page, log, logLines);
  await page.getByRole('button', { name: 'Filter', exact: true }).click();
  const panel = page.getByRole('region', { name: 'Filter view' });
  await panel.getByRole('group', { name: 'Levels' }).getByRole('button', { name: 'ERROR' }).click();
  const rows = panel.getByRole('listbox', { name: 'Filtered lines' }).getByRole('option');
  await expect.poll(() => rows.count()).toBeGreaterThan(10);
  const listed = await rows.evaluateAll((els) => els.slice(0, 10).map((e) => Number(e.getAttribute('data-line'))));
  const grepped = sh('sh', ['-c', `grep -nwE 'ERROR|ERR' '${log}' | head -n 10 | cut -d: -f1`])
    .split('\n')
    .map(Number);
  expect(listed).toEqual(grepped);
  await page.getByLabel('Go to').fill('2024-05-01 06:00');
  await page.getByLabel('Go to').press('Enter');
  await topLineBecomes(page, awkFirstAtOrAfter(log, '2024-05-01T06:00:00.000Z'));
  await docsScreenshot(page, 'log-filter.png');
});
