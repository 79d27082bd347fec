/**
 * The merged view at scale (issue 31), as an SRE in Chromium against `folio serve`:
 * a folder of three generated logs (64 MiB each per commit, 1 GiB each in the deep
 * run, FOLIO_DEEP=1) merged through the Merge… dialog. The merge is lazy, so the
 * first window, a time near the end and a filtered window each come without the
 * files being read whole; each is checked against `LC_ALL=C sort -m -s -k1,1` of
 * the files (a real child process, cut by head, awk or grep), and a few rows
 * against sed at the line they name.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DEEP } from '../test/fixtures/effort.ts';
import { expect, test, type Page } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { mergedRowsOf } from './merged-helpers.ts';
import { watchPage } from './page-helpers.ts';
import { sedLine } from './sed.ts';

/** Bytes of each of the three logs: 64 MiB per commit, 1 GiB in the deep run. */
const BYTES_EACH = Number(process.env.FOLIO_E2E_MERGE_LOG_BYTES ?? (DEEP ? 1024 ** 3 : 64 * 1024 ** 2));
const START_MS = Date.UTC(2024, 4, 1, 0, 0, 0);
const LEVELS = ['INFO', 'INFO', 'DEBUG', 'WARN', 'INFO', 'ERROR', 'INFO'];
/** Rows compared per window (more than a screen holds). */
const ROWS = 60;

let fixtures: ReturnType<typeof makeFixtureDir>;
let server: FolioServe;
let folder: string;
let logs: { path: string; lastMs: number }[];

/**
 * A log of about `bytes` bytes: `2024-05-01T00:00:00.000Z LEVEL [name] request N took M ms`,
 * the clock moving `step` ms a line (the three files' steps differ, so their lines
 * interleave and share stamps), written in chunks. Returns its last line's time.
 */
function writeLog(path: string, name: string, step: number, bytes: number): number {
  const fd = openSync(path, 'w');
  let size = 0;
  let ms = START_MS;
  let n = 0;
  let second = -1;
  let prefix = '';
  try {
    while (size < bytes) {
      let chunk = '';
      for (let i = 0; i < 50_000; i++) {
        n++;
        ms += step;
        const s = Math.floor(ms / 1000);
        if (s !== second) {
          second = s;
          prefix = new Date(s * 1000).toISOString().slice(0, 20); // 2024-05-01T00:00:00.
        }
        const frac = String(ms % 1000).padStart(3, '0');
        chunk += `${prefix}${frac}Z ${LEVELS[n % LEVELS.length]} [${name}] request ${n} took ${(n * 7919) % 1000} ms\n`;
      }
      const buf = Buffer.from(chunk);
      writeSync(fd, buf);
      size += buf.length;
    }
  } finally {
    closeSync(fd);
  }
  return ms;
}

/** `sort -m -s -k1,1` of the logs (C locale), piped into `tail` (a shell pipeline: sort stops when its reader does). */
function sortedThrough(tail: string): string[] {
  const files = logs.map((l) => `'${l.path}'`).join(' ');
  const out = execFileSync('sh', ['-c', `sort -m -s -k1,1 ${files} | ${tail}`], {
    env: { ...process.env, LC_ALL: 'C' },
    encoding: 'utf8',
    maxBuffer: 16 << 20,
  });
  return out.replace(/\n$/, '').split('\n');
}

test.beforeAll(async () => {
  test.setTimeout(DEEP ? 900_000 : 180_000);
  fixtures = makeFixtureDir();
  folder = join(fixtures.dir, 'logs');
  mkdirSync(folder);
  logs = [
    ['alpha', 7],
    ['beta', 11],
    ['gamma', 13],
  ].map(([name, step]) => {
    const path = join(folder, `${name}.log`);
    return { path, lastMs: writeLog(path, name as string, step as number, BYTES_EACH) };
  });
  server = await startFolioServe([logs[0]!.path], {
    cwd: fixtures.dir,
    env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache'), FOLIO_CONFIG_DIR: join(fixtures.dir, 'config') },
  });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

/** The shown rows are `expected` from the top, each tagged with the file in its brackets, a few checked against sed. */
async function expectRows(page: Page, expected: string[]): Promise<void> {
  await expect.poll(async () => (await mergedRowsOf(page))[0]?.text, { timeout: 120_000 }).toBe(expected[0]);
  const rows = await mergedRowsOf(page);
  expect(rows.length).toBeGreaterThan(20);
  expect(rows.map((r) => r.text)).toEqual(expected.slice(0, rows.length));
  for (const row of rows) expect(row.tag, row.text).toBe(`${/\[(\w+)\]/.exec(row.text)?.[1]}.log`);
  // Where a row says it comes from holds its text (sed reads up to that line: two rows).
  for (const row of [rows[0]!, rows[rows.length - 1]!]) {
    expect(basename(row.path)).toBe(row.tag);
    expect(sedLine(row.path, row.line)).toBe(row.text);
  }
}

test('a folder of big logs merges lazily: first window, a time near the end and a filter, as sort -m shows them', async ({ page }) => {
  test.setTimeout(DEEP ? 900_000 : 240_000);
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(server.url.href);
  await expect(page.getByRole('tablist', { name: 'Open files' }).getByRole('tab')).toHaveText(['alpha.log']);

  // The folder, through the Merge… dialog.
  await page.getByRole('button', { name: 'Merge tabs' }).click();
  await page.getByLabel('Folder or glob to merge').fill(folder);
  const head = sortedThrough(`head -n ${ROWS}`);
  const asked = Date.now();
  await page.getByLabel('Folder or glob to merge').press('Enter');
  await expect(page.getByRole('tab', { selected: true })).toHaveText('Merged (3 logs)');
  await expectRows(page, head);
  console.log(`[measure] merged view of 3 × ${(BYTES_EACH / 1024 ** 2).toFixed(0)} MiB: first window shown ${Date.now() - asked} ms after Enter`);

  // A time near the end of the shortest log: sort's first line stamped at or after it (awk).
  const endMs = Math.min(...logs.map((l) => l.lastMs));
  const time = new Date(START_MS + Math.floor((endMs - START_MS) * 0.9)).toISOString();
  const atTime = sortedThrough(`awk -v t='${time}' '$1 >= t { print; if (++n == ${ROWS}) exit }'`);
  expect(atTime).toHaveLength(ROWS);
  const box = page.getByLabel('Go to time in merged view');
  await box.fill(time);
  const wentAt = Date.now();
  await box.press('Enter');
  await expectRows(page, atTime);
  console.log(`[measure] go to ${time} (90% of the time span): shown ${Date.now() - wentAt} ms after Enter`);

  // Back to the start, then a filter: grep's first lines of sort's merge.
  await box.fill(head[0]!.slice(0, 24));
  await box.press('Enter');
  await expectRows(page, head);
  const lines = page.getByRole('listbox', { name: 'Merged lines' });
  await lines.press('Control+Shift+F');
  const filter = page.getByRole('search', { name: 'Merged view filter' });
  await filter.getByLabel('Filter 1', { exact: true }).fill('took 99 ms');
  const grepped = sortedThrough(`grep -F -m ${ROWS} 'took 99 ms'`);
  expect(grepped).toHaveLength(ROWS);
  const filtered = Date.now();
  await filter.getByLabel('Filter 1', { exact: true }).press('Enter');
  await expectRows(page, grepped);
  console.log(`[measure] filter "took 99 ms": first window shown ${Date.now() - filtered} ms after Enter`);
  expect(seen.problems).toEqual([]);
});
