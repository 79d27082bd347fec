/**
 * Syntax colouring by language: a TypeScript file is coloured by Monaco's
 * TypeScript grammar (not the log grammar), in the file view, in the panel's diff
 * and in the inline diff's removed lines; a .log file, and a log whose name says
 * nothing, by the log grammar. Colours are read back from the page's token spans.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Locator, type Page } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { connectAgent } from './mcp-agent.ts';
import { watchPage } from './page-helpers.ts';
import { startReviewSession } from './review-session.ts';

// Monaco's light theme (vs), which folio-light inherits, and monaco/log-language.ts.
const KEYWORD = 'rgb(0, 0, 255)';
const COMMENT = 'rgb(0, 113, 0)';
const LOG_ERROR = 'rgb(198, 40, 40)';

const TS = ['export const timeout = 504; // ERROR budget, in ms', 'export function retry(times: number): number {', '  return times * 2;', '}', ''].join('\n');
const LOG = ['2024-05-01T12:00:00Z INFO started', '2024-05-01T12:00:01Z ERROR failed to bind', '2024-05-01T12:00:02Z WARN retrying', ''].join('\n');

let fixtures: { dir: string; remove(): void };
let workspace: string;
let server: FolioServe;

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'retry.ts'), TS);
  writeFileSync(join(workspace, 'server.log'), LOG);
  writeFileSync(join(workspace, 'console-output'), LOG);
  server = await startFolioServe([join(workspace, 'retry.ts')], { cwd: workspace, env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') } });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

/** The colour of the first token span under `scope` whose text contains `text` (polled: grammars load lazily). */
const colourOf = (scope: Locator, text: string) =>
  expect.poll(() =>
    scope.evaluate((root, t) => {
      const span = [...root.querySelectorAll('span span, .folio-inline-removed-row span')].find(
        (s) => s.children.length === 0 && s.textContent?.replace(/\u00a0/g, ' ').includes(t),
      );
      return span ? getComputedStyle(span).color : null;
    }, text),
  );

async function open(page: Page, name: string) {
  await page.getByTestId('path-input').fill(join(workspace, name));
  await page.getByTestId('path-input').press('Enter');
  await expect(page.locator('[data-testid="file-view"] .monaco-host')).toHaveAttribute('data-language', name.endsWith('.ts') ? 'typescript' : 'folio-log');
}

test('a .ts file gets TypeScript tokens; a .log file and a nameless log get log tokens', async ({ page }) => {
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(server.url.href);
  const lines = page.locator('[data-testid="file-view"] .view-lines');
  await expect(page.locator('[data-testid="file-view"] .monaco-host')).toHaveAttribute('data-language', 'typescript');
  await colourOf(lines, 'export').toBe(KEYWORD);
  await colourOf(lines, 'function').toBe(KEYWORD);
  // The log grammar would paint ERROR red and bold; in TypeScript it is part of a comment.
  await colourOf(lines, 'ERROR budget').toBe(COMMENT);

  await open(page, 'server.log');
  await colourOf(lines, 'ERROR').toBe(LOG_ERROR);
  await open(page, 'console-output');
  await colourOf(lines, 'ERROR').toBe(LOG_ERROR);
  expect(seen.problems).toEqual([]);
});

test("a proposal's diff is coloured as its file: in the panel and the inline diff's removed lines", async ({ page }) => {
  const agent = await connectAgent(workspace, { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') });
  try {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(server.url.href);
    const read = await agent.call('read', { path: 'retry.ts' });
    const answer = await agent.call('upsert', {
      path: 'retry.ts',
      target: { replace: { start: 2, end: 3 } },
      content: 'export function retry(times: number, factor = 2): number {\n  return times * factor;\n',
      if_match: read.version.etag,
    });
    await page.locator(`[data-testid="queue-item"][data-proposal-id="${answer.proposal_id}"]`).click();
    const diff = page.getByTestId('diff-preview');
    await expect(diff.locator('.view-line').first()).toBeVisible();
    await colourOf(diff, 'function').toBe(KEYWORD);
    const removed = page.locator('[data-testid="file-view"] [data-testid="inline-removed"]');
    await expect(removed).toContainText('return times * 2;');
    await colourOf(removed, 'return').toBe(KEYWORD);
  } finally {
    await agent.close();
  }
});

test('the 3-way view colours its three columns and its editor as the file', async ({ page }) => {
  const session = await startReviewSession(page, { width: 1280, height: 800 });
  try {
    await page.locator(`[data-testid="queue-item"][data-proposal-id="${session.conflictId}"]`).click();
    await page.getByTestId('open-three-way').click();
    // Each column holds the hunk's lines (the middle one the file's lines around them too): `const` is in all three.
    for (const column of ['three-way-saw', 'three-way-now', 'three-way-proposed']) await colourOf(page.getByTestId(column), 'const').toBe(KEYWORD);
    await colourOf(page.getByTestId('three-way-now'), 'export').toBe(KEYWORD);
    await colourOf(page.getByTestId('three-way-proposed'), '// AGENT').toBe(COMMENT);
    await colourOf(page.getByTestId('proposal-editor'), 'const').toBe(KEYWORD);
    // Coloured, the text is still the file's, spaces and all.
    await expect(page.getByTestId('three-way-now')).toContainText('export async function fetchOrders9(page = 9)');
    // (An empty line is one no-break space by design; a line with text keeps its own spaces.)
    const nbspInText = await page
      .getByTestId('three-way-now')
      .evaluate((pre) => [...pre.querySelectorAll('.text')].some((t) => t.textContent !== '\u00a0' && t.textContent?.includes('\u00a0')));
    expect(nbspInText).toBe(false);
  } finally {
    await session.close();
  }
});
