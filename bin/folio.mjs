#!/usr/bin/env node
// Folio CLI entry. Runs dist/cli.mjs (built by `npm run build:cli`, part of npm
// install) when it is newer than every source file; otherwise the TypeScript
// sources through tsx, so a checkout being edited never runs stale code.
import { readdirSync, statSync } from 'node:fs';
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
  const sources = readdirSync(join(root, 'src-main'), { recursive: true }).map((f) => join(root, 'src-main', String(f)));
  sources.push(join(root, 'wasm/build/kernels.wasm'));
  return sources.every((f) => {
    try {
      return statSync(f).mtimeMs <= built;
    } catch {
      return true;
    }
  });
}

/** @type {(argv: string[]) => Promise<number>} */
let main;
if (process.env.FOLIO_CLI_FROM_SOURCE !== '1' && bundleIsFresh()) {
  const bundle = '../dist/cli.mjs'; // a built file: not for the typechecker to follow
  ({ main } = await import(bundle));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src-main/doors/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
