/**
 * The Electron app, where an Electron binary is installed. Without one each test
 * reports as skipped with the reason (never as passed).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { _electron as electron, expect, test, type ElectronApplication, type Page } from '@playwright/test';
import { findElectronBinary } from '../scripts/electron-binary.mjs';
import { makeFixtureDir, writeTextFixture } from './fixtures.ts';
import { REPO_ROOT } from './folio-serve.ts';

const binary = findElectronBinary(REPO_ROOT);
const MAIN = join(REPO_ROOT, 'out', 'main', 'index.js');
// Mirrors MENU_IDS in src-main/doors/electron/menu.ts (which imports electron, so it cannot be imported here).
const MENU_IDS = { open: 'file-open', openRecent: 'file-open-recent' } as const;

let fixtures: ReturnType<typeof makeFixtureDir>;
test.beforeEach(() => {
  if (binary.path === null) test.skip(true, `no Electron binary installed: ${binary.reason}`);
  fixtures = makeFixtureDir();
});
test.afterEach(() => fixtures?.remove());

/** Env of a launched app: its own config dir (recent files) and cache, no ELECTRON_RUN_AS_NODE. */
function appEnv(): Record<string, string> {
  const { ELECTRON_RUN_AS_NODE: _ignored, ...env } = process.env;
  return { ...(env as Record<string, string>), FOLIO_CONFIG_DIR: join(fixtures.dir, 'config'), FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') };
}

async function launch(args: string[]): Promise<{ app: ElectronApplication; window: Page }> {
  const app = await electron.launch({ executablePath: binary.path ?? '', args: ['--no-sandbox', MAIN, ...args], env: appEnv(), cwd: fixtures.dir });
  return { app, window: await app.firstWindow() };
}

const count = (n: number) => new Intl.NumberFormat('en-US').format(n);

test('the Electron window shows file_info of the file on the command line, sandboxed', async () => {
  const file = writeTextFixture(fixtures.dir, 'electron.txt', { lines: 4_321, newline: '\n', finalNewline: true });
  const { app, window } = await launch([file.path]);
  try {
    await expect(window.getByTestId('file-lines')).toHaveText(count(file.lines));
    const exposed = await window.evaluate(() => ({
      bridge: typeof (window as { folio?: unknown }).folio,
      require: typeof (globalThis as { require?: unknown }).require,
      process: typeof (globalThis as { process?: unknown }).process,
    }));
    expect(exposed).toEqual({ bridge: 'object', require: 'undefined', process: 'undefined' });
    await window.screenshot({ path: join(REPO_ROOT, 'e2e', 'artifacts', 'electron-window.png') });
  } finally {
    await app.close();
  }
});

test('the File menu has Open… (Ctrl/Cmd+O), Open Recent and Quit; Open… opens the file chosen in the dialog', async () => {
  const file = writeTextFixture(fixtures.dir, 'chosen.txt', { lines: 77, newline: '\n', finalNewline: true });
  const { app, window } = await launch([]);
  try {
    const fileMenu = await app.evaluate(({ Menu }) => {
      const file = Menu.getApplicationMenu()?.items.find((item) => item.label.replace('&', '') === 'File');
      return file?.submenu?.items.map((item) => ({ label: item.label, role: item.role ?? null, accelerator: item.accelerator ?? null })) ?? [];
    });
    expect(fileMenu.map((i) => i.label)).toEqual(expect.arrayContaining(['Open…', 'Open Recent']));
    expect(fileMenu.find((i) => i.label === 'Open…')?.accelerator).toBe('CmdOrCtrl+O');
    expect(fileMenu.some((i) => i.role === 'quit' || i.role === 'close')).toBe(true);
    // The native dialog cannot be driven from here: stand in for it, then click the real menu item.
    await app.evaluate(
      ({ dialog, Menu }, { path, id }) => {
        dialog.showOpenDialog = (async () => ({ canceled: false, filePaths: [path] })) as typeof dialog.showOpenDialog;
        Menu.getApplicationMenu()?.getMenuItemById(id)?.click();
      },
      { path: file.path, id: MENU_IDS.open },
    );
    await expect(window.getByTestId('file-path')).toHaveText(file.path);
    await expect(window.getByTestId('file-lines')).toHaveText('77');
  } finally {
    await app.close();
  }
});

test('opened files are listed in File → Open Recent, most recent first, and clicking one opens it', async () => {
  const a = writeTextFixture(fixtures.dir, 'a.txt', { lines: 10, newline: '\n', finalNewline: true });
  const b = writeTextFixture(fixtures.dir, 'b.txt', { lines: 20, newline: '\n', finalNewline: true });
  const { app, window } = await launch([a.path]);
  try {
    await expect(window.getByTestId('file-lines')).toHaveText('10');
    await window.getByTestId('path-input').fill(b.path);
    await window.getByTestId('path-input').press('Enter');
    await expect(window.getByTestId('file-lines')).toHaveText('20');
    const recentLabels = () =>
      app.evaluate(
        ({ Menu }, id) =>
          Menu.getApplicationMenu()
            ?.getMenuItemById(id)
            ?.submenu?.items.map((item) => item.label) ?? [],
        MENU_IDS.openRecent,
      );
    await expect.poll(recentLabels).toEqual([realpathSync(b.path), realpathSync(a.path)]);
    await app.evaluate(({ Menu }, id) => Menu.getApplicationMenu()?.getMenuItemById(id)?.submenu?.items[1]?.click(), MENU_IDS.openRecent);
    await expect(window.getByTestId('file-lines')).toHaveText('10');
    // The renderer's Recent menu shows the same list.
    await window.getByTestId('recent-toggle').click();
    await expect(window.getByTestId('recent-file').locator('.file')).toHaveText([realpathSync(a.path), realpathSync(b.path)]);
  } finally {
    await app.close();
  }
});

test('dropping a file opens it: a File with a path (the preload’s pathForFile) or a file:// URI', async () => {
  const dir = join(fixtures.dir, 'drops');
  mkdirSync(dir);
  const file = join(dir, 'dropped é.txt');
  writeFileSync(file, 'dropped line one\ndropped line two\n');
  const { app, window } = await launch([]);
  try {
    // A File made in the page has no path on disk: pathForFile says so with ''.
    expect(await window.evaluate(() => (window as { folio?: { pathForFile(f: File): string } }).folio?.pathForFile(new File(['x'], 'x.txt')))).toBe('');
    await window.evaluate((uri) => {
      const transfer = new DataTransfer();
      transfer.setData('text/uri-list', uri);
      const target = document.querySelector('[data-testid="viewer"]');
      target?.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      target?.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, pathToFileURL(file).href);
    await expect(window.getByTestId('file-path')).toHaveText(file);
    await expect(window.getByTestId('file-lines')).toHaveText('2');
  } finally {
    await app.close();
  }
});

test('single instance: a second launch with FILE hands it to the running window and exits', async () => {
  const first = writeTextFixture(fixtures.dir, 'first.txt', { lines: 5, newline: '\n', finalNewline: true });
  const second = writeTextFixture(fixtures.dir, 'second.txt', { lines: 6, newline: '\n', finalNewline: true });
  const { app, window } = await launch([first.path]);
  try {
    await expect(window.getByTestId('file-lines')).toHaveText('5');
    const again = spawn(binary.path ?? '', ['--no-sandbox', MAIN, 'second.txt'], { cwd: fixtures.dir, env: appEnv(), stdio: 'ignore' });
    const [code] = (await once(again, 'exit')) as [number | null];
    expect(code).toBe(0);
    await expect(window.getByTestId('file-path')).toHaveText(second.path);
    await expect(window.getByTestId('file-lines')).toHaveText('6');
    expect(app.windows()).toHaveLength(1);
  } finally {
    await app.close();
  }
});
