// @ts-check
/**
 * Bundles the CLI (src-main/doors/cli/main.ts and everything it imports from
 * src-main) into dist/cli.mjs with esbuild, next to the runtime files the engine
 * opens (the WASM module and the worker scripts), the same layout as the Electron
 * bundle. bin/folio.mjs runs it when it is newer than every source file, and the
 * TypeScript sources through tsx otherwise: a CLI call starts in about half the time.
 * Run by `npm run build:cli` and by `prepare`.
 */
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
mkdirSync(join(dist, 'kernels'), { recursive: true });
copyFileSync(join(root, 'wasm/build/kernels.wasm'), join(dist, 'kernels.wasm'));
for (const f of readdirSync(join(root, 'src-main/engine/kernels'))) {
  if (f.endsWith('.mjs')) copyFileSync(join(root, 'src-main/engine/kernels', f), join(dist, 'kernels', f));
}
await build({
  entryPoints: [join(root, 'src-main/doors/cli/main.ts')],
  outfile: join(dist, 'cli.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
