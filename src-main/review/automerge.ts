/**
 * Automerge, loaded on first use, its WebAssembly compiled for how long the process
 * lives. The module is 3.6 MB of wasm: V8 runs it first as baseline code (Liftoff)
 * and recompiles its hot functions with its optimizing tier (TurboFan) in the
 * background. A long-lived process (`folio serve`, `folio mcp`, the app) gains from
 * that (a review document of 3,000 changes builds ~40% faster in wall time); a
 * one-shot CLI call (engine/process-life.ts) pays the recompiling and ends before it
 * pays back (`folio review history` took 0.85 CPU s with it, 0.50 without:
 * docs/BENCHMARKS.md, "startup").
 *
 * V8 fixes a module's tiers when it compiles the module, so a short-lived process
 * sets `--liftoff-only` around the one synchronous compile (Automerge's CommonJS
 * entry compiles its wasm when required) and clears it after: Folio's own SIMD
 * kernels, compiled later, keep the optimizing tier.
 */
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import type * as AutomergeApi from '@automerge/automerge';
import { isShortLived } from '../engine/process-life.ts';

export type Automerge = typeof AutomergeApi;

let loaded: Automerge | undefined;

/** The Automerge API, loaded (and its wasm compiled) on the first call. */
export function automerge(): Automerge {
  if (loaded) return loaded;
  const shortLived = isShortLived();
  if (shortLived) setFlagsFromString('--liftoff-only');
  try {
    // Required, not imported: a bundler hoists an external import above the flag's line.
    loaded = createRequire(import.meta.url)('@automerge/automerge') as Automerge;
  } finally {
    if (shortLived) setFlagsFromString('--no-liftoff-only');
  }
  return loaded;
}
