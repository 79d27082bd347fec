/**
 * The log viewer's fixes (issue 17, "broken today"), acting as a user in
 * Chromium against `folio serve`: a line longer than the read cap is shown cut and
 * paged past with no read loop; follow pauses when reading back; Ctrl+Home/End go
 * to the file's ends; find steps with keys and marks the matched text; links name
 * the selected lines and open them; go-to says why it refuses input. Visible text
 * is checked against the file with sed.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { REPO_ROOT, startFolioServe, type FolioServe } from './folio-serve.ts';
import { logLineOf } from './log-fixture.ts';
import { PAINT_POLL_INTERVALS, selectByMouse, selectedLinesOf, type ShownLine, shownLinesOf, watchPage } from './page-helpers.ts';
import { sedLine } from './sed.ts';

const count = (n: number) => new Intl.NumberFormat('en-US').format(n);

let fixtures: ReturnType<typeof makeFixtureDir>;
let workspace: string;
let server: FolioServe;
/** 20,000 log lines, line 10,000 a 1.25 MB JSON object on one line. */
let longLog: string;
const LONG_AT = 10_000;
const LONG_TOTAL = 20_000;
const longLineText = `{"level":"INFO","payload":"${'0123456789abcdef'.repeat(78_125)}"}`;
const longLogLineOf = (n: number) => (n === LONG_AT ? longLineText : logLineOf(n));

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  longLog = join(workspace, 'long-line.log');
  writeFileSync(longLog, Array.from({ length: LONG_TOTAL }, (_, i) => longLogLineOf(i + 1) + '\n').join(''));
  // HOME is the fixture directory, so the path box's ~ means it.
  server = await startFolioServe([longLog], { cwd: workspace, env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache'), HOME: fixtures.dir } });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

const pageOf = (file: string) => `${server.url.href.replace(/&file=[^&]*/, '')}&file=${encodeURIComponent(file)}`;

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

/** Rows other than the long one are the file's lines (sed), consecutive. */
function expectTrueRows(file: string, shown: ShownLine[]) {
  expect(shown.length).toBeGreaterThan(5);
  shown.forEach((row, i) => {
    expect(row.lineNo, `row ${i}`).toBe(shown[0]!.lineNo + i);
    if (row.lineNo !== LONG_AT) expect(row.text, `line ${row.lineNo}`).toBe(sedLine(file, row.lineNo));
  });
}

async function goTo(page: Page, typed: string) {
  await page.getByTestId('goto-input').fill(typed);
  await page.getByTestId('goto-input').press('Enter');
}

test('a 1.25 MB line is shown cut with a marker; go-to, PageDown and the wheel pass it; no read loop', async ({ page }) => {
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1300, height: 760 });
  await page.goto(pageOf(longLog));
  await expect(page.getByTestId('file-lines')).toHaveText(count(LONG_TOTAL));
  await expect(page.locator('[data-testid="file-view"] .view-line').first()).toBeVisible();

  await goTo(page, String(LONG_AT));
  const shown = await waitForTop(page, (top) => top <= LONG_AT && LONG_AT < top + 30, `line ${LONG_AT} in view`);
  expectTrueRows(longLog, shown);
  // The row shows the line's head (Monaco stops painting a row after 10,000 characters), marked as cut.
  const longRow = shown.find((r) => r.lineNo === LONG_AT)!;
  expect(sedLine(longLog, LONG_AT).startsWith(longRow.text.slice(0, 2_000))).toBe(true);
  expect(longRow.text.length).toBeGreaterThan(1_000);
  await expect(page.locator('[data-testid="file-view"] .folio-cut-line')).toHaveCount(1);
  await expect(page.locator('[data-testid="file-view"] .folio-cut-line-sign')).toHaveCount(1);
  await expect(page.getByTestId('long-line-label')).toHaveText(`Line ${count(LONG_AT)}: 1.25 MB line — showing the first 16,384 characters`);
  expect(shown.some((r) => r.lineNo === LONG_AT + 5)).toBe(true);

  // Idle on the long line: nothing reads the same window again and again.
  await page.waitForTimeout(500);
  const reads = () => seen.urls.filter((u) => u.endsWith('/api/read')).length;
  const idleFrom = reads();
  await page.waitForTimeout(2_000);
  expect(reads() - idleFrom, 'reads while idle for 2 s').toBe(0);

  // More of it in place, and all of it in a side view, a slice at a time.
  await page.getByRole('button', { name: 'Show more' }).click();
  await expect(page.getByTestId('long-line-label')).toContainText('showing the first 65,536 characters');
  await page.getByRole('button', { name: 'Open in a side view' }).click();
  const side = page.getByTestId('long-line-panel');
  await expect(side.getByTestId('long-line-range')).toHaveText(`bytes 0–65,536 of ${count(longLineText.length)}`);
  expect(await side.getByTestId('long-line-text').textContent()).toBe(sedLine(longLog, LONG_AT).slice(0, 65_536));
  await side.getByRole('button', { name: 'Next slice' }).click();
  await expect(side.getByTestId('long-line-range')).toHaveText(`bytes 65,536–131,072 of ${count(longLineText.length)}`);
  expect(await side.getByTestId('long-line-text').textContent()).toBe(sedLine(longLog, LONG_AT).slice(65_536, 131_072));
  await side.getByRole('button', { name: 'Close line view' }).click();

  // PageDown from above the long line goes on past it.
  await goTo(page, String(LONG_AT - 60));
  await waitForTop(page, (top) => top <= LONG_AT - 60 && LONG_AT - 60 < top + 30, `line ${LONG_AT - 60} in view`);
  await page.getByTestId('file-view').click();
  for (let i = 0; i < 12; i++) await page.keyboard.press('PageDown');
  expectTrueRows(longLog, await waitForTop(page, (top) => top > LONG_AT + 100, 'PageDown passes the long line'));

  // The wheel too, upwards this time.
  await page.getByTestId('file-view').hover();
  // Alt is Monaco's fast-scroll modifier (×5), as in viewer.spec.ts.
  await page.keyboard.down('Alt');
  for (let i = 0; i < 60; i++) await page.mouse.wheel(0, -200);
  await page.keyboard.up('Alt');
  expectTrueRows(longLog, await waitForTop(page, (top) => top < LONG_AT - 100, 'the wheel passes the long line'));

  // And idle again after all that paging.
  await page.waitForTimeout(500);
  const idleAgain = reads();
  await page.waitForTimeout(2_000);
  expect(reads() - idleAgain, 'reads while idle for 2 s after paging').toBe(0);
  expect(seen.problems).toEqual([]);
});

