/**
 * Several logs on one timeline (issue 31), as an SRE in Chromium against `folio
 * serve`: three ISO-stamped logs (equal stamps across files, stack traces without
 * stamps) open as tabs and merge into one view whose lines are, in order, those of
 * `LC_ALL=C sort -m -s -k1,1` (a real child process), each tagged with its file;
 * PageDown goes on with sort's next lines across the merge's windows; a time goes
 * to sort's first line stamped at or after it (awk); a click shows the line in its
 * file's tab (sed). The merged view's filter (terms, expression, levels) keeps
 * the lines grep keeps of sort's output.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { expect, test, type Page } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { mergedRowsOf, type MergedRow } from './merged-helpers.ts';
import { docsScreenshot, shownLinesOf, watchPage } from './page-helpers.ts';
import { sedLine } from './sed.ts';

let fixtures: ReturnType<typeof makeFixtureDir>;
let server: FolioServe;
let logs: string[];
/** sort's merge of the three logs, line by line, and the file it wrote. */
let sorted: string[];
let sortedPath: string;

const LINES_EACH = 30_000;

/**
 * A log of `lines` lines stamped `2024-05-01T10:00:00.000Z` first on the line,
 * the clock moving 0–2 ticks of 10 ms a line (so the three files share many
 * stamps), every 37th line followed by a two-line stack trace without a stamp.
 */
function writeLog(path: string, lines: number, seed: number): void {
  const name = basename(path, '.log');
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) >>> 0) % 1000;
  let ms = Date.UTC(2024, 4, 1, 10, 0, 0);
  const out: string[] = [];
  for (let i = 1; i <= lines; i++) {
    ms += (next() % 3) * 10;
    const level = ['INFO', 'WARN', 'DEBUG', 'ERROR'][next() % 4];
    out.push(`${new Date(ms).toISOString()} ${level} [${name}] request ${i} handled in ${next()} ms path=/api/${name}/${next()}`);
    if (i % 37 === 0) out.push(`    at ${name}.Handler.run(Handler.java:${i})`, `    at ${name}.Server.loop(Server.java:${next()})`);
  }
  writeFileSync(path, out.join('\n') + '\n');
}

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  const workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  logs = ['alpha', 'beta', 'gamma'].map((name, i) => {
    const path = join(workspace, `${name}.log`);
    writeLog(path, LINES_EACH, 7 + i);
    return path;
  });
  sortedPath = join(fixtures.dir, 'sorted.txt');
  execFileSync('sort', ['-m', '-s', '-k1,1', '-o', sortedPath, ...logs], { env: { ...process.env, LC_ALL: 'C' } });
  sorted = readFileSync(sortedPath, 'utf8').replace(/\n$/, '').split('\n');
  server = await startFolioServe([logs[0]!], {
    cwd: workspace,
    env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache'), FOLIO_CONFIG_DIR: join(fixtures.dir, 'config') },
  });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

/** The file a generated line belongs to: the name in its brackets, or in a trace's frame. */
const fileOfText = (text: string) => /\[(\w+)\]/.exec(text)?.[1] ?? /^ {4}at (\w+)\./.exec(text)?.[1];

/** The shown rows once the top one is merged line `index` (0-based), checked against sort's output and the files. */
async function expectRowsFrom(page: Page, index: number, expected: string[] = sorted.slice(index)): Promise<MergedRow[]> {
  await expect.poll(async () => (await mergedRowsOf(page))[0]?.index, { message: `top merged line ${index}` }).toBe(index);
  const rows = await mergedRowsOf(page);
  expect(rows.length).toBeGreaterThan(20);
  expect(rows.map((r) => r.text)).toEqual(expected.slice(0, rows.length));
  for (const row of rows) {
    expect(row.tag, row.text).toBe(`${fileOfText(row.text)}.log`);
    expect(basename(row.path)).toBe(row.tag);
  }
  // Where each row says it comes from holds its text (a few, sed is a process each).
  for (const row of rows.slice(0, 3)) expect(sedLine(row.path, row.line)).toBe(row.text);
  return rows;
}

