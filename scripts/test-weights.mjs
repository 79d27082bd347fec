#!/usr/bin/env node
// @ts-check
/**
 * Writes test/fixtures/file-weights.json (the order test/fixtures/sequencer.ts starts
 * files in) from vitest's results cache: each test file's wall seconds in the latest
 * run that ran it. Run after a full `npm run test:unit`; files that no longer exist are
 * left out.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const cacheDir = 'node_modules/.vite/vitest';
/** @type {Record<string, number>} */
const weights = {};
for (const dir of existsSync(cacheDir) ? readdirSync(cacheDir) : []) {
  const file = join(cacheDir, dir, 'results.json');
  if (!existsSync(file)) continue;
  /** @type {{ results: [string, { duration?: number }][] }} */
  const { results } = JSON.parse(readFileSync(file, 'utf8'));
  for (const [key, { duration }] of results) {
    const path = key.replace(/^[^:]*:/, ''); // "project:path"
    if (duration !== undefined && existsSync(path)) weights[path] = Math.round(duration / 100) / 10;
  }
}
const sorted = Object.fromEntries(Object.entries(weights).sort((a, b) => b[1] - a[1]));
writeFileSync('test/fixtures/file-weights.json', JSON.stringify(sorted, null, 2) + '\n');
console.log(`${Object.keys(sorted).length} files weighed`);
