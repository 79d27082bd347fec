#!/usr/bin/env node
// Folio CLI entry. Runs dist/cli.mjs (built by `npm run build:cli`, part of npm
// install) when it is newer than every source file; otherwise the TypeScript
// sources through tsx, so a checkout being edited never runs stale code.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function bundleIsFresh() {
  let built;
  try {
    built = statSync(join(root, 'dist/cli.mjs')).mtimeMs;
  } catch {
    return false;
  }
  return sourcesOfBundle().every((f) => {
    const stat = statSync(f, { throwIfNoEntry: false });
    return !stat || stat.mtimeMs <= built;
  });
}

/**
 * The files the bundle was made from (dist/cli-inputs.json, written by the build):
 * statting those is ~1 ms, walking src-main is several on every call. A new file
 * only matters once a bundled file imports it, and that file is then newer.
 */
/** @returns {string[]} */
function sourcesOfBundle() {
  try {
    return JSON.parse(readFileSync(join(root, 'dist/cli-inputs.json'), 'utf8')).map((/** @type {string} */ f) => join(root, f));
  } catch {
    const sources = readdirSync(join(root, 'src-main'), { recursive: true }).map((f) => join(root, 'src-main', String(f)));
    return [...sources, join(root, 'wasm/build/kernels.wasm')];
  }
}

/** @type {(argv: string[]) => Promise<number>} */
let main;
// `folio mcp` has its own entry: an agent host waits for its start (src-main/doors/cli/mcp-main.ts).
const mcp = process.argv[2] === 'mcp';
if (process.env.FOLIO_CLI_FROM_SOURCE !== '1' && bundleIsFresh()) {
  const bundle = mcp ? '../dist/mcp.mjs' : '../dist/cli.mjs'; // built files: not for the typechecker to follow
  ({ main } = await import(bundle));
} else {
  // A checkout being edited: the sources through tsx (a dev dependency; an installed package runs dist/).
  const tsx = await import('tsx/esm/api').catch(() => null);
  if (!tsx) {
    process.stderr.write('folio: dist/cli.mjs is missing or older than the sources, and tsx is not installed: run `npm run build:cli`\n');
    process.exit(1);
  }
  const { register } = tsx;
  register();
  ({ main } = mcp ? await import('../src-main/doors/cli/mcp-main.ts') : await import('../src-main/doors/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