test('find: Enter / F3 step through matches, Shift steps back; matched text marked; total counted; rows focusable; Esc closes', async ({ page }) => {
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1300, height: 860 });
  await page.goto(pageOf(longLog));
  await expect(page.getByTestId('file-lines')).toHaveText(count(LONG_TOTAL));
  await expect(page.locator('[data-testid="file-view"] .view-line').first()).toBeVisible();
  const pattern = /ERROR \[worker-3\]/;
  const expected = execFileSync('grep', ['-n', 'ERROR \\[worker-3\\]', longLog], { encoding: 'utf8', maxBuffer: 8 << 20 })
    .trim()
    .split('\n')
    .map((row) => Number(row.split(':')[0]));
  expect(expected.length).toBeGreaterThan(300);
  expect(expected.every((n) => pattern.test(longLogLineOf(n)))).toBe(true);

  await page.getByTestId('file-view').click();
  await page.keyboard.press('Control+f');
  const input = page.getByRole('textbox', { name: 'Find' });
  await expect(input).toBeFocused();
  await input.fill('error \\[WORKER-3\\]');
  await input.press('Enter');
  const status = page.getByTestId('find-status');
  // More matches than one page of results: the rest of the file is counted.
  await expect(status).toHaveText(`1 of ${count(expected.length)} lines · whole file searched`);
  await expect(page.getByTestId('find-result')).toHaveCount(200);

  const current = page.locator('[data-testid="file-view"] .folio-find-match.current');
  const expectCurrent = async (i: number) => {
    await expect(status).toHaveText(`${count(i + 1)} of ${count(expected.length)} lines · whole file searched`);
    const lineNo = expected[i]!;
    await waitForTop(page, (top) => top <= lineNo && lineNo < top + 40, `line ${lineNo} in view`);
    expect((await shownLinesOf(page)).find((r) => r.lineNo === lineNo)?.text).toBe(sedLine(longLog, lineNo));
    // The matched text itself is marked, not only the line.
    // (Monaco splits it into one span per token.)
    await expect
      .poll(() =>
        current.evaluateAll((els) =>
          els
            .map((e) => e.textContent)
            .join('')
            .replace(/\u00a0/g, ' '),
        ),
      )
      .toBe(sedLine(longLog, lineNo).match(pattern)![0]);
  };
  await expectCurrent(0);
  await input.press('Enter');
  await expectCurrent(1);
  await page.keyboard.press('F3');
  await expectCurrent(2);
  await page.keyboard.press('Shift+F3');
  await expectCurrent(1);
  await input.press('Shift+Enter');
  await expectCurrent(0);
  // Before the first: around to the last loaded.
  await input.press('Shift+Enter');
  await expectCurrent(199);
  // F3 from the editor too: past the last loaded result, the next page comes in.
  await page.getByTestId('file-view').click();
  await page.keyboard.press('F3');
  await expectCurrent(200);
  await expect(page.getByTestId('find-result')).toHaveCount(expected.length);

  // Result rows are reached with Tab and shown with Enter.
  const firstRow = page.getByRole('button', { name: new RegExp(`^Line ${count(expected[0]!)}:`) });
  await firstRow.focus();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: new RegExp(`^Line ${count(expected[1]!)}:`) })).toBeFocused();
  await page.keyboard.press('Enter');
  await expectCurrent(1);

  await input.focus();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('find-panel')).toHaveCount(0);
  expect(seen.problems).toEqual([]);
});

