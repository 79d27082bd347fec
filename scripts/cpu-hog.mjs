#!/usr/bin/env node
/**
 * A CPU hog, as `stress --cpu N` would be: one busy loop per core (worker threads, at
 * normal priority), to check that the suite holds on a loaded machine.
 *
 *   node scripts/cpu-hog.mjs                 hog every core until Ctrl-C / SIGTERM
 *   node scripts/cpu-hog.mjs --cores 1       hog one core
 *   node scripts/cpu-hog.mjs -- npm test     hog while the command runs; exit with its status
 *
 * `npm run test:hog` runs `npm test` beside it (docs/TESTING.md).
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const own = dash < 0 ? argv : argv.slice(0, dash);
const command = dash < 0 ? [] : argv.slice(dash + 1);
const coresArg = own.indexOf('--cores');
const cores = coresArg >= 0 ? Number(own[coresArg + 1]) : availableParallelism();
if (!Number.isInteger(cores) || cores < 1) {
  console.error('usage: cpu-hog.mjs [--cores N] [-- command args...]');
  process.exit(2);
}

// Each loop keeps a result alive so the JIT cannot drop the work.
const LOOP = `let x = 0; for (;;) { for (let i = 0; i < 1e7; i++) x = (x * 1664525 + 1013904223) | 0; if (x === 42) console.log(x); }`;
const workers = Array.from({ length: cores }, () => new Worker(LOOP, { eval: true }));
console.error(`cpu-hog: ${cores} busy loop(s) running (pid ${process.pid})`);

/** @param {number} code */
const stop = (code) => {
  for (const w of workers) void w.terminate();
  process.exit(code);
};
process.on('SIGINT', () => stop(130));
process.on('SIGTERM', () => stop(143));

const [program, ...args] = command;
if (program !== undefined) {
  const child = spawn(program, args, { stdio: 'inherit', shell: process.platform === 'win32' });
  child.on('exit', (/** @type {number | null} */ code, /** @type {string | null} */ signal) => {
    console.error(`cpu-hog: ${command.join(' ')} ended (${signal ?? code}); stopping the loops`);
    stop(code ?? 1);
  });
}
