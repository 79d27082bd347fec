// @ts-check
/**
 * Which regex engine runs a search, and whether a pattern can blow up.
 *
 * V8's default engine (Irregexp) backtracks, so `(a+)+$` on 40 a's and a '!' runs
 * for hours. V8 also has a linear-time engine, experimental in Node 20 (V8 11.3):
 * "An additional non-backtracking RegExp engine", https://v8.dev/blog/non-backtracking-regexp.
 * `--enable-experimental-regexp-engine-on-excessive-backtracks` makes any
 * backtracking exec that exceeds a backtrack budget (--regexp-backtracks-before-fallback)
 * restart on the linear engine; ordinary regexes keep Irregexp's speed.
 * `--enable-experimental-regexp-engine` also admits the `l` flag, whose compile
 * throws "Cannot be executed in linear time" for a pattern the linear engine cannot
 * run: backreferences, lookarounds, large counted repetitions (`a{1000}`), and in
 * V8 11.3 the `i` and `u` flags. Those patterns keep backtracking without limit, so
 * search.ts never runs them in the calling thread and bounds them with a time budget.
 *
 * Measured on Node 20.20 (test/engine/search-timeout.test.ts and
 * regex-engine-flags.test.ts keep it true): V8 flags are per process, not per
 * isolate, and read at exec time, so setting them applies to every thread (a worker
 * that sets them sets them for the main thread too), to workers started before and to
 * regexes compiled before. They cannot be scoped to the search workers; what can be
 * scoped is when: useLinearFallback() sets them on the first call that is about to
 * run a regex with a choice point (plan.mjs boundedRegex, isLinearTimeRegex below),
 * not on import, so a process that reads, upserts or searches for literal text only
 * (a `folio read`, an Electron main process that never searched) leaves every
 * library's regexes as V8 runs them by default. docs/ARCHITECTURE.md says the rest.
 */
import { setFlagsFromString } from 'node:v8';

let flagsSet = false;

/**
 * Sets V8's linear-time fallback flags for this process, once. Call before running
 * a regex that could backtrack without limit; later calls cost nothing.
 */
export function useLinearFallback() {
  if (flagsSet) return;
  setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
  setFlagsFromString('--enable-experimental-regexp-engine');
  flagsSet = true;
}

/**
 * True when V8's linear-time engine can run `pattern` with `flags` (a subset of
 * 'imsug'): then no input can make it backtrack without limit.
 * @param {string} pattern
 * @param {string} flags
 */
export function isLinearTimeRegex(pattern, flags) {
  useLinearFallback();
  try {
    new RegExp(pattern, flags.replace('g', '') + 'l');
    return true;
  } catch {
    return false;
  }
}