/** Turn the wheel (Alt: Monaco's fast scroll) a notch at a time until the top line passes `predicate`. */
async function wheelUntilTop(page: Page, deltaY: number, predicate: (top: number) => boolean, what: string): Promise<void> {
  await page.getByTestId('file-view').hover();
  await page.keyboard.down('Alt');
  try {
    await expect
      .poll(
        async () => {
          const top = (await shownLinesOf(page))[0]?.lineNo;
          if (top !== undefined && predicate(top)) return true;
          await page.mouse.wheel(0, deltaY);
          return false;
        },
        { message: what, intervals: PAINT_POLL_INTERVALS, timeout: 30_000 },
      )
      .toBe(true);
  } finally {
    await page.keyboard.up('Alt');
  }
}

test('copy link names the selected lines; the served page opens ?path=…&lines=A-B on them, selected', async ({ page }) => {
  const context = page.context();
  await page.setViewportSize({ width: 1300, height: 760 });
  await page.goto(pageOf(longLog));
  await expect(page.getByTestId('file-lines')).toHaveText(count(LONG_TOTAL));
  await goTo(page, '150');
  await expect.poll(() => selectedLinesOf(page)).toEqual([150]);
  await selectByMouse(page, 150, 154);
  await expect.poll(() => selectedLinesOf(page)).toEqual([150, 151, 152, 153, 154]);
  await page.getByRole('button', { name: 'Copy link' }).click();
  // In a browser the link is this page's, opened on the lines (a folio:// one is Electron's).
  const link = `${server.origin}/?path=${encodeURIComponent(longLog)}&lines=150-154`;
  await expect(page.getByTestId('copy-link-url')).toHaveText(link);
  await expect(page.getByTestId('copy-link-command')).toHaveText(`folio read ${longLog} --lines 150-154`);

  // The same query on the served page: lands on those lines, selected.
  const opened = await context.newPage();
  await opened.setViewportSize({ width: 1300, height: 760 });
  await opened.goto(`${server.origin}/?token=${server.token}&path=${encodeURIComponent(longLog)}&lines=12000-12003`);
  await expect(opened.getByTestId('file-lines')).toHaveText(count(LONG_TOTAL));
  const shown = await waitForTop(opened, (top) => top === 12_000, 'line 12,000 at the top');
  expectTrueRows(longLog, shown);
  await expect.poll(() => selectedLinesOf(opened)).toEqual([12_000, 12_001, 12_002, 12_003]);
  await opened.getByRole('button', { name: 'Copy link' }).click();
  await expect(opened.getByTestId('copy-link-url')).toHaveText(`${server.origin}/?path=${encodeURIComponent(longLog)}&lines=12000-12003`);
});

