// @ts-check
/**
 * Compiles the AssemblyScript kernels (wasm/kernels.ts and the files it imports)
 * into ONE module, wasm/build/kernels.wasm, with the local asc. Run by
 * `npm run build:wasm` and by `prepare` (so npm install / npm ci build it).
 * Quiet on success; on failure prints asc's diagnostics and exits 1.
 *
 * Flags: SIMD128 on; -O3; the stub runtime (nothing is allocated: the ABI is
 * offsets and lengths into a fixed layout, see wasm/layout.ts); no abort import;
 * a fixed 5-page memory (320 KiB: 256 KiB input window + guard, padding, scratch)
 * with maximum = initial, so the memory can never grow.
 */
import { fileURLToPath } from 'node:url';
import { mkdirSync } from 'node:fs';

const root = fileURLToPath(new URL('..', import.meta.url));
const outFile = 'wasm/build/kernels.wasm';
const MEMORY_PAGES = '5';

const args = [
  'wasm/kernels.ts',
  '--outFile',
  outFile,
  '-O3',
  '--runtime',
  'stub',
  '--enable',
  'simd',
  '--use',
  'abort=',
  '--noAssert',
  '--initialMemory',
  MEMORY_PAGES,
  '--maximumMemory',
  MEMORY_PAGES,
  '--baseDir',
  root,
];
if (process.argv.includes('--text')) args.push('--textFile', 'wasm/build/kernels.wat');

mkdirSync(new URL('../wasm/build/', import.meta.url), { recursive: true });

/** @type {typeof import('assemblyscript/asc')} */
let asc;
try {
  asc = await import('assemblyscript/asc');
} catch (err) {
  process.stderr.write(`build-wasm: cannot load the AssemblyScript compiler (devDependency "assemblyscript"): ${/** @type {Error} */ (err).message}\n`);
  process.exit(1);
}

/** @type {string[]} */
const diagnostics = [];
const sink = {
  write: (/** @type {string | Uint8Array} */ chunk) => {
    diagnostics.push(String(chunk));
    return true;
  },
};
const { error } = await asc.main(args, { stdout: sink, stderr: sink });
if (error) {
  process.stderr.write(diagnostics.join(''));
  process.stderr.write(`build-wasm: compiling wasm/kernels.ts failed: ${error.message}\n`);
  process.exit(1);
}
