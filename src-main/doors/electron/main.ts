/**
 * The Electron door: one window showing the renderer, the api over one IPC channel
 * (ipc.ts), and the file named on the command line. One instance: a second
 * `npm start -- FILE` hands FILE to the first and quits. Files also come from the
 * File menu (Open… dialog, Open Recent; menu.ts), the OS (macOS open-file), a
 * clicked `folio://open?path=…&lines=A-B` link (api/folio-link.ts), and
 * drops on the window (the renderer, with the preload's pathForFile); all but the
 * drop reach the renderer as an `open_file` event. Hardened per Electron's
 * security checklist: contextIsolation, sandbox, no nodeIntegration, a strict CSP,
 * the renderer on a custom scheme instead of file://, no navigation away, no new
 * windows, no permissions.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, protocol, session } from 'electron';
import { openFileEvent } from '../../api/events.ts';
import { indexInBackground } from '../../api/background-indexing.ts';
import { handle, type OpOutput } from '../../api/handle.ts';
import { HTML_SECURITY_HEADERS } from '../http/renderer-csp.ts';
import { contentTypeOf, rendererFileOf } from '../http/static-files.ts';
import { APP_ORIGIN, APP_SCHEME } from './channels.ts';
import { folioLinkInArgv, folioLinkOf, LINK_SCHEME, type LineRange, type LinkReading } from '../../api/folio-link.ts';
import { ELECTRON_ACTOR, forwardEvents, registerIpc, sendEvent } from './ipc.ts';
import { addOsRecentDocument, setAppMenu, type MenuActions } from './menu.ts';

// Bundled layout (electron.vite.config.ts): out/main/index.js, out/preload/index.cjs, out/renderer/.
const OUT_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PRELOAD_PATH = join(OUT_DIR, 'preload', 'index.cjs');
const RENDERER_DIR = join(OUT_DIR, 'renderer');
/** Set by `electron-vite dev`: the renderer comes from the Vite dev server. */
const DEV_RENDERER_URL = process.env.ELECTRON_RENDERER_URL;

let mainWindow: BrowserWindow | null = null;
/** A file the OS asked to open before the app was ready (macOS open-file at launch). */
let pendingFile: string | null = null;
let pendingLines: LineRange | null = null;

/** The file argument: the first non-flag argument after the app itself. */
export function fileArgOf(argv: readonly string[], cwd: string, isPackaged: boolean): string | null {
  const positional = argv.slice(1).filter((arg) => !arg.startsWith('-'));
  const file = isPackaged ? positional[0] : positional[1];
  return file ? resolve(cwd, file) : null;
}

function pageUrlOf(file: string | null, lines: LineRange | null = null): string {
  const url = new URL(DEV_RENDERER_URL ?? `${APP_ORIGIN}/index.html`);
  if (file) url.searchParams.set('file', file);
  if (file && lines) url.searchParams.set('lines', `${lines.startLine}-${lines.endLine}`);
  return url.href;
}

function isTrustedUrl(url: string): boolean {
  if (url.startsWith(`${APP_ORIGIN}/`)) return true;
  return Boolean(DEV_RENDERER_URL) && new URL(url).origin === new URL(DEV_RENDERER_URL ?? '').origin;
}

/**
 * Show `file` in the window: as an open_file event once the page is up (the
 * review panel and the rest of the page stay), else by loading the page on it.
 */
function showFile(file: string, lines: LineRange | null = null): void {
  if (!mainWindow) {
    if (app.isReady()) createWindow(file, lines);
    else {
      pendingFile = file;
      pendingLines = lines;
    }
    return;
  }
  if (mainWindow.isMinimized()) mainWindow.restore();
  mainWindow.focus();
  const contents = mainWindow.webContents;
  if (contents.isLoading() || !contents.getURL()) void mainWindow.loadURL(pageUrlOf(file, lines));
  else sendEvent(contents, openFileEvent(file, lines ? { start: lines.startLine, end: lines.endLine } : undefined));
}

/** Show a link's file at its lines; a bad link is a message box naming its problem, and nothing opens. */
function showLink(link: LinkReading): void {
  if (link.ok) return showFile(link.path, link.lines);
  if (!app.isReady()) return void app.whenReady().then(() => showLink(link)); // dialogs wait for ready
  const options = { type: 'warning' as const, title: 'Folio link', message: 'This link opens nothing', detail: link.problem };
  void (mainWindow ? dialog.showMessageBox(mainWindow, options) : dialog.showMessageBox(options));
}