test('a selection outlives the window: scrolled past the next window and back, the lines are still selected and Copy link names them', async ({ page }) => {
  await page.setViewportSize({ width: 1300, height: 760 });
  await page.goto(pageOf(longLog));
  await expect(page.getByTestId('file-lines')).toHaveText(count(LONG_TOTAL));
  await goTo(page, '150');
  await expect.poll(() => selectedLinesOf(page)).toEqual([150]);
  await selectByMouse(page, 150, 152);
  await expect.poll(() => selectedLinesOf(page)).toEqual([150, 151, 152]);
  // The wheel (which moves no cursor) down past the first window's end: the next window is loaded.
  await wheelUntilTop(page, 400, (top) => top > 1_200, 'the wheel past the first window');
  expectTrueRows(longLog, await shownLinesOf(page));
  await page.getByRole('button', { name: 'Copy link' }).click();
  await expect(page.getByTestId('copy-link-command')).toHaveText(`folio read ${longLog} --lines 150-152`);
  await page.keyboard.press('Escape');
  // And back up to them: still selected.
  await wheelUntilTop(page, -400, (top) => top < 150, 'back above line 150');
  await expect.poll(() => selectedLinesOf(page)).toEqual([150, 151, 152]);
});

test('Ctrl+End and Ctrl+Home go to the last and first lines of the file, not of the loaded window', async ({ page }) => {
  await page.setViewportSize({ width: 1300, height: 760 });
  await page.goto(pageOf(longLog));
  await expect(page.getByTestId('file-lines')).toHaveText(count(LONG_TOTAL));
  await expect(page.locator('[data-testid="file-view"] .view-line').first()).toBeVisible();
  await page.getByTestId('file-view').click();
  await page.keyboard.press('Control+End');
  let shown = await waitForTop(page, (top) => top > LONG_TOTAL - 60, 'the last lines in view');
  expect(shown[shown.length - 1]).toEqual({ lineNo: LONG_TOTAL, text: sedLine(longLog, LONG_TOTAL) });
  expectTrueRows(longLog, shown);
  await page.keyboard.press('Control+Home');
  shown = await waitForTop(page, (top) => top === 1, 'line 1 at the top');
  expect(shown[0]).toEqual({ lineNo: 1, text: sedLine(longLog, 1) });
  expectTrueRows(longLog, shown);
});

test('follow pauses when scrolling up or PageUp, says so, and End or the button resumes it', async ({ page }) => {
  const growing = join(workspace, 'growing.log');
  const lineText = (n: number) => `2024-05-01T10:00:00Z INFO [app] event=${n}`;
  const linesFrom = (first: number, last: number) => Array.from({ length: last - first + 1 }, (_, i) => lineText(first + i) + '\n').join('');
  writeFileSync(growing, linesFrom(1, 400));
  await page.setViewportSize({ width: 1300, height: 700 });
  await page.goto(pageOf(growing));
  await expect(page.getByTestId('file-lines')).toHaveText('400');
  const follow = page.getByRole('button', { name: /^Follow/ });
  const bottomRow = async () => (await shownLinesOf(page)).at(-1) ?? null;

  await follow.click();
  await expect(follow).toHaveText('Following');
  await expect.poll(bottomRow).toEqual({ lineNo: 400, text: lineText(400) });
  appendFileSync(growing, linesFrom(401, 450));
  await expect.poll(bottomRow).toEqual({ lineNo: 450, text: lineText(450) });

  // The wheel up: paused, and appends no longer pull the view down.
  await page.getByTestId('file-view').hover();
  for (let i = 0; i < 8; i++) await page.mouse.wheel(0, -200);
  await expect(follow).toHaveText('Follow paused');
  await expect(follow).toHaveAttribute('aria-pressed', 'false');
  const top = (await shownLinesOf(page))[0]!.lineNo;
  expect(top).toBeLessThan(420);
  appendFileSync(growing, linesFrom(451, 500));
  await expect(page.getByTestId('file-lines')).toHaveText('500');
  await page.waitForTimeout(800);
  expect((await shownLinesOf(page))[0]!.lineNo).toBe(top);

  // End resumes: the last line at the bottom, and later appends follow again.
  await page.getByTestId('file-view').click();
  await page.keyboard.press('End');
  await expect(follow).toHaveText('Following');
  await expect.poll(bottomRow).toEqual({ lineNo: 500, text: lineText(500) });
  appendFileSync(growing, linesFrom(501, 520));
  await expect.poll(bottomRow).toEqual({ lineNo: 520, text: lineText(520) });

  // PageUp pauses too; the button resumes.
  await page.keyboard.press('PageUp');
  await expect(follow).toHaveText('Follow paused');
  appendFileSync(growing, linesFrom(521, 530));
  await expect(page.getByTestId('file-lines')).toHaveText('530');
  await follow.click();
  await expect(follow).toHaveText('Following');
  await expect.poll(bottomRow).toEqual({ lineNo: 530, text: lineText(530) });
});

