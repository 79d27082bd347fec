/**
 * `folio open FILE`: with a `folio serve` running in the workspace it prints that
 * server's URL opened on FILE (and the page shows FILE); with none running (or a
 * stale serve.json) it serves FILE itself, like `folio serve FILE`. Given a
 * `folio://open?path=FILE&lines=A-B` link, it does the same at those lines; a bad
 * link is a usage error that names its problem.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from './app-test.ts';
import { makeFixtureDir, writeTextFixture, type TextFixture } from './fixtures.ts';
import { BIN, startFolioServe, startServingFolio, type FolioServe } from './folio-serve.ts';
import { offHostOf, shownLinesOf, watchPage } from './page-helpers.ts';
import { sedLines } from './sed.ts';

const count = (n: number) => new Intl.NumberFormat('en-US').format(n);

let fixtures: ReturnType<typeof makeFixtureDir>;
let env: Record<string, string>;

test.beforeAll(() => {
  fixtures = makeFixtureDir();
  env = { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') };
});

test.afterAll(() => fixtures?.remove());

/** A workspace with two files: the one `folio serve` starts on, and the one to open. */
function workspaceOf(name: string): { dir: string; served: TextFixture; notes: TextFixture } {
  const dir = join(fixtures.dir, name);
  mkdirSync(dir);
  return {
    dir,
    served: writeTextFixture(dir, 'served.txt', { lines: 10, newline: '\n', finalNewline: true }),
    notes: writeTextFixture(dir, 'notes.txt', { lines: 1_234, newline: '\n', finalNewline: true }),
  };
}

