/**
 * JSON inside a log line, by key and by button alike (issue 31 item 3): `j` after a
 * click on a `payload={…}` line, in Monaco and in the plain rows painted before it;
 * the same on a growing log in follow mode, on a line appended while open; the
 * viewer's keys wherever the focus is but a text box, all of them in the `?` help;
 * key=value lines as fields; JSON Lines fields as columns. Checked against the
 * file's own bytes (sed, jq), never against the app's parse.
 */
import { execSync } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { PAINT_POLL_INTERVALS, shownLinesOf, watchPage } from './page-helpers.ts';
import { sedLine } from './sed.ts';
import { keysLabelOf, LOG_KEYS } from '../src-renderer/model/log-keys.ts';

let fixtures: ReturnType<typeof makeFixtureDir>;
let workspace: string;
let server: FolioServe;
let log: string;
let growing: string;
let fields: string;
let jsonl: string;

/** logfmt lines (https://brandur.org/logfmt), a prefix before the pairs on the second. */
const FIELD_LINES = [
  'ts=2026-11-29T10:00:00Z level=info user=alice dur=12ms msg="quoted value with spaces" path=/a/b',
  '2026-11-29T10:00:01Z WARN [worker-2] retry=3 reason="said \\"no\\" twice" empty= done',
];
const LEVELS = ['info', 'debug', 'warn', 'error'];
/** A JSON Lines record: its fields in varied order, some absent. */
function jsonlLineOf(n: number): string {
  const record: Record<string, unknown> = { time: `2026-11-29T10:${String(Math.floor(n / 60) % 60).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}.000Z` };
  if (n % 10 !== 3) record['level'] = LEVELS[n % 4];
  record['msg'] = n % 7 === 0 ? `slow request ${n} "quoted"` : `request ${n} done`;
  record['user'] = { id: n % 5, name: `u${n % 5}` };
  record['dur_ms'] = n % 97;
  return JSON.stringify(record);
}

/** A `TIMESTAMP LEVEL [thread] … payload={…}` line: brackets before the JSON, as real logs have them. */
const payloadLine = (n: number) =>
  `2026-11-29T10:${String(Math.floor(n / 60) % 60).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}Z INFO [worker-${n % 4}] request done payload={"a":${n},"tags":["x","y"],"user":{"name":"ann"}}`;
const linesFrom = (first: number, last: number) => Array.from({ length: last - first + 1 }, (_, i) => payloadLine(first + i) + '\n').join('');

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  log = join(workspace, 'payload.log');
  writeFileSync(log, linesFrom(1, 200));
  growing = join(workspace, 'growing.log');
  writeFileSync(growing, linesFrom(1, 40));
  fields = join(workspace, 'fields.log');
  writeFileSync(fields, FIELD_LINES.join('\n') + '\n');
  jsonl = join(workspace, 'events.jsonl');
  writeFileSync(jsonl, Array.from({ length: 2_000 }, (_, i) => jsonlLineOf(i + 1) + '\n').join(''));
  server = await startFolioServe([log], {
    cwd: workspace,
    env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache'), FOLIO_CONFIG_DIR: join(fixtures.dir, 'config') },
  });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

const pageOf = (file: string) => `${server.url.href.replace(/&file=[^&]*/, '')}&file=${encodeURIComponent(file)}`;

/** The pretty JSON of the `{…}` after `payload=` in the file's line `lineNo`, as sed reads it. */
function prettyPayloadOf(file: string, lineNo: number): string {
  const line = sedLine(file, lineNo);
  return JSON.stringify(JSON.parse(line.slice(line.indexOf('payload=') + 'payload='.length)), null, 2);
}

