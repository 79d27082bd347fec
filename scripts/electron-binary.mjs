/**
 * Where the Electron executable is, found without `require('electron')` (which
 * downloads the binary when it is missing). Mirrors node_modules/electron/index.js:
 * ELECTRON_OVERRIDE_DIST_PATH wins, else node_modules/electron/dist/<path.txt>.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const DEFAULT_EXECUTABLE = {
  darwin: 'Electron.app/Contents/MacOS/Electron',
  win32: 'electron.exe',
};

/**
 * @param {string} root the repository root (holds node_modules/electron)
 * @returns {{ path: string } | { path: null, reason: string }}
 */
export function findElectronBinary(root) {
  const moduleDir = join(root, 'node_modules', 'electron');
  const pathFile = join(moduleDir, 'path.txt');
  const recorded = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : '';
  const executable = recorded || /** @type {Record<string, string>} */ (DEFAULT_EXECUTABLE)[process.platform] || 'electron';
  const overrideDir = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  if (overrideDir) {
    const path = join(overrideDir, executable);
    return existsSync(path) ? { path } : { path: null, reason: `ELECTRON_OVERRIDE_DIST_PATH is set but ${path} does not exist` };
  }
  if (!recorded) {
    return { path: null, reason: `no ${pathFile}: the electron package was installed without its binary` };
  }
  const path = join(moduleDir, 'dist', recorded);
  return existsSync(path) ? { path } : { path: null, reason: `${path} does not exist` };
}
