// @ts-check
/**
 * The files the engine opens at run time, written next to a bundle (dist/cli.mjs,
 * out/main/index.js): the WASM kernels, and each worker script bundled with the
 * glue it imports. A worker sits beside the module that starts it in the source
 * tree (`new URL('./index-worker.mjs', import.meta.url)`), and beside the bundle
 * that inlines that module, so the same URL resolves in both.
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/** How every Node bundle of Folio is built (the CLI, the workers): ESM for Node 20, packages left to node_modules. */
export const NODE_BUNDLE = /** @type {const} */ ({
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});

/** @type {[source: string, nextToBundle: string][]} */
export const ENGINE_WORKERS = [
  ['src-main/engine/index/index-worker.mjs', 'index-worker.mjs'],
  ['src-main/engine/search/search-worker.mjs', 'search-worker.mjs'],
  ['src-main/engine/search/tree-search-worker.mjs', 'tree-search-worker.mjs'],
  ['src-main/engine/search/histogram-worker.mjs', 'histogram-worker.mjs'],
  ['src-main/engine/search/log-query-worker.mjs', 'log-query-worker.mjs'],
  ['src-main/engine/search/line-filter-worker.mjs', 'line-filter-worker.mjs'],
];
export const WASM_SOURCE = 'wasm/build/kernels.wasm';

/** Write kernels.wasm and the bundled workers into `dir`; returns the files they were made from (paths relative to the repository). */
export function writeEngineRuntime(/** @type {string} */ dir) {
  mkdirSync(dir, { recursive: true });
  const wasm = join(root, WASM_SOURCE);
  if (!existsSync(wasm)) throw new Error(`missing ${WASM_SOURCE} (run \`npm run build:wasm\`): the engine needs it next to the bundle`);
  copyFileSync(wasm, join(dir, 'kernels.wasm'));
  const inputs = new Set([WASM_SOURCE]);
  for (const [from, to] of ENGINE_WORKERS) {
    const { metafile } = buildSync({ ...NODE_BUNDLE, entryPoints: [join(root, from)], outfile: join(dir, to), metafile: true });
    for (const f of Object.keys(metafile.inputs)) inputs.add(relative(root, resolve(process.cwd(), f)));
  }
  return [...inputs];
}
