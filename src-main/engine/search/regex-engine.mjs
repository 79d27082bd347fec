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
 * Measured on Node 20.20 (test/engine/search-timeout.test.ts keeps it true): V8
 * flags are process-wide and read at exec time, so setting them here applies to
 * worker threads (started before or after) and to regexes compiled before. Every
 * path to a search regex (plan.mjs, in the main thread and in search-worker.mjs)
 * imports this module, which sets the flags once on load.
 */
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
setFlagsFromString('--enable-experimental-regexp-engine');

/**
 * True when V8's linear-time engine can run `pattern` with `flags` (a subset of
 * 'imsug'): then no input can make it backtrack without limit.
 * @param {string} pattern
 * @param {string} flags
 */
export function isLinearTimeRegex(pattern, flags) {
  try {
    new RegExp(pattern, flags.replace('g', '') + 'l');
    return true;
  } catch {
    return false;
  }
}