/** The three logs open as tabs and merged (the Merge… button, all ticked). */
async function openMerged(page: Page): Promise<void> {
  await page.setViewportSize({ width: 1400, height: 800 });
  await page.goto(server.url.href);
  await expect(page.getByRole('tablist', { name: 'Open files' }).getByRole('tab')).toHaveText(['alpha.log']);
  for (const [i, log] of logs.entries()) {
    if (i === 0) continue;
    await page.getByTestId('path-input').fill(log);
    await page.getByTestId('path-input').press('Enter');
    await expect(page.getByRole('tablist', { name: 'Open files' }).getByRole('tab')).toHaveCount(i + 1);
  }
  await expect(page.getByRole('tablist', { name: 'Open files' }).getByRole('tab')).toHaveText(['alpha.log', 'beta.log', 'gamma.log']);

  // Merge tabs: all three ticked by default.
  await page.getByRole('button', { name: 'Merge tabs' }).click();
  const choice = page.getByRole('form', { name: 'Logs to merge' });
  await expect(choice.getByRole('checkbox')).toHaveCount(3);
  for (const box of await choice.getByRole('checkbox').all()) await expect(box).toBeChecked();
  await choice.getByRole('button', { name: 'Open merged view' }).click();
  await expect(page.getByRole('tab', { selected: true })).toHaveText('Merged (3 logs)');
  await expect(page.getByRole('list', { name: 'Merged files' }).getByRole('listitem')).toHaveText(['alpha.log', 'beta.log', 'gamma.log']);
}

test('open logs merge into one timeline equal to sort -m; PageDown, go to time and a click on a line', async ({ page }) => {
  test.setTimeout(120_000);
  const seen = watchPage(page);
  await openMerged(page);
  let rows = await expectRowsFrom(page, 0);
  // The stamps the files share are there, and traces stay under their line.
  expect(new Set(rows.map((r) => r.tag)).size).toBe(3);
  await docsScreenshot(page, 'merged-view.png');

  // PageDown past the first window of the merge (500 lines): sort's next lines.
  const lines = page.getByRole('listbox', { name: 'Merged lines' });
  let top = 0;
  while (top < 1200) {
    await lines.press('PageDown');
    top += rows.length - 1;
    rows = await expectRowsFrom(page, top);
  }
  // And back up: a window dropped from memory comes again from its cursor.
  for (let i = 0; i < 3; i++) {
    await lines.press('PageUp');
    top -= rows.length - 1;
  }
  await expectRowsFrom(page, top);
  // The wheel moves three lines a notch.
  await lines.hover();
  await page.mouse.wheel(0, 100);
  await expectRowsFrom(page, top + 3);

  // Go to a time in the middle: sort's first line stamped at or after it (awk over sort's output).
  const mid = sorted[Math.floor(sorted.length / 2)]!.slice(0, 19);
  const awk = execFileSync('awk', ['-v', `t=${mid}.000Z`, '/^[0-9][0-9][0-9][0-9]-/ && $1 >= t { print NR; exit }', sortedPath], { encoding: 'utf8' });
  const firstAt = Number(awk.trim()) - 1;
  expect(firstAt).toBeGreaterThan(1000);
  await page.getByLabel('Go to time in merged view').fill(`${mid}Z`);
  await page.getByLabel('Go to time in merged view').press('Enter');
  await expect.poll(async () => (await mergedRowsOf(page))[0]?.text).toBe(sorted[firstAt]);
  await expectRowsFrom(page, 0, sorted.slice(firstAt));
  // The header's Go to box does the same on the merged tab.
  await page.getByTestId('goto-input').fill(`${sorted[0]!.slice(0, 19)}Z`);
  await page.getByTestId('goto-input').press('Enter');
  await expect.poll(async () => (await mergedRowsOf(page))[0]?.text).toBe(sorted[0]);

  // A click on a line of beta: beta's tab, showing that line (sed).
  await page.getByLabel('Go to time in merged view').fill(`${mid}Z`);
  await page.getByLabel('Go to time in merged view').press('Enter');
  await expect.poll(async () => (await mergedRowsOf(page))[0]?.text).toBe(sorted[firstAt]);
  rows = await mergedRowsOf(page);
  const target = rows.slice(5).find((r) => r.tag === 'beta.log')!;
  await page.locator(`[data-testid="merged-line"][data-index="${target.index}"]`).click();
  await expect(page.getByRole('tab', { selected: true })).toHaveText('beta.log');
  await expect
    .poll(async () => (await shownLinesOf(page)).find((l) => l.lineNo === target.line)?.text, { message: `beta line ${target.line}` })
    .toBe(target.text);
  expect(sedLine(target.path, target.line)).toBe(target.text);

  // Back to the merged tab: where it was.
  await page.getByRole('tab', { name: 'Merged (3 logs)' }).click();
  await expect.poll(async () => (await mergedRowsOf(page))[0]?.text).toBe(sorted[firstAt]);
  expect(seen.problems).toEqual([]);
});

