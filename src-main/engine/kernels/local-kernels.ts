/** The kernels instance of the current thread, for synchronous queries and small scans. */
import { loadKernels, kernelModule, type Kernels } from './kernels.mjs';

let kernels: Kernels | undefined;

/**
 * One instance per thread. Callers use its input window synchronously (read, then
 * call a kernel, with no await in between), so sharing it is safe.
 */
export function localKernels(): Kernels {
  kernels ??= loadKernels(kernelModule());
  return kernels;
}
