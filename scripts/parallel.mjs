#!/usr/bin/env node
/**
 * Run npm scripts side by side and fail if any fails: `npm test`'s checks and builds
 * (typecheck, lint, build, build:cli) are independent, and one after the other they
 * left a core idle most of the time (tsc and eslint are single-threaded).
 *
 *   node scripts/parallel.mjs typecheck lint build build:cli
 *
 * Each script's output is printed as one block when it ends (not interleaved), with
 * its time; the exit status is the first failure's, or 0.
 */
import { spawn } from 'node:child_process';

const names = process.argv.slice(2);
if (names.length === 0) {
  console.error('usage: parallel.mjs SCRIPT...');
  process.exit(2);
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const t0 = performance.now();

const runs = names.map(
  (name) =>
    new Promise((resolve) => {
      const started = performance.now();
      const child = spawn(npm, ['run', '-s', name], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '1' },
      });
      /** @type {Buffer[]} */
      const out = [];
      child.stdout.on('data', (d) => out.push(d));
      child.stderr.on('data', (d) => out.push(d));
      child.on('error', (err) => out.push(Buffer.from(String(err))));
      child.on('close', (code, signal) => {
        const secs = ((performance.now() - started) / 1000).toFixed(1);
        const status = code === 0 ? 'ok' : `FAILED (${signal ?? code})`;
        process.stdout.write(`\n── npm run ${name}: ${status} in ${secs} s ──\n`);
        process.stdout.write(Buffer.concat(out));
        resolve(code === 0 ? 0 : (code ?? 1));
      });
    }),
);

const codes = await Promise.all(runs);
const failed = names.filter((_, i) => codes[i] !== 0);
console.log(
  `\n${failed.length === 0 ? 'all passed' : `failed: ${failed.join(', ')}`} (${names.join(', ')}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
);
process.exit(codes.find((c) => c !== 0) ?? 0);