/** grep's lines of sort's merge: each pattern in turn, `-v` before one to drop its lines. */
function grepSorted(...steps: string[][]): string[] {
  let text = readFileSync(sortedPath, 'utf8');
  for (const args of steps) {
    const r = spawnSync('grep', args, { input: text, env: { ...process.env, LC_ALL: 'C' }, maxBuffer: 64 << 20, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`grep ${args.join(' ')}: status ${r.status} ${String(r.error)} ${r.stderr}`);
    text = r.stdout;
  }
  return text
    .replace(/\n$/, '')
    .split('\n')
    .filter((l) => l !== '');
}

test('the merged view filters like grep over sort -m: terms, expression, levels; N shown', async ({ page }) => {
  test.setTimeout(120_000);
  const seen = watchPage(page);
  await openMerged(page);
  await expectRowsFrom(page, 0);
  const lines = page.getByRole('listbox', { name: 'Merged lines' });

  // Ctrl+Shift+F on the merged tab opens its filter (the file filter's form), the term box focused.
  await lines.press('Control+Shift+F');
  const filter = page.getByRole('search', { name: 'Merged view filter' });
  await expect(filter.getByLabel('Filter 1', { exact: true })).toBeFocused();
  // (The generator's levels are nearly all INFO: the filters pick by durations and request numbers.)
  await filter.getByLabel('Filter 1', { exact: true }).fill('handled in [0-9]{2} ms');
  await filter.getByLabel('Filter 1', { exact: true }).press('Enter');
  const shortOnes = grepSorted(['-E', 'handled in [0-9]{2} ms']);
  expect(shortOnes.length).toBeGreaterThan(2_000);
  await expect.poll(async () => (await mergedRowsOf(page))[0]?.text).toBe(shortOnes[0]);
  let rows = await expectRowsFrom(page, 0, shortOnes);
  // A window of 500 matching lines came; the end is not known yet.
  await expect(page.getByTestId('merged-shown')).toHaveText('500+ shown');
  // PageDown across the first window: grep's next lines.
  let top = 0;
  while (top < 700) {
    await lines.press('PageDown');
    top += rows.length - 1;
    rows = await expectRowsFrom(page, top, shortOnes.slice(top));
  }

  // An excluding term and an expression: grep, grep -v, grep.
  await filter.getByRole('button', { name: 'Add a filter' }).click();
  await filter.getByLabel('Filter 2 mode').selectOption('exclude');
  await filter.getByLabel('Filter 2', { exact: true }).fill('beta');
  await filter.getByLabel('Filter expression').fill('"handled in 1" OR /in 9\\d ms/');
  await filter.getByLabel('Filter expression').press('Enter');
  const mixed = grepSorted(['-E', 'handled in [0-9]{2} ms'], ['-v', 'beta'], ['-E', 'handled in 1|in 9[0-9] ms']);
  expect(mixed.length).toBeGreaterThan(100);
  await expect.poll(async () => (await mergedRowsOf(page))[0]?.text).toBe(mixed[0]);
  rows = await expectRowsFrom(page, 0, mixed);
  expect(rows.some((r) => r.tag === 'beta.log')).toBe(false);

  // Levels alone (chips apply at once), and a sparse term: the end comes, so the count is grep -c's.
  await filter.getByRole('button', { name: 'Remove filter 2' }).click();
  await filter.getByLabel('Filter 1', { exact: true }).fill('request 12[0-9]{2} ');
  await filter.getByLabel('Filter expression').fill('');
  await filter.getByRole('group', { name: 'Levels' }).getByRole('button', { name: 'INFO' }).click();
  const sparse = grepSorted(['-E', 'request 12[0-9]{2} '], ['-w', 'INFO']);
  expect(sparse.length).toBeGreaterThan(20);
  expect(sparse.length).toBeLessThan(500);
  await expect(page.getByTestId('merged-shown')).toHaveText(`${sparse.length} shown`);
  await expectRowsFrom(page, 0, sparse);

  // A malformed expression is said, and the view keeps its lines.
  await filter.getByLabel('Filter expression').fill('(ERROR');
  await filter.getByLabel('Filter expression').press('Enter');
  await expect(page.getByTestId('merged-filter-error')).toContainText('Filter expression, at character');
  await expectRowsFrom(page, 0, sparse);

  // Escape closes the filter: every line again.
  await filter.getByLabel('Filter expression').press('Escape');
  await expect(filter).toHaveCount(0);
  await expect(page.getByTestId('merged-shown')).toHaveCount(0);
  await expect.poll(async () => (await mergedRowsOf(page))[0]?.text).toBe(sorted[0]);
  await expectRowsFrom(page, 0);
  expect(seen.problems).toEqual([]);
});

test('the Merge… dialog takes a folder (its stamped logs by name) and a glob, as sort -m takes the files', async ({ page }) => {
  test.setTimeout(120_000);
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1400, height: 800 });
  await page.goto(server.url.href);
  await expect(page.getByRole('tablist', { name: 'Open files' }).getByRole('tab')).toHaveText(['alpha.log']);
  const folder = join(fixtures.dir, 'ws');

  // One tab open: the dialog still merges a folder.
  await page.getByRole('button', { name: 'Merge tabs' }).click();
  await page.getByLabel('Folder or glob to merge').fill(folder);
  await page.getByLabel('Folder or glob to merge').press('Enter');
  await expect(page.getByRole('tab', { selected: true })).toHaveText('Merged (3 logs)');
  await expect(page.getByRole('list', { name: 'Merged files' }).getByRole('listitem')).toHaveText(['alpha.log', 'beta.log', 'gamma.log']);
  await expectRowsFrom(page, 0);

  // A glob: gamma and alpha only, in name order.
  const two = [logs[0]!, logs[2]!];
  const sortedTwo = execFileSync('sort', ['-m', '-s', '-k1,1', ...two], { env: { ...process.env, LC_ALL: 'C' }, encoding: 'utf8', maxBuffer: 64 << 20 })
    .replace(/\n$/, '')
    .split('\n');
  await page.getByRole('button', { name: 'Merge tabs' }).click();
  await page.getByLabel('Folder or glob to merge').fill(join(folder, '{gamma,alpha}.log'));
  await page.getByRole('button', { name: 'Merge folder or glob' }).click();
  await expect(page.getByRole('tab', { selected: true })).toHaveText('Merged (2 logs)');
  await expect(page.getByRole('list', { name: 'Merged files' }).getByRole('listitem')).toHaveText(['alpha.log', 'gamma.log']);
  await expect.poll(async () => (await mergedRowsOf(page))[0]?.text).toBe(sortedTwo[0]);
  await expectRowsFrom(page, 0, sortedTwo);

  // A folder without a stamped log: said in the dialog, the view kept.
  await page.getByRole('button', { name: 'Merge tabs' }).click();
  await page.getByLabel('Folder or glob to merge').fill(join(folder, '*.txt'));
  await page.getByLabel('Folder or glob to merge').press('Enter');
  await expect(page.getByTestId('merge-folder-problem')).toContainText('no stamped log in');
  await expect(page.getByRole('tab', { selected: true })).toHaveText('Merged (2 logs)');
  // The one problem the page logs is that refusal's answer (400, invalid_input).
  expect(seen.problems).toEqual(['console: Failed to load resource: the server responded with a status of 400 (Bad Request)']);
});