/** Runs `folio ARGS` to its end in `cwd`; its exit code and output. */
async function runFolio(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

test('folio open FILE prints the running server’s URL with the file, and that URL shows the file', async ({ page }) => {
  const ws = workspaceOf('running');
  let server: FolioServe | undefined;
  try {
    server = await startFolioServe([ws.served.path], { cwd: ws.dir, env });
    const run = await runFolio(['open', 'notes.txt'], ws.dir);
    expect(run.code, run.stderr).toBe(0);
    const [printed, ...rest] = run.stdout.trim().split('\n');
    expect(rest).toEqual([]);
    const url = new URL(printed ?? '');
    expect(url.origin).toBe(server.origin);
    expect(url.searchParams.get('token')).toBe(server.token);
    expect(url.searchParams.get('file')).toBe(ws.notes.path);

    const seen = watchPage(page);
    await page.goto(url.href);
    await expect(page.getByTestId('file-path')).toHaveText(ws.notes.path);
    await expect(page.getByTestId('file-lines')).toHaveText(count(ws.notes.lines));
    expect(seen.problems).toEqual([]);
    expect(offHostOf(seen.urls)).toEqual([]);
  } finally {
    await server?.stop();
  }
});

test('folio open FILE switches an app page already open on the running server to FILE', async ({ page }) => {
  const ws = workspaceOf('switch');
  let server: FolioServe | undefined;
  try {
    server = await startFolioServe([ws.served.path], { cwd: ws.dir, env });
    const seen = watchPage(page);
    await page.goto(server.url.href);
    await expect(page.getByTestId('file-path')).toHaveText(ws.served.path);
    await expect(page.getByTestId('channel')).toHaveText('live');

    const run = await runFolio(['open', 'notes.txt'], ws.dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('shown in 1 open Folio window');
    // The same page, not a new one: it switched to the file it was sent.
    await expect(page.getByTestId('file-path')).toHaveText(ws.notes.path);
    await expect(page.getByTestId('file-lines')).toHaveText(count(ws.notes.lines));
    expect(seen.problems).toEqual([]);

    // With the page closed, nothing is shown and the URL is what to open.
    await page.close();
    await expect.poll(async () => (await runFolio(['open', 'served.txt'], ws.dir)).stderr).not.toContain('shown in');
  } finally {
    await server?.stop();
  }
});

test('folio open FILE with no live server (a stale serve.json) serves the file itself', async ({ page }) => {
  const ws = workspaceOf('stale');
  // A server that died without cleaning up: its pid is gone.
  const dead = spawn(process.execPath, ['-e', '0']);
  await once(dead, 'exit');
  mkdirSync(join(ws.dir, '.folio'));
  writeFileSync(join(ws.dir, '.folio', 'serve.json'), JSON.stringify({ url: 'http://127.0.0.1:9/?token=old', mcp: '', token: 'old', pid: dead.pid }));

  const opened = await startServingFolio(['open', 'notes.txt'], { cwd: ws.dir, env });
  try {
    expect(opened.url.hostname).toBe('127.0.0.1');
    expect(opened.token).not.toBe('old');
    expect(opened.url.searchParams.get('file')).toBe(ws.notes.path);
    await page.goto(opened.url.href);
    await expect(page.getByTestId('file-path')).toHaveText(ws.notes.path);
    await expect(page.getByTestId('file-lines')).toHaveText(count(ws.notes.lines));
    // It serves like `folio serve`: a second `folio open` finds it.
    const again = await runFolio(['open', 'served.txt'], ws.dir);
    expect(again.code, again.stderr).toBe(0);
    const url = new URL(again.stdout.trim());
    expect(url.origin).toBe(opened.origin);
    expect(url.searchParams.get('file')).toBe(ws.served.path);
  } finally {
    await opened.stop();
  }
  expect(existsSync(join(ws.dir, '.folio', 'serve.json'))).toBe(false);
});

/** Lines `from`..`to` of `file` are all painted, each as sed prints it. */
async function expectLinesShown(page: Page, file: string, from: number, to: number) {
  const want = sedLines(file, from, to).map((text, i) => ({ lineNo: from + i, text }));
  await expect
    .poll(
      async () => {
        const shown = await shownLinesOf(page);
        return want.every((w) => shown.some((r) => r.lineNo === w.lineNo && r.text === w.text));
      },
      { message: `lines ${from}-${to} of ${file} shown as sed prints them` },
    )
    .toBe(true);
}

const folioLinkOf = (path: string, lines: string) => `folio://open?path=${encodeURIComponent(path)}&lines=${lines}`;

test('folio open folio://open?path=FILE&lines=A-B prints a URL at those lines, and an open page switches to them', async ({ page }) => {
  const ws = workspaceOf('link');
  let server: FolioServe | undefined;
  try {
    server = await startFolioServe([ws.served.path], { cwd: ws.dir, env });
    // No page open: the printed URL names the file and the lines, and opens on them.
    const run = await runFolio(['open', folioLinkOf(ws.notes.path, '1000-1004')], ws.dir);
    expect(run.code, run.stderr).toBe(0);
    const url = new URL(run.stdout.trim());
    expect(url.origin).toBe(server.origin);
    expect(url.searchParams.get('file')).toBe(ws.notes.path);
    expect(url.searchParams.get('lines')).toBe('1000-1004');
    const seen = watchPage(page);
    await page.goto(url.href);
    await expect(page.getByTestId('file-path')).toHaveText(ws.notes.path);
    await expectLinesShown(page, ws.notes.path, 1000, 1004);

    // With the page open: it switches to the link's file and lines.
    await expect(page.getByTestId('channel')).toHaveText('live');
    const again = await runFolio(['open', folioLinkOf(ws.served.path, '3-6')], ws.dir);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('shown in 1 open Folio window');
    await expect(page.getByTestId('file-path')).toHaveText(ws.served.path);
    await expectLinesShown(page, ws.served.path, 3, 6);
    expect(seen.problems).toEqual([]);
  } finally {
    await server?.stop();
  }
});

test('folio open with a bad folio:// link exits 2 naming its problem, and prints no URL', async () => {
  const ws = workspaceOf('badlink');
  for (const [link, says] of [
    ['folio://open?path=notes.txt&lines=1-2', /path notes\.txt is not absolute/],
    [`folio://open?path=${encodeURIComponent(ws.notes.path)}&lines=x-2`, /lines=x-2 is not lines/],
    ['folio://close?path=%2Fx', /folio:\/\/ links open files/],
    ['folio://open', /names no file/],
  ] as const) {
    const run = await runFolio(['open', link], ws.dir);
    expect(run.code, link).toBe(2);
    expect(run.stdout, link).toBe('');
    expect(run.stderr, link).toMatch(says);
  }
});

test('folio open folio://… with no server running serves the file at the link’s lines', async ({ page }) => {
  const ws = workspaceOf('link-serve');
  const opened = await startServingFolio(['open', folioLinkOf(ws.notes.path, '600-603')], { cwd: ws.dir, env });
  try {
    expect(opened.url.searchParams.get('file')).toBe(ws.notes.path);
    expect(opened.url.searchParams.get('lines')).toBe('600-603');
    await page.goto(opened.url.href);
    await expect(page.getByTestId('file-path')).toHaveText(ws.notes.path);
    await expectLinesShown(page, ws.notes.path, 600, 603);
  } finally {
    await opened.stop();
  }
});