test('bad go-to input says why; ~ expands in the path box; a legacy encoding is named, not called invalid', async ({ page }) => {
  await page.setViewportSize({ width: 1300, height: 760 });
  await page.goto(pageOf(longLog));
  await expect(page.getByTestId('file-lines')).toHaveText(count(LONG_TOTAL));
  const goToBox = page.getByRole('textbox', { name: 'Go to' });
  await goToBox.fill('abc');
  await goToBox.press('Enter');
  await expect(page.getByRole('alert').filter({ hasText: 'not a line' })).toHaveText(
    '“abc”: not a line number, byte offset @N, percent or time (2024-05-01 12:30, 12:30:05)',
  );
  await expect(goToBox).toHaveAttribute('aria-invalid', 'true');
  await goToBox.fill('12,345');
  await expect(page.getByTestId('goto-problem')).toHaveCount(0);
  await goToBox.press('Enter');
  await waitForTop(page, (top) => top <= 12_345 && 12_345 < top + 40, 'line 12,345 in view');

  // ~ is the home directory of the server (the fixture directory here).
  const pathBox = page.getByRole('textbox', { name: 'File', exact: true });
  const latin1 = join(workspace, 'latin1.log');
  const text = Array.from({ length: 200 }, (_, i) => `2024-05-01 INFO café crème brûlée naïve line ${i + 1}`).join('\n') + '\n';
  writeFileSync(latin1, Buffer.from(text, 'latin1'));
  await pathBox.fill('~/ws/latin1.log');
  await pathBox.press('Enter');
  await expect(page.getByTestId('file-path')).toHaveText(latin1);
  await expect(page.getByTestId('file-lines')).toHaveText('200');
  // Decoded as what it is: the status bar names it, without "invalid"; the text is the file's.
  await expect(page.getByTestId('file-encoding')).toHaveText(/^iso-8859-1|^windows-1252/);
  await expect(page.getByTestId('file-encoding')).not.toContainText('invalid');
  await expect.poll(async () => (await shownLinesOf(page)).find((r) => r.lineNo === 3)?.text).toBe('2024-05-01 INFO café crème brûlée naïve line 3');
});

test('the status bar reads a misdetected file in another encoding: the rows become what iconv makes of it', async ({ page }) => {
  await page.setViewportSize({ width: 1300, height: 760 });
  // French windows-1252 text that the detector takes for iso-8859-2 ("crčme brűlée").
  const french = join(workspace, 'french.log');
  const text = Array.from({ length: 300 }, (_, i) => `${i + 1} crème brûlée, déjà vu, naïve façade, où est le café ? très élevé`).join('\n') + '\n';
  writeFileSync(french, Buffer.from(text, 'latin1'));
  await page.goto(pageOf(french));
  await expect(page.getByTestId('file-lines')).toHaveText('300');
  const detected = (await page.getByTestId('file-encoding').textContent())!.split(' ')[0]!;
  const iconvLine = (from: string, n: number) =>
    execFileSync('sh', ['-c', `iconv -f ${from} -t UTF-8 "$1" | sed -n ${n}p`, 'sh', french], { encoding: 'utf8' }).replace(/\n$/, '');
  await expect.poll(async () => (await shownLinesOf(page)).find((r) => r.lineNo === 3)?.text).toBe(iconvLine(detected, 3));

  await page.getByRole('combobox', { name: 'Read the file as' }).selectOption('windows-1252');
  await expect(page.getByTestId('file-encoding')).toHaveText(`windows-1252 (chosen; detected ${detected})`);
  await expect.poll(async () => (await shownLinesOf(page)).find((r) => r.lineNo === 3)?.text).toBe(iconvLine('WINDOWS-1252', 3));
  expect(iconvLine('WINDOWS-1252', 3)).toBe('3 crème brûlée, déjà vu, naïve façade, où est le café ? très élevé');
  // Far into the file too (another window, read in the chosen encoding), and back to the detected one.
  await goTo(page, '250');
  await expect.poll(async () => (await shownLinesOf(page)).find((r) => r.lineNo === 250)?.text).toBe(iconvLine('WINDOWS-1252', 250));
  await page.getByRole('combobox', { name: 'Read the file as' }).selectOption('');
  await expect.poll(async () => (await shownLinesOf(page)).find((r) => r.lineNo === 250)?.text).toBe(iconvLine(detected, 250));
});

