// @ts-check
/**
 * Bundles the CLI (src-main/doors/cli/main.ts and everything it imports from
 * src-main) into dist/cli.mjs with esbuild, next to the runtime files the engine
 * opens: the WASM module and each worker script, bundled with what it imports
 * (the same layout as the Electron bundle: scripts/engine-runtime.mjs). bin/folio.mjs runs it when it is newer than every source file, and the
 * TypeScript sources through tsx otherwise: a CLI call starts in about half the time.
 * Run by `npm run build:cli` and by `prepare`.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { NODE_BUNDLE, writeEngineRuntime } from './engine-runtime.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
writeEngineRuntime(dist);
await build({ ...NODE_BUNDLE, entryPoints: [join(root, 'src-main/doors/cli/main.ts')], outfile: join(dist, 'cli.mjs') });
