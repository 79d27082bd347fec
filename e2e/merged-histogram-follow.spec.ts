/**
 * The merged view's histogram while the view follows its files (issue 31), as an
 * SRE in Chromium against `folio serve`: two logs merged, the histogram open, f
 * pressed; lines appended to both files come into the bars (only the bytes past
 * what was counted are counted: the bars stay on screen), per second equal to awk
 * over the grown files and level totals equal to grep -c; lines stamped half an
 * hour later outgrow the bars, which are counted again at a wider width.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { expect, test, type Locator } from './app-test.ts';
import { mergeOpenTabs, servedSteppedLogs } from './merged-helpers.ts';
import { watchPage } from './page-helpers.ts';

const served = servedSteppedLogs([
  { name: 'alpha', lines: 600, stepMs: 10 },
  { name: 'beta', lines: 400, stepMs: 13 },
]);

const C = { env: { ...process.env, LC_ALL: 'C' }, encoding: 'utf8' as const };

/** awk's lines per bucket of `bucketMs` (whole seconds) over the files, by the bucket's start as the bars name it. */
function awkPerBucket(bucketMs: number): Record<string, number> {
  const program = `{ t = substr($1, 12, 8); split(t, p, ":"); s = p[1] * 3600 + p[2] * 60 + p[3]; b = int(s / ${bucketMs / 1000}) * ${bucketMs / 1000};
    n[sprintf("%s%02d:%02d:%02d", substr($1, 1, 11), int(b / 3600), int(b % 3600 / 60), b % 60)]++ } END { for (k in n) print k, n[k] }`;
  return Object.fromEntries(
    execFileSync('awk', [program, ...served().logs], C)
      .trim()
      .split('\n')
      .map((l) => [l.split(' ')[0]!, Number(l.split(' ')[1])]),
  );
}

function barsOf(panel: Locator): Promise<Record<string, number>> {
  return panel
    .locator('.histogram-bar')
    .evaluateAll((els) =>
      Object.fromEntries(els.map((b) => [b.getAttribute('data-start')!.slice(0, 19), Number(b.getAttribute('data-total'))] as const).filter(([, n]) => n > 0)),
    );
}

const grepCount = (word: string) => Number(execFileSync('bash', ['-c', `cat "$@" | grep -c ' ${word} ' || true`, 'count', ...served().logs], C).trim());

/** `n` lines from `startIso` on, `stepMs` apart, at `level`. */
function linesFrom(startIso: string, n: number, stepMs: number, level: string, name: string): string {
  const start = Date.parse(startIso);
  return Array.from({ length: n }, (_, i) => `${new Date(start + i * stepMs).toISOString()} ${level} [${name}] appended ${i + 1}\n`).join('');
}

test('following, the merged histogram counts the lines written since, as awk and grep -c count the grown files', async ({ page }) => {
  test.setTimeout(120_000);
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1400, height: 800 });
  await page.goto(served().server.url.href);
  const lines = await mergeOpenTabs(page, [served().logs[1]!]);
  await lines.press('Control+Shift+H');
  const panel = page.getByRole('region', { name: 'Merged histogram' });
  const summary = panel.getByTestId('merged-histogram-summary');
  await expect(summary).toContainText('1,000 lines');
  await expect(panel).toHaveAttribute('data-bucket-ms', '1000');
  await lines.press('f');
  await expect(page.getByRole('button', { name: 'Follow merged view' })).toHaveAttribute('aria-pressed', 'true');

  // Lines come to both files, 20 to 25 s later: the same width, the new seconds' bars added.
  appendFileSync(served().logs[0]!, linesFrom('2024-05-01T10:00:20.000Z', 200, 25, 'ERROR', 'alpha'));
  appendFileSync(served().logs[1]!, linesFrom('2024-05-01T10:00:21.500Z', 100, 30, 'WARN', 'beta'));
  await expect(summary).toContainText('1,300 lines', { timeout: 30_000 });
  await expect(panel).toHaveAttribute('data-bucket-ms', '1000');
  expect(await barsOf(panel)).toEqual(awkPerBucket(1000));
  for (const [level, word] of [
    ['error', 'ERROR'],
    ['warn', 'WARN'],
    ['info', 'INFO'],
  ] as const) {
    await expect(panel.getByTestId(`merged-histogram-total-${level}`)).toHaveText(`${level} ${grepCount(word).toLocaleString('en-US')}`);
  }

  // Half an hour later: 1,800 one-second bars would be too many; all is counted again at 30 s.
  appendFileSync(served().logs[1]!, linesFrom('2024-05-01T10:30:00.000Z', 50, 1000, 'ERROR', 'beta'));
  await expect(panel).toHaveAttribute('data-bucket-ms', '30000', { timeout: 30_000 });
  await expect(summary).toContainText('1,350 lines');
  expect(await barsOf(panel)).toEqual(awkPerBucket(30_000));
  await expect(panel.getByTestId('merged-histogram-total-error')).toHaveText(`error ${grepCount('ERROR').toLocaleString('en-US')}`);
  expect(seen.problems).toEqual([]);
});