/** Click line `lineNo`'s text in Monaco until the cursor is on it (a layout shift between measuring and clicking moves the rows). */
async function clickLine(page: Page, lineNo: number) {
  await expect(async () => {
    const box = await page.evaluate((n) => {
      const view = document.querySelector('[data-testid="file-view"]')!;
      const number = [...view.querySelectorAll('.margin-view-overlays .line-numbers')].find((el) => el.textContent?.trim() === String(n));
      if (!number) return null;
      const nb = number.getBoundingClientRect();
      return { y: nb.top + nb.height / 2, x: view.querySelector('.view-lines')!.getBoundingClientRect().left + 30 };
    }, lineNo);
    expect(box, `line ${lineNo} on screen`).not.toBeNull();
    await page.mouse.click(box!.x, box!.y);
    await expect(page.locator('[data-testid="file-view"] .line-numbers.active-line-number')).toHaveText(String(lineNo), { timeout: 2000 });
  }).toPass();
}

async function expectJsonOf(page: Page, file: string, lineNo: number) {
  const panel = page.getByRole('region', { name: 'JSON of the line' });
  await expect(panel.getByTestId('json-title')).toHaveText(`Line ${lineNo} as JSON`);
  // The answer or the error, whichever shows: a failure names what the panel said.
  await expect(panel.getByTestId(/^json-(text|error)$/)).toHaveText(prettyPayloadOf(file, lineNo), { useInnerText: true });
}

test('j after a click on a payload={…} line in Monaco shows the payload pretty-printed', async ({ page }) => {
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1300, height: 800 });
  await page.goto(pageOf(log));
  await expect(page.getByTestId('plain-lines')).toHaveCount(0);
  await clickLine(page, 5);
  await page.keyboard.press('j');
  await expectJsonOf(page, log, 5);
  // The button reads the same line.
  await clickLine(page, 9);
  await page.getByRole('button', { name: 'JSON', exact: true }).click();
  await expectJsonOf(page, log, 9);
  expect(seen.problems).toEqual([]);
});

test('j after a click on a row of the plain lines (before Monaco arrives) shows that line as JSON', async ({ page }) => {
  // Monaco's chunk is held back for the whole test: only the plain rows are on screen.
  await page.route(/\/monaco-[^/]*\.js$/, () => {});
  await page.setViewportSize({ width: 1300, height: 800 });
  await page.goto(pageOf(log));
  const row = page
    .getByTestId('plain-lines')
    .locator('.plain-line')
    .filter({ has: page.locator('.plain-line-no', { hasText: /^7$/ }) });
  await row.locator('.plain-line-text').click();
  await page.keyboard.press('j');
  await expectJsonOf(page, log, 7);
  await expect(page.locator('.monaco-editor')).toHaveCount(0);
});

test('on a growing log in follow mode, j and the JSON button on a freshly appended line show its payload', async ({ page }) => {
  await page.setViewportSize({ width: 1300, height: 700 });
  await page.goto(pageOf(growing));
  await expect(page.getByTestId('file-lines')).toHaveText('40');
  await expect(page.getByTestId('plain-lines')).toHaveCount(0);
  await page.getByTestId('follow-toggle').click();
  await expect(page.getByTestId('follow-toggle')).toHaveAttribute('aria-pressed', 'true');

  appendFileSync(growing, linesFrom(41, 60));
  await expect.poll(async () => (await shownLinesOf(page)).at(-1), { intervals: PAINT_POLL_INTERVALS }).toEqual({ lineNo: 60, text: payloadLine(60) });
  await clickLine(page, 58);
  await page.keyboard.press('j');
  await expectJsonOf(page, growing, 58);
  await clickLine(page, 60);
  await page.getByRole('button', { name: 'JSON', exact: true }).click();
  await expectJsonOf(page, growing, 60);
});

