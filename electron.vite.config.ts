/**
 * `npm run build` (electron-vite build) writes:
 *   out/main/index.js       the Electron door + api + engine, ESM ("type": "module")
 *   out/main/kernels.wasm   the WASM kernels, which the bundled glue loads from next to itself
 *   out/main/kernels/       the worker script and the glue it imports (run as files, not bundled)
 *   out/preload/index.cjs   the preload, CommonJS because sandboxed preloads cannot be ESM
 *   out/renderer/           the React app, with relative asset URLs so `folio serve` can host it too
 * No Electron binary is needed to build.
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';

const root = dirname(fileURLToPath(import.meta.url));
const out = (...parts: string[]) => resolve(root, 'out', ...parts);

/** Files the engine opens at runtime: [source, destination under out/main]. */
const ENGINE_RUNTIME_FILES: [string, string][] = [
  ['wasm/build/kernels.wasm', 'kernels.wasm'],
  ['src-main/engine/kernels/index-worker.mjs', 'kernels/index-worker.mjs'],
  ['src-main/engine/kernels/kernels.mjs', 'kernels/kernels.mjs'],
  ['src-main/engine/kernels/search-worker.mjs', 'kernels/search-worker.mjs'],
];

function copyEngineRuntimeFiles(): Plugin {
  return {
    name: 'folio:copy-engine-runtime-files',
    apply: 'build',
    writeBundle() {
      for (const [from, to] of ENGINE_RUNTIME_FILES) {
        const source = join(root, from);
        if (!existsSync(source)) {
          const hint = from.endsWith('.wasm') ? ' (run `npm run build:wasm`)' : '';
          this.error(`missing ${from}${hint}: the engine needs it next to out/main/index.js at runtime`);
        }
        const target = out('main', to);
        mkdirSync(dirname(target), { recursive: true });
        copyFileSync(source, target);
      }
    },
  };
}

export default defineConfig({
  main: {
    plugins: [copyEngineRuntimeFiles()],
    build: {
      outDir: out('main'),
      rolldownOptions: {
        input: { index: resolve(root, 'src-main/doors/electron/main.ts') },
      },
    },
  },
  preload: {
    build: {
      outDir: out('preload'),
      rolldownOptions: {
        input: { index: resolve(root, 'src-main/doors/electron/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(root, 'src-renderer'),
    base: './',
    plugins: [react()],
    build: {
      outDir: out('renderer'),
      emptyOutDir: true,
      // Minified: the first paint of a big file waits on parsing the main chunk.
      minify: true,
      rolldownOptions: {
        input: { index: resolve(root, 'src-renderer/index.html') },
      },
    },
  },
});
