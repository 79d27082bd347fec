/**
 * Nothing hangs the caller: regexes that backtrack without limit either run on
 * V8's linear-time engine or run in a worker under a time budget that ends in a
 * `timeout` error. The runaway inputs are 40 a's and a '!': `(a+)+$` and
 * `(a+)+\1$` take 2^40 steps on V8's backtracking engine (hours).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildIndex } from '../../src-main/engine/index/builder.ts';
import { BytesMissing } from '../../src-main/engine/index/byte-source.ts';
import type { LineIndex } from '../../src-main/engine/index/line-index.ts';
import { searchTimeoutError } from '../../src-main/engine/search/search-budget.ts';
import { cheapInThread, closeSearchPools, searchFile } from '../../src-main/engine/search/search.ts';
import { closeTreeSearchPools, searchTree } from '../../src-main/engine/search/tree-search.ts';
import { boundedRegex, isLinearTimeRegex, planSearch } from '../../src-main/engine/search/search-worker.mjs';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { writeLogFile } from '../fixtures/generate.ts';

const tmp = engineTempDir();
afterAll(async () => {
  await closeSearchPools();
  await closeTreeSearchPools();
});

const RUNAWAY = 'a'.repeat(40) + '!';

function grepCount(pattern: string, file: string): number {
  try {
    return Number(
      execFileSync('grep', ['-cE', pattern, file], { env: { ...process.env, LC_ALL: 'C.UTF-8' } })
        .toString()
        .trim(),
    );
  } catch (err) {
    if ((err as { status?: number }).status === 1) return 0;
    throw err;
  }
}

/** CPU ticks used by each thread of this process (Linux /proc), by thread id. */
function threadTicks(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, Number(f[11]) + Number(f[12]));
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** The most CPU ticks any one thread used over `ms` of waiting here. */
async function busiestThreadTicks(ms: number): Promise<number> {
  const before = threadTicks();
  await new Promise((resolve) => setTimeout(resolve, ms));
  let max = 0;
  for (const [tid, t] of threadTicks()) max = Math.max(max, t - (before.get(tid) ?? t));
  return max;
}

describe('regex engine', () => {
  it('classify patterns: the linear engine runs nested quantifiers, not backreferences, lookarounds or the i/u flags', () => {
    for (const src of ['(a+)+$', '^(\\w+\\s?)*$', '(x|y)*z', 'ERROR|WARN']) expect(isLinearTimeRegex(src, '')).toBe(true);
    expect(isLinearTimeRegex('(a+)+$', 'ms')).toBe(true);
    for (const src of ['(a)\\1', '(?=a)b', 'a(?!b)', '(?<=a)b', '(?<n>a)\\k<n>', 'a{1000}']) expect(isLinearTimeRegex(src, '')).toBe(false);
    expect(isLinearTimeRegex('(a+)+$', 'i')).toBe(false);
    expect(isLinearTimeRegex('(a+)+$', 'u')).toBe(false);
    // No choice point: bounded whatever the engine (the usual case-insensitive word search).
    expect(boundedRegex('timeout', 'i')).toBe(true);
    expect(boundedRegex('(a)b\\1', 'iu')).toBe(true);
    expect(boundedRegex('(a+)+\\1$', '')).toBe(false);
  });

  it('V8 flags set by the search module reach workers started before and regexes compiled before', () => {
    // A fresh process: a worker and a regex exist before the module sets the flags (on its first use, not on import).
    const script = `
      const { Worker } = require('node:worker_threads');
      const w = new Worker("require('node:worker_threads').parentPort.once('message', (s) => { const t = Date.now(); /(a+)+$/.test(s); require('node:worker_threads').parentPort.postMessage(Date.now() - t); })", { eval: true });
      const early = new RegExp('(a+)+$');
      import(${JSON.stringify(new URL('../../src-main/engine/search/regex-engine.mjs', import.meta.url).href)}).then(({ useLinearFallback }) => {
        useLinearFallback();
        const s = ${JSON.stringify(RUNAWAY)};
        const t = Date.now(); early.test(s); const mainMs = Date.now() - t;
        w.once('message', (workerMs) => { console.log(JSON.stringify({ mainMs, workerMs })); w.terminate(); });
        w.postMessage(s);
      });`;
    const r = spawnSync(process.execPath, ['-e', script], { timeout: 30_000, encoding: 'utf8' });
    expect(r.signal, r.stderr).toBeNull();
    const { mainMs, workerMs } = JSON.parse(r.stdout) as { mainMs: number; workerMs: number };
    // Hours on the backtracking engine; milliseconds on the linear one (generous bound for a loaded machine).
    expect(mainMs).toBeLessThan(10_000);
    expect(workerMs).toBeLessThan(10_000);
  });
});

