import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CHUNK_SIZE, kernelModule, kernelWasmPath, loadKernels } from '../../src-main/engine/kernels/kernels.mjs';

const glueUrl = new URL('../../src-main/engine/kernels/kernels.mjs', import.meta.url).href;

/** Run a snippet in a fresh Node process with the given environment. */
function runNode(code: string, env: Record<string, string>) {
  return spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', env: { ...process.env, ...env } });
}

describe('kernel glue', () => {
  it('resolves the built module in the checkout by default and FOLIO_WASM_PATH when set', () => {
    expect(kernelWasmPath()).toBe(fileURLToPath(new URL('../../wasm/build/kernels.wasm', import.meta.url)));
    const r = runNode(`import { kernelWasmPath } from '${glueUrl}'; console.log(kernelWasmPath());`, { FOLIO_WASM_PATH: '/elsewhere/k.wasm' });
    expect(r.stdout.trim()).toBe('/elsewhere/k.wasm');
  });

  it('fails with an error naming `npm run build:wasm` when the module is missing', () => {
    const r = runNode(`import { kernelModule } from '${glueUrl}'; kernelModule();`, { FOLIO_WASM_PATH: '/nonexistent/kernels.wasm' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('npm run build:wasm');
  });

  it('compiles the module once and caches it; every instance has its own fixed-size input window', () => {
    expect(kernelModule()).toBe(kernelModule());
    const a = loadKernels();
    const b = loadKernels(kernelModule());
    expect(a.input.length).toBe(CHUNK_SIZE);
    a.input.fill(10);
    b.input.fill(0);
    expect(a.countNewlines(0, CHUNK_SIZE)).toBe(CHUNK_SIZE);
    expect(b.countNewlines(0, CHUNK_SIZE)).toBe(0);
  });

  it('the module imports nothing and its memory cannot grow, so the input view stays valid', () => {
    expect(WebAssembly.Module.imports(kernelModule())).toEqual([]);
    const k = loadKernels();
    const buffer = k.input.buffer;
    const u8 = new Uint8Array(1).fill(10);
    k.input.set(u8, CHUNK_SIZE - 1);
    k.utf8Stream().feed(CHUNK_SIZE);
    k.countNewlinesPerBlock(CHUNK_SIZE, new Uint32Array(4), 0);
    expect(k.input.buffer).toBe(buffer);
    expect(k.input.byteLength).toBe(CHUNK_SIZE);
  });

  it('rejects ranges outside the input window and per-block output that does not fit', () => {
    const k = loadKernels();
    expect(() => k.countNewlines(0, CHUNK_SIZE + 1)).toThrow(RangeError);
    expect(() => k.countNewlines(5, 4)).toThrow(RangeError);
    expect(() => k.lineEndAfter(-1, 3)).toThrow(RangeError);
    expect(() => k.utf8Stream().feed(CHUNK_SIZE + 1)).toThrow(RangeError);
    expect(() => k.countNewlinesPerBlock(3 * 65536, new Uint32Array(2), 0)).toThrow(RangeError);
    expect(() => k.countNewlinesPerBlock(65536, new Uint32Array(2), 2)).toThrow(RangeError);
  });

  it('a worker thread instantiates kernels from the module posted by the main thread', async () => {
    const source = `
      import { parentPort, workerData } from 'node:worker_threads';
      const { loadKernels } = await import(workerData.glue);
      const k = loadKernels(workerData.module);
      k.input.set(new TextEncoder().encode('a\\nb\\nc'));
      parentPort.postMessage(k.countNewlines(0, 5));
    `;
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(source)}`), {
      workerData: { module: kernelModule(), glue: glueUrl },
    });
    const count = await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(count).toBe(2);
  });
});
