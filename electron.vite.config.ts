/**
 * `npm run build` (electron-vite build) writes:
 *   out/main/index.js       the Electron door + api + engine, ESM ("type": "module")
 *   out/main/kernels.wasm   the WASM kernels, which the bundled glue loads from next to itself
 *   out/main/*-worker.mjs   the worker scripts, each bundled with the glue it imports
 *   out/preload/index.cjs   the preload, CommonJS because sandboxed preloads cannot be ESM
 *   out/renderer/           the React app, with relative asset URLs so `folio serve` can host it too
 * No Electron binary is needed to build.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import { writeEngineRuntime } from './scripts/engine-runtime.mjs';

const root = dirname(fileURLToPath(import.meta.url));
const out = (...parts: string[]) => resolve(root, 'out', ...parts);

/** The WASM kernels and the bundled worker scripts, next to out/main/index.js. */
function copyEngineRuntimeFiles(): Plugin {
  return {
    name: 'folio:engine-runtime-files',
    apply: 'build',
    writeBundle() {
      try {
        writeEngineRuntime(out('main'));
      } catch (err) {
        this.error(err instanceof Error ? err.message : String(err));
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