test('the viewer keys work with the focus on the toolbar or the scrollbar, and never take a key typed in a text box', async ({ page }) => {
  await page.setViewportSize({ width: 1300, height: 800 });
  await page.goto(pageOf(log));
  await expect(page.getByTestId('plain-lines')).toHaveCount(0);
  const panel = page.getByRole('region', { name: 'JSON of the line' });

  // A toolbar button has the focus.
  await clickLine(page, 5);
  await page.getByRole('button', { name: 'Highlights', exact: true }).focus();
  await page.keyboard.press('j');
  await expectJsonOf(page, log, 5);
  await page.getByRole('button', { name: 'Close JSON view' }).click();

  // After a click on the scrollbar: at its top, it goes to line 1, the current line.
  await clickLine(page, 6);
  const bar = (await page.getByTestId('file-scrollbar').boundingBox())!;
  await page.mouse.click(bar.x + bar.width / 2, bar.y + 2);
  await expect(page.locator('[data-testid="file-view"] .line-numbers.active-line-number')).toHaveText('1');
  await page.keyboard.press('j');
  await expectJsonOf(page, log, 1);
  await page.getByRole('button', { name: 'Close JSON view' }).click();
  // f (follow) from the toolbar too.
  await page.getByRole('button', { name: 'Highlights', exact: true }).focus();
  await page.keyboard.press('f');
  await expect(page.getByTestId('follow-toggle')).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('f');
  await expect(page.getByTestId('follow-toggle')).toHaveAttribute('aria-pressed', 'false');

  // Text boxes keep their keys: the go-to box and the find box get the letters, no JSON view opens.
  await page.getByTestId('goto-input').fill('');
  await page.getByTestId('goto-input').press('j');
  await page.getByTestId('goto-input').press('f');
  await expect(page.getByTestId('goto-input')).toHaveValue('jf');
  await page.keyboard.press('Control+f');
  const findBox = page.getByTestId('find-panel').getByRole('textbox').first();
  await expect(findBox).toBeFocused();
  await page.keyboard.type('mje');
  await expect(findBox).toHaveValue('mje');
  await expect(panel).toHaveCount(0);
  await expect(page.getByTestId('follow-toggle')).toHaveAttribute('aria-pressed', 'false');
  // The Ctrl keys work from a text box too: Ctrl+G leaves the find box for the go-to box.
  await page.keyboard.press('Control+g');
  await expect(page.getByTestId('goto-input')).toBeFocused();
});

test('? lists every key of the viewer’s dispatch table', async ({ page }) => {
  await page.goto(pageOf(log));
  // The app is up (its keys are listened for) once Monaco shows the file: a count of 0
  // plain rows alone also holds before the app has rendered anything (a key lost under load).
  await expect(page.locator('.monaco-editor')).toBeVisible();
  await expect(page.getByTestId('plain-lines')).toHaveCount(0);
  await page.locator('body').press('?');
  const help = page.getByTestId('log-keys-help');
  await expect(help).toBeVisible();
  const listed = await help
    .locator('div')
    .evaluateAll((rows) => rows.map((r) => [r.querySelector('kbd')?.textContent ?? '', r.querySelector('dd')?.textContent ?? '']));
  for (const row of LOG_KEYS) expect(listed, keysLabelOf(row)).toContainEqual([keysLabelOf(row), row.does]);
  await page.keyboard.press('Escape');
  await expect(help).toHaveCount(0);
});

test('j on a key=value line shows its fields as a table: keys in order, quoted values unquoted', async ({ page }) => {
  await page.goto(pageOf(fields));
  await expect(page.getByTestId('plain-lines')).toHaveCount(0);
  const panel = page.getByRole('region', { name: 'JSON of the line' });
  const rowsOf = () =>
    panel.getByTestId('json-field').evaluateAll((rows) => rows.map((r) => [r.querySelector('th')!.textContent, r.querySelector('td')!.textContent]));
  await clickLine(page, 1);
  await page.keyboard.press('j');
  await expect(panel.getByTestId('json-title')).toHaveText('Line 1 fields');
  await expect.poll(rowsOf).toEqual([
    ['ts', '2026-11-29T10:00:00Z'],
    ['level', 'info'],
    ['user', 'alice'],
    ['dur', '12ms'],
    ['msg', 'quoted value with spaces'],
    ['path', '/a/b'],
  ]);
  await clickLine(page, 2);
  await page.keyboard.press('j');
  await expect(panel.getByTestId('json-title')).toHaveText('Line 2 fields');
  await expect(panel).toContainText('after “2026-11-29T10:00:01Z WARN [worker-2]”');
  await expect.poll(rowsOf).toEqual([
    ['retry', '3'],
    ['reason', 'said "no" twice'],
    ['empty', ''],
    ['done', '(no value)'],
  ]);
});

