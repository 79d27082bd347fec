#!/usr/bin/env node
/**
 * `npm start [-- FILE ...]`: the desktop app when an Electron binary is installed,
 * else browser mode (`folio serve`, which prints the URL to open). Builds out/
 * first when it is missing or older than its sources.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findElectronBinary } from './electron-binary.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

/** @param {string} path @returns {number} newest mtime of a file under path (0 if none) */
function newestMtimeMs(path) {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtimeMs(join(path, entry)));
  return newest;
}

/** @param {string} output @param {string[]} sources @returns {boolean} */
function isStale(output, sources) {
  const outputPath = join(root, output);
  if (!existsSync(outputPath)) return true;
  const built = statSync(outputPath).mtimeMs;
  return sources.some((source) => newestMtimeMs(join(root, source)) > built);
}

/** @param {boolean} electron whether out/main and out/preload are needed too */
function buildIfStale(electron) {
  const rendererSources = ['src-renderer', 'electron.vite.config.ts'];
  const stale =
    isStale('out/renderer/index.html', rendererSources) ||
    (electron && (isStale('out/main/index.js', ['src-main', 'electron.vite.config.ts']) || isStale('out/preload/index.cjs', ['src-main/doors/electron'])));
  if (!stale) return;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: ['ignore', process.stderr, 'inherit'] });
  if (result.status !== 0) {
    console.error('folio: `npm run build` failed; see above');
    process.exit(result.status ?? 1);
  }
}

/** @param {string} command @param {string[]} commandArgs @param {NodeJS.ProcessEnv} [env] */
function run(command, commandArgs, env = process.env) {
  const child = spawn(command, commandArgs, { cwd: process.cwd(), stdio: 'inherit', env });
  for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

const electron = findElectronBinary(root);
if (electron.path === null) {
  console.error(`folio: no Electron binary is present (${electron.reason}); opening the browser mode (folio serve) instead.`);
  buildIfStale(false);
  const open = args.includes('--open') ? [] : ['--open'];
  run(process.execPath, [join(root, 'bin', 'folio.mjs'), 'serve', ...open, ...args]);
} else {
  buildIfStale(true);
  // ELECTRON_RUN_AS_NODE from a parent shell would make the binary a plain Node.
  const { ELECTRON_RUN_AS_NODE: _ignored, ...env } = process.env;
  run(electron.path, [join(root, 'out', 'main', 'index.js'), ...args], env);
}