test('the first painted rows do not move when the editor takes over', async ({ page }) => {
  await page.setViewportSize({ width: 1300, height: 760 });
  await page.goto(pageOf(longLog), { waitUntil: 'commit' });
  // Sample where line 3's row is until Monaco has painted it, frame by frame from the test.
  const seen = new Set<string>();
  let monacoSeen = false;
  for (let i = 0; i < 2_000 && !monacoSeen; i++) {
    const where = await page.evaluate(
      (line3) => {
        const rows = [...document.querySelectorAll('.plain-line-text, .view-line')] as HTMLElement[];
        const row = rows.find((e) => e.textContent?.replace(/\u00a0/g, ' ') === line3);
        if (!row) return null;
        const box = row.getBoundingClientRect();
        return { kind: row.classList.contains('view-line') ? 'monaco' : 'plain', at: `${box.left.toFixed(1)},${box.top.toFixed(1)}` };
      },
      sedLine(longLog, 3),
    );
    if (!where) continue;
    seen.add(where.at);
    monacoSeen = where.kind === 'monaco';
  }
  expect(monacoSeen).toBe(true);
  expect([...seen]).toHaveLength(1);
});

/** `grep -nP PATTERN file` as {line, text} (Perl regexes, close to JavaScript's for these patterns). */
function grepLines(file: string, pattern: string, invert?: string): { line: number; text: string }[] {
  const out = execFileSync('grep', ['-nP', pattern, file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return out
    .split('\n')
    .filter(Boolean)
    .map((row) => {
      const at = row.indexOf(':');
      return { line: Number(row.slice(0, at)), text: row.slice(at + 1) };
    })
    .filter((r) => invert === undefined || !new RegExp(invert).test(r.text));
}

test('filter view: matching / not matching filters combined, levels, file line numbers, keys and clicks jump the main view', async ({ page }) => {
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1300, height: 900 });
  await page.goto(pageOf(longLog));
  await expect(page.getByTestId('file-lines')).toHaveText(count(LONG_TOTAL));
  await page.getByRole('button', { name: 'Filter', exact: true }).click();
  const panel = page.getByRole('region', { name: 'Filter view' });
  const status = panel.getByTestId('filter-status');
  const list = panel.getByRole('listbox', { name: 'Filtered lines' });
  const rows = list.getByRole('option');
  const listedLines = () => rows.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-line'))));
  const listed = () =>
    rows.evaluateAll((els) => els.map((e) => ({ line: Number(e.getAttribute('data-line')), text: e.querySelector('.text')?.textContent ?? '' })));

  // One filter: the lines with ERROR, numbered as in the file.
  const errors = grepLines(longLog, 'ERROR');
  const filter1 = panel.getByRole('textbox', { name: 'Filter 1' });
  await filter1.fill('ERROR');
  const t0 = performance.now();
  await filter1.press('Enter');
  await expect(rows.first()).toBeVisible();
  console.log(`[measure] filter: first lines painted ${Math.round(performance.now() - t0)} ms after Enter (${count(LONG_TOTAL)} lines)`);
  await expect(status).toHaveText(`${count(errors.length)} lines · whole file searched`);
  const firstRows = await listed();
  expect(firstRows.length).toBeGreaterThan(20);
  // Only the rows in view are drawn.
  expect(firstRows.length).toBeLessThan(150);
  expect(firstRows).toEqual(errors.slice(0, firstRows.length));

  // A second filter, not matching: ERROR and not worker-3.
  await panel.getByRole('button', { name: 'Add a filter' }).click();
  await panel.getByRole('combobox', { name: 'Filter 2 mode' }).selectOption('exclude');
  await panel.getByRole('textbox', { name: 'Filter 2' }).fill('worker-3');
  const t1 = performance.now();
  await panel.getByRole('textbox', { name: 'Filter 2' }).press('Enter');
  const errorsNot3 = grepLines(longLog, 'ERROR', 'worker-3');
  await expect(status).toHaveText(`${count(errorsNot3.length)} lines · whole file searched`);
  await expect.poll(async () => (await listed()).slice(0, 30)).toEqual(errorsNot3.slice(0, 30));
  console.log(`[measure] filter: two filters applied, ${count(errorsNot3.length)} lines listed ${Math.round(performance.now() - t1)} ms after Enter`);

  // Levels instead of terms: WARN and ERROR, as words.
  await panel.getByRole('button', { name: 'Remove filter 2' }).click();
  await filter1.fill('');
  await panel.getByRole('group', { name: 'Levels' }).getByRole('button', { name: 'WARN' }).click();
  await panel.getByRole('group', { name: 'Levels' }).getByRole('button', { name: 'ERROR' }).click();
  const warnOrError = grepLines(longLog, '\\b(?:ERROR|ERR|WARN(?:ING)?)\\b');
  await expect(status).toHaveText(`${count(warnOrError.length)} lines · whole file searched`);
  await expect.poll(async () => (await listed()).slice(0, 30)).toEqual(warnOrError.slice(0, 30));

  // The end of the list: scrolled there, the last passing line of the file.
  await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
  await expect.poll(async () => (await listedLines()).at(-1)).toBe(warnOrError.at(-1)!.line);

  // Keys: Home, two down, Enter shows that line in the main view, marked.
  await list.focus();
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(list.getByRole('option', { selected: true })).toHaveAttribute('data-line', String(warnOrError[2]!.line));
  await page.keyboard.press('Enter');
  const target = warnOrError[2]!.line;
  await expect
    .poll(async () => (await shownLinesOf(page)).find((r) => r.lineNo === target)?.text, { message: `line ${target} in the main view` })
    .toBe(sedLine(longLog, target));

  // A click on another row.
  const clicked = warnOrError[10]!.line;
  await panel.locator(`[data-line="${clicked}"]`).click();
  await expect
    .poll(async () => (await shownLinesOf(page)).find((r) => r.lineNo === clicked)?.text, { message: `line ${clicked} in the main view` })
    .toBe(sedLine(longLog, clicked));
  await page.screenshot({ path: join(REPO_ROOT, 'test-results', 'filter-view.png') });

  // Esc closes it.
  await list.press('Escape');
  await expect(panel).toHaveCount(0);
  expect(seen.problems).toEqual([]);
});