async function showOpenDialog(): Promise<void> {
  const options = { title: 'Open a file', properties: ['openFile' as const, 'showHiddenFiles' as const] };
  const chosen = mainWindow ? await dialog.showOpenDialog(mainWindow, options) : await dialog.showOpenDialog(options);
  const file = chosen.canceled ? undefined : chosen.filePaths[0];
  if (file) showFile(file);
}

const menuActions: MenuActions = { showOpenDialog: () => void showOpenDialog(), open: showFile };

/** The menu with the current recent list (an unreadable list is an empty menu, not a crash). */
async function refreshMenu(entries?: OpOutput<'recent_list'>['entries']): Promise<void> {
  const list =
    entries ??
    (await handle('recent_list', {}, ELECTRON_ACTOR).then(
      (o) => o.entries,
      () => [],
    ));
  setAppMenu(list, menuActions);
}

/** After each call of the renderer: a file it opened goes first in Open Recent, and into the OS's list. */
function afterCall(op: string, output: unknown): void {
  if (op !== 'recent_add') return;
  const { entries } = output as OpOutput<'recent_add'>;
  if (entries[0]) addOsRecentDocument(entries[0].path);
  void refreshMenu(entries);
}

function createWindow(file: string | null, lines: LineRange | null = null): void {
  mainWindow = new BrowserWindow({
    width: 1100,
    height: 760,
    title: 'Folio',
    show: false,
    webPreferences: {
      preload: PRELOAD_PATH,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  mainWindow.once('ready-to-show', () => mainWindow?.show());
  mainWindow.on('closed', () => {
    mainWindow = null;
  });
  const contents = mainWindow.webContents;
  contents.on('will-navigate', (event, url) => {
    if (!isTrustedUrl(url)) event.preventDefault();
  });
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  const stopEvents = forwardEvents(contents, process.cwd());
  mainWindow.on('closed', stopEvents);
  void mainWindow.loadURL(pageUrlOf(file, lines));
}

/** Serves out/renderer on folio-app://app/ with the CSP on every HTML page. */
function registerAppProtocol(): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    const file = url.host === 'app' ? rendererFileOf(RENDERER_DIR, url.pathname) : null;
    const body = file ? await readFile(file).catch(() => null) : null;
    if (!file || !body) return new Response('not found', { status: 404 });
    const headers: Record<string, string> = { 'Content-Type': contentTypeOf(file), 'X-Content-Type-Options': 'nosniff' };
    if (file.endsWith('.html')) Object.assign(headers, HTML_SECURITY_HEADERS);
    return new Response(new Uint8Array(body), { headers });
  });
}

protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  // A second `npm start -- FILE` quits at once (above) and its argv and cwd land here.
  app.on('second-instance', (_event, argv, workingDirectory) => {
    const link = folioLinkInArgv(argv);
    if (link) return showLink(link);
    const file = fileArgOf(argv, workingDirectory, app.isPackaged);
    if (file) showFile(file);
    else if (mainWindow) {
      if (mainWindow.isMinimized()) mainWindow.restore();
      mainWindow.focus();
    }
  });
  // macOS: a file dropped on the Dock icon, or picked from the OS's recent documents.
  app.on('open-file', (event, path) => {
    event.preventDefault();
    showFile(path);
  });
  // macOS: a folio:// link clicked anywhere.
  app.on('open-url', (event, url) => {
    const link = folioLinkOf(url);
    if (!link) return;
    event.preventDefault();
    showLink(link);
  });
  // Run as `electron path/to/app` (not packaged), the OS must start Electron with the app's path before the link.
  if (process.defaultApp && process.argv[1]) app.setAsDefaultProtocolClient(LINK_SCHEME, process.execPath, [resolve(process.argv[1])]);
  else app.setAsDefaultProtocolClient(LINK_SCHEME);
  app.on('window-all-closed', () => app.quit());
  indexInBackground(true); // the app paints while a big file indexes
  void app.whenReady().then(async () => {
    session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
    registerAppProtocol();
    registerIpc(isTrustedUrl, afterCall);
    await refreshMenu();
    const link = folioLinkInArgv(process.argv);
    if (link?.ok) createWindow(link.path, link.lines);
    else if (link) {
      createWindow(null);
      showLink(link);
    } else createWindow(pendingFile ?? fileArgOf(process.argv, process.cwd(), app.isPackaged), pendingLines);
  });
}
