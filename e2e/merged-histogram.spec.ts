/**
 * The merged view's histogram (issue 31), as an SRE in Chromium against `folio
 * serve`: three logs over a minute, merged; Ctrl+Shift+H shows lines per second
 * over all of them, each bar's count equal to awk's count of lines stamped in that
 * second over the three files, the level totals equal to grep -c; a click on a bar
 * starts the merged view at sort -m's first line of that second.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { mergeOpenTabs } from './merged-helpers.ts';
import { watchPage } from './page-helpers.ts';

let fixtures: ReturnType<typeof makeFixtureDir>;
let server: FolioServe;
let logs: string[];

const LEVELS = ['INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'];

/** Lines 30–170 ms apart from 10:00:00 (plus `offsetMs`), levels in a fixed rotation by a seed. */
function writeLog(path: string, name: string, lines: number, offsetMs: number, seed: number): void {
  let ms = Date.UTC(2024, 4, 1, 10, 0, 0) + offsetMs;
  let state = seed;
  const out: string[] = [];
  for (let i = 1; i <= lines; i++) {
    state = (state * 48271) % 2147483647;
    ms += 30 + (state % 141);
    out.push(`${new Date(ms).toISOString()} ${LEVELS[state % LEVELS.length]} [${name}] request ${i}`);
  }
  writeFileSync(path, out.join('\n') + '\n');
}

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  const workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  logs = ['alpha', 'beta', 'gamma'].map((name) => join(workspace, `${name}.log`));
  writeLog(logs[0]!, 'alpha', 500, 0, 11);
  writeLog(logs[1]!, 'beta', 300, 9_000, 12);
  writeLog(logs[2]!, 'gamma', 400, 2_500, 13);
  server = await startFolioServe([logs[0]!], {
    cwd: workspace,
    env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache'), FOLIO_CONFIG_DIR: join(fixtures.dir, 'config') },
  });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

const C = { env: { ...process.env, LC_ALL: 'C' }, encoding: 'utf8' as const };

test('Ctrl+Shift+H on the merged tab: bars per second equal awk over the files; a click goes to that second', async ({ page }) => {
  test.setTimeout(120_000);
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1400, height: 800 });
  await page.goto(server.url.href);
  // One open at a time, each waited for (as a person sees the tab come before typing the next path).
  const lines = await mergeOpenTabs(page, logs.slice(1));

  await lines.press('Control+Shift+H');
  const panel = page.getByRole('region', { name: 'Merged histogram' });
  await expect(panel).toHaveAttribute('data-bucket-ms', '1000');
  await expect(panel.getByTestId('merged-histogram-summary')).toContainText('1,200 lines');

  // awk: lines per second (the stamp up to its seconds) over the three files.
  const awk = execFileSync('awk', ['{ n[substr($1, 1, 19)]++ } END { for (k in n) print k, n[k] }', ...logs], C);
  const want = Object.fromEntries(
    awk
      .trim()
      .split('\n')
      .map((l) => [l.split(' ')[0]!, Number(l.split(' ')[1])]),
  );
  const bars = await panel
    .locator('.histogram-bar')
    .evaluateAll((els) => els.map((b) => [b.getAttribute('data-start')!.slice(0, 19), Number(b.getAttribute('data-total'))] as const));
  const got = Object.fromEntries(bars.filter(([, n]) => n > 0));
  expect(Object.keys(want).length).toBeGreaterThan(30);
  expect(got).toEqual(want);
  // Level totals: grep -c over the files.
  for (const [level, word] of [
    ['error', 'ERROR'],
    ['warn', 'WARN'],
    ['info', 'INFO'],
    ['debug', 'DEBUG'],
  ] as const) {
    const n = execFileSync('bash', ['-c', `cat "$@" | grep -c ' ${word} '`, 'count', ...logs], C).trim();
    await expect(panel.getByTestId(`merged-histogram-total-${level}`)).toHaveText(`${level} ${Number(n).toLocaleString('en-US')}`);
  }

  // A click on a bar in the middle: the merged view starts at sort -m's first line of that second.
  const second = Object.keys(want).sort()[20]!;
  const sorted = execFileSync('sort', ['-m', '-s', '-k1,1', ...logs], C)
    .trim()
    .split('\n');
  const first = sorted.find((l) => l.slice(0, 19) >= second)!;
  await panel.locator(`.histogram-bar[data-start="${second}.000Z"]`).click();
  await expect.poll(async () => page.getByTestId('merged-line').first().locator('.merged-text').textContent()).toBe(first);
  await expect(page.getByTestId('merged-status')).toContainText(`from ${second}.000Z`);
  expect(seen.problems).toEqual([]);
});