test('every control of the viewer, find and filter has an accessible name', async ({ page }) => {
  await page.setViewportSize({ width: 1300, height: 860 });
  await page.goto(pageOf(longLog));
  await expect(page.getByTestId('file-lines')).toHaveText(count(LONG_TOTAL));
  await page.getByRole('button', { name: 'Find', exact: true }).click();
  await page.getByRole('button', { name: 'Filter', exact: true }).click();
  await goTo(page, String(LONG_AT));
  await expect(page.getByTestId('long-line-bar')).toBeVisible();
  // The names tests and screen readers find them by.
  for (const [role, name] of [
    ['button', 'Follow'],
    ['button', 'Find'],
    ['button', 'Filter'],
    ['button', 'Copy link'],
    ['button', 'Outline'],
    ['button', 'Recent files'],
    ['button', '−10k: Up 10,000 lines'],
    ['button', 'Next match (F3)'],
    ['button', 'Previous match (Shift+F3)'],
    ['button', 'Show more'],
    ['button', 'Open in a side view'],
    ['textbox', 'Go to'],
    ['textbox', 'File'],
    ['textbox', 'Find'],
    ['textbox', 'Filter 1'],
    ['scrollbar', 'Position in the file'],
    ['group', 'Levels'],
  ] as const) {
    await expect(page.getByRole(role, { name, exact: true }).first(), `${role} "${name}"`).toBeVisible();
  }
  // And no control without one (outside Monaco, which names its own).
  const unnamed = await page.evaluate(() => {
    const nameOf = (el: Element): string => {
      const labelledBy = el.getAttribute('aria-labelledby');
      const byId = labelledBy
        ? labelledBy
            .split(' ')
            .map((id) => document.getElementById(id)?.textContent ?? '')
            .join(' ')
        : '';
      const label = el.id ? (document.querySelector(`label[for="${el.id}"]`)?.textContent ?? '') : '';
      return (
        [el.getAttribute('aria-label'), byId, label, el.tagName === 'INPUT' || el.tagName === 'SELECT' ? '' : el.textContent, el.getAttribute('title')]
          .map((s) => (s ?? '').trim())
          .find(Boolean) ?? ''
      );
    };
    const controls = document.querySelectorAll('button, input, select, [role="listbox"], [role="scrollbar"], [role="option"], [tabindex="0"]');
    return [...controls].filter((el) => !el.closest('.monaco-editor') && nameOf(el) === '').map((el) => el.outerHTML.slice(0, 120));
  });
  expect(unnamed).toEqual([]);
});