/** Per line shown in the columns pane: its number and the text of each field's cell. */
function columnCellsOf(page: Page): Promise<{ lineNo: number; cells: Record<string, string> }[]> {
  return page
    .getByTestId('json-columns')
    .locator('[data-line-no]')
    .evaluateAll((rows) =>
      rows.map((r) => ({
        lineNo: Number(r.getAttribute('data-line-no')),
        cells: Object.fromEntries([...r.querySelectorAll('[data-field]')].map((c) => [c.getAttribute('data-field'), c.textContent ?? ''])),
      })),
    );
}

/** Field `field` of lines `from`..`to` as jq prints it (-r: strings bare, absent fields null → empty here). */
function jqOf(from: number, to: number, field: string): string[] {
  const out = execSync(
    `sed -n '${from},${to}p' '${jsonl}' | jq -r --arg f '${field}' '.[$f] | if . == null then "" elif type == "string" then . else tojson end'`,
    {
      encoding: 'utf8',
    },
  );
  return out.replace(/\n$/, '').split('\n');
}

async function expectColumnsAsJq(page: Page, fieldNames: string[]) {
  let shown: Awaited<ReturnType<typeof columnCellsOf>> = [];
  await expect
    .poll(
      async () => {
        shown = await columnCellsOf(page);
        return shown.length > 10 && Object.keys(shown[0]!.cells);
      },
      { intervals: PAINT_POLL_INTERVALS },
    )
    .toEqual(fieldNames);
  const first = shown[0]!.lineNo;
  const last = shown[shown.length - 1]!.lineNo;
  expect(shown.map((r) => r.lineNo)).toEqual(Array.from({ length: last - first + 1 }, (_, i) => first + i));
  // The lines the pane shows are the lines the editor shows.
  const editorLines = (await shownLinesOf(page)).map((r) => r.lineNo);
  expect(editorLines.every((n) => n >= first && n <= last)).toBe(true);
  for (const field of fieldNames)
    expect(
      shown.map((r) => r.cells[field]),
      field,
    ).toEqual(jqOf(first, last, field));
}

test('JSON Lines columns: c shows time, level and msg beside the lines in view, as jq reads them; fields can be chosen', async ({ page }) => {
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1300, height: 800 });
  await page.goto(pageOf(jsonl));
  await expect(page.getByTestId('plain-lines')).toHaveCount(0);
  await clickLine(page, 2);
  await page.keyboard.press('c');
  await expect(page.getByRole('button', { name: 'Columns', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await expectColumnsAsJq(page, ['time', 'level', 'msg']);

  // Further down the file: the columns follow the lines in view.
  await page.getByTestId('goto-input').fill('1500');
  await page.getByTestId('goto-input').press('Enter');
  await expect.poll(async () => (await columnCellsOf(page)).some((r) => r.lineNo === 1500), { intervals: PAINT_POLL_INTERVALS }).toBe(true);
  await expectColumnsAsJq(page, ['time', 'level', 'msg']);

  // The chooser offers the fields of the lines in view: user on, time off.
  const bar = page.getByRole('region', { name: 'Columns' });
  await bar.getByRole('button', { name: 'user', exact: true }).click();
  await bar.getByRole('button', { name: 'time', exact: true }).click();
  await expect(bar.getByRole('button', { name: 'user', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await expectColumnsAsJq(page, ['level', 'msg', 'user']);

  // The button turns them off.
  await page.getByRole('button', { name: 'Columns', exact: true }).click();
  await expect(page.getByTestId('json-columns')).toHaveCount(0);
  expect(seen.problems).toEqual([]);
});