describe('search time budget', () => {
  it('run a nested-quantifier blow-up on the linear engine in workers: no match, no timeout', async () => {
    const path = tmp.path('redos.txt');
    writeFileSync(path, `hello\n${RUNAWAY}\nbye\n`);
    const index = await buildIndex(path, { threads: 0 });
    const r = await searchFile(index, { pattern: '(a+)+$', threads: 2, smallRangeBytes: 0, timeoutMs: 60_000 });
    expect(r.matches).toEqual([]);
    expect(r.count).toBe(0);
  });

  it('run a backreference blow-up on a small file in a worker and answer timeout, the calling thread staying free', async () => {
    const path = tmp.path('backref.log');
    // Over one 1 MiB chunk of ordinary lines first, so the error has progress to report.
    // countOnly: a match cap would end the search before it reaches the runaway line.
    writeLogFile(path, 1536 * 1024, 3);
    appendFileSync(path, `${RUNAWAY}\nERROR after\n`);
    const index = await buildIndex(path, { threads: 0 });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 50);
    const started = performance.now();
    const err = await searchFile(index, { pattern: 'ERROR|(a+)+\\1$', countOnly: true, timeoutMs: 2000 }).catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    clearInterval(ticker);
    expect(err).toMatchObject({ name: 'FolioError', code: 'timeout' });
    const details = (err as { details: Record<string, number> }).details;
    expect(details).toMatchObject({ budget_ms: 2000, start_byte: 0, end_byte: index.size, pattern: 'ERROR|(a+)+\\1$' });
    expect(details.bytes_scanned).toBeGreaterThanOrEqual(1024 * 1024 - 4096);
    expect(details.bytes_scanned).toBeLessThan(index.size);
    const scannedText = readFileSync(path).subarray(0, details.bytes_scanned).toString('latin1');
    expect(details.lines_scanned).toBe(scannedText.split('\n').length - 1);
    expect(details.matches_found).toBeGreaterThan(0);
    expect(details.matches_found).toBeLessThanOrEqual(grepCount('ERROR', path));
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(elapsed).toBeLessThan(20_000);
    // The event loop kept turning while the regex ran away (in-thread it would not tick once).
    expect(ticks).toBeGreaterThan(3);
    // The pool recovers.
    const ok = await searchFile(index, { pattern: 'ERROR', countOnly: true });
    expect(ok.count).toBe(grepCount('ERROR', path));
  });

  it('time out a case-insensitive nested quantifier (the linear engine refuses i) instead of blocking', async () => {
    const path = tmp.path('redos-i.txt');
    writeFileSync(path, `${RUNAWAY}\n`);
    const index = await buildIndex(path, { threads: 0 });
    const err = await searchFile(index, { pattern: '(A+)+$', flags: 'i', threads: 0, timeoutMs: 500 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'timeout', details: { budget_ms: 500, bytes_scanned: 0, lines_scanned: 0, matches_found: 0 } });
  });

  it('a timeout over an index that no longer holds the bytes (a remote value past its cache) leaves lines out, and throws nothing', () => {
    // The budget's timer builds the error; over a remote value the line count of a piece's
    // start can need a block the cache dropped. That threw BytesMissing out of the timer
    // (an uncaught exception in the server) in a full run of the suite.
    const index = {
      path: 's3://b/v.log',
      size: 4 << 20,
      lineCount: 50_000,
      lineAt: (offset: number) => {
        throw new BytesMissing(offset, offset + 65_536);
      },
    } as unknown as LineIndex;
    const pieces = [{ start: 0, end: 2 << 20, bytesDone: 1 << 20, matches: 3 }];
    const err = searchTimeoutError(index, { pattern: 'x', flags: '', start: 0, end: 4 << 20, budgetMs: 100 }, pieces);
    expect(err).toMatchObject({ code: 'timeout', details: { bytes_scanned: 1 << 20, matches_found: 3, budget_ms: 100 } });
    expect(err.details).not.toHaveProperty('lines_scanned', expect.anything());
    // A piece done to the end counts from the index's own total.
    const whole = searchTimeoutError(
      { ...index, lineAt: () => 0 } as unknown as LineIndex,
      { pattern: 'x', flags: '', start: 0, end: 4 << 20, budgetMs: 100 },
      [{ start: 0, end: 4 << 20, bytesDone: 4 << 20, matches: 0 }],
    );
    expect(whole.details).toMatchObject({ lines_scanned: 50_000 });
  });

  it('take the budget from FOLIO_SEARCH_TIMEOUT_MS and refuse a bad one', async () => {
    const path = tmp.path('redos-env.txt');
    writeFileSync(path, `${RUNAWAY}\n`);
    const index = await buildIndex(path, { threads: 0 });
    const saved = process.env.FOLIO_SEARCH_TIMEOUT_MS;
    try {
      process.env.FOLIO_SEARCH_TIMEOUT_MS = '300';
      await expect(searchFile(index, { pattern: '(a+)+\\1$' })).rejects.toMatchObject({ code: 'timeout', details: { budget_ms: 300 } });
      process.env.FOLIO_SEARCH_TIMEOUT_MS = 'soon';
      await expect(searchFile(index, { pattern: 'a' })).rejects.toMatchObject({ code: 'invalid_input', details: { field: 'FOLIO_SEARCH_TIMEOUT_MS' } });
    } finally {
      if (saved === undefined) delete process.env.FOLIO_SEARCH_TIMEOUT_MS;
      else process.env.FOLIO_SEARCH_TIMEOUT_MS = saved;
    }
    await expect(searchFile(index, { pattern: 'a', timeoutMs: 0 })).rejects.toMatchObject({ code: 'invalid_input', details: { field: 'timeoutMs' } });
  });

  it.runIf(existsSync('/proc/self/task'))('time out on a big file (> 8 MiB) and leave no worker spinning', async () => {
    const path = tmp.path('big.log');
    writeLogFile(path, 9 * 1024 * 1024, 11);
    appendFileSync(path, `${RUNAWAY}\n`);
    const index = await buildIndex(path, { threads: 0 });
    const search = searchFile(index, { pattern: 'ERROR|(a+)+\\1$', countOnly: true, threads: 2, timeoutMs: 4000 }).catch((e: unknown) => e);
    // The probe sees a spinning worker while the search runs (10 ms ticks; a spinning thread gets far more).
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await busiestThreadTicks(2000)).toBeGreaterThanOrEqual(10);
    const err = await search;
    expect(err).toMatchObject({ code: 'timeout', details: { budget_ms: 4000, end_byte: index.size } });
    const details = (err as { details: Record<string, number> }).details;
    expect(details.matches_found).toBeGreaterThan(0);
    expect(details.bytes_scanned).toBeGreaterThan(4 * 1024 * 1024);
    expect(details.bytes_scanned).toBeLessThan(index.size);
    // After the answer no thread of this process keeps burning CPU.
    expect(await busiestThreadTicks(2000)).toBeLessThan(10);
  });
  it('run the head-first 4 MiB of a big file in a worker when the regex is not provably cheap: the calling thread keeps turning', async () => {
    // (.*a){12} runs on the linear engine (bounded) but costs it a big automaton per
    // line: eleven a's per line, one short of a match. In the calling thread the head's
    // 1 MiB chunks held the event loop for seconds each.
    const path = tmp.path('head-first.txt');
    const line = 'ba-'.repeat(11) + 'b'.repeat(500) + '\n';
    writeFileSync(path, line.repeat(Math.ceil((9 * 1024 * 1024) / line.length)));
    const index = await buildIndex(path, { threads: 0 });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 50);
    const err = await searchFile(index, { pattern: '(.*a){12}', threads: 2, timeoutMs: 2000 }).catch((e: unknown) => e);
    clearInterval(ticker);
    expect(err).toMatchObject({ code: 'timeout', details: { budget_ms: 2000 } });
    // Forty ticks in two free seconds; a thread held a chunk at a time gets a few.
    expect(ticks).toBeGreaterThanOrEqual(10);
    expect(cheapInThread(planSearch('(.*a){12}', ''), 9 * 1024 * 1024)).toBe(false);
    expect(cheapInThread(planSearch('(.*a){12}', ''), 4096)).toBe(true);
    expect(cheapInThread(planSearch('ERROR', ''), 1 << 30)).toBe(true);
    expect(cheapInThread(planSearch('(a+)+\\1$', ''), 10)).toBe(false);
  });
  it('a directory search obeys it too: a big file of the tree goes off the calling thread and the budget ends the search', async () => {
    const dir = tmp.path('tree-adversarial');
    mkdirSync(dir, { recursive: true });
    const line = 'ba-'.repeat(11) + 'b'.repeat(500) + '\n';
    writeFileSync(join(dir, 'big.txt'), line.repeat(Math.ceil((3 * 1024 * 1024) / line.length)));
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 50);
    // bigFileBytes lowered: the 3 MB file takes the one-file search path (index, head-first, workers).
    const err = await searchTree(dir, { pattern: '(.*a){12}', bigFileBytes: 1024, timeoutMs: 2000 }).catch((e: unknown) => e);
    clearInterval(ticker);
    expect(err).toMatchObject({ code: 'timeout' });
    expect(ticks).toBeGreaterThanOrEqual(10);
  });
});
