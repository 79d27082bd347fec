/**
 * The Electron door: one window showing the renderer, the api over one IPC channel
 * (ipc.ts), and the file named on the command line. Hardened per Electron's
 * security checklist: contextIsolation, sandbox, no nodeIntegration, a strict CSP,
 * the renderer on a custom scheme instead of file://, no navigation away, no new
 * windows, no permissions.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, protocol, session } from 'electron';
import { HTML_SECURITY_HEADERS } from '../http/renderer-csp.ts';
import { contentTypeOf, rendererFileOf } from '../http/static-files.ts';
import { APP_ORIGIN, APP_SCHEME } from './channels.ts';
import { forwardEvents, registerIpc } from './ipc.ts';

// Bundled layout (electron.vite.config.ts): out/main/index.js, out/preload/index.cjs, out/renderer/.
const OUT_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PRELOAD_PATH = join(OUT_DIR, 'preload', 'index.cjs');
const RENDERER_DIR = join(OUT_DIR, 'renderer');
/** Set by `electron-vite dev`: the renderer comes from the Vite dev server. */
const DEV_RENDERER_URL = process.env.ELECTRON_RENDERER_URL;

let mainWindow: BrowserWindow | null = null;

/** The file argument: the first non-flag argument after the app itself. */
export function fileArgOf(argv: readonly string[], cwd: string, isPackaged: boolean): string | null {
  const positional = argv.slice(1).filter((arg) => !arg.startsWith('-'));
  const file = isPackaged ? positional[0] : positional[1];
  return file ? resolve(cwd, file) : null;
}

function pageUrlOf(file: string | null): string {
  const url = new URL(DEV_RENDERER_URL ?? `${APP_ORIGIN}/index.html`);
  if (file) url.searchParams.set('file', file);
  return url.href;
}

function isTrustedUrl(url: string): boolean {
  if (url.startsWith(`${APP_ORIGIN}/`)) return true;
  return Boolean(DEV_RENDERER_URL) && new URL(url).origin === new URL(DEV_RENDERER_URL ?? '').origin;
}

function showFile(file: string | null): void {
  if (!mainWindow) return;
  void mainWindow.loadURL(pageUrlOf(file));
}

function createWindow(file: string | null): void {
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
  showFile(file);
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

protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
]);

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', (_event, argv, workingDirectory) => {
    if (!mainWindow) return;
    const file = fileArgOf(argv, workingDirectory, app.isPackaged);
    if (file) showFile(file);
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });
  app.on('window-all-closed', () => app.quit());
  void app.whenReady().then(() => {
    session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
    registerAppProtocol();
    registerIpc(isTrustedUrl);
    createWindow(fileArgOf(process.argv, process.cwd(), app.isPackaged));
  });
}
