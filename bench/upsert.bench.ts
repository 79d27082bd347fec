/**
 * `npm run bench -- upsert`: what a version-checked upsert costs on big page-cached
 * files, against baselines measured in the same run:
 * - replace 10 lines in the middle of a 1 GiB log (temp file + fsync + rename:
 *   the whole file is rewritten) against `cp` of that file, and `cp` + `sync` of the
 *   copy (the upsert fsyncs; plain cp leaves the copy in dirty pages);
 * - append a line to a 2 GiB log under if_match against a bare
 *   open(O_APPEND) + write + fsync + close; back to back (as a log writer would) and
 *   with the background SHA-256 that each new version of a big file starts settled
 *   first, which shows what that hashing costs the appends.
 * Both work on copies under bench/.data, removed at the end, so the shared
 * synthetic logs other benches read stay as generated.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, fsyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { closeIndexPools } from '../src-main/engine/index/builder.ts';
import { openIndex } from '../src-main/engine/index/store.ts';
import { read } from '../src-main/engine/read/read.ts';
import { upsert } from '../src-main/engine/write/upsert.ts';
import type { BenchOptions } from './main.ts';
import { DATA_DIR, fileSize, gbps, median, percentile, syntheticLog, table, warmPageCache } from './lib.ts';

const REPLACE_LOG_BYTES = 1024 ** 3;
const APPEND_LOG_BYTES = 2 * 1024 ** 3;
const REPLACED_LINES = 10;
const APPENDS = 50;

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
}

/** Wall time of an external command in ms. */
function timeRun(cmd: string, args: string[]): number {
  const t = performance.now();
  run(cmd, args);
  return performance.now() - t;
}

/** Flush dirty pages so no contender pays for the writeback of the one before. */
function settleDisk(): void {
  run('sync', []);
}

/**
 * Wait until the background SHA-256 of the file's current version is done: a big
 * file's first read per version starts one, and it would compete with what is
 * timed next. Returns how long it took (ms).
 */
async function settleHash(file: string): Promise<number> {
  const t = performance.now();
  while (!(await read(file, { mode: 'head', lines: 1 })).version.sha256) await new Promise((r) => setTimeout(r, 20));
  return performance.now() - t;
}

function replacement(run: number): string {
  let s = '';
  for (let i = 0; i < REPLACED_LINES; i++) s += `2026-01-01T00:00:00.000Z INFO [bench] upsert run ${run} replaced line ${i}\n`;
  return s;
}

interface ReplaceResult {
  size: number;
  lines: number;
  cpMs: number;
  cpSyncMs: number;
  upsertMs: number;
  hashMs: number;
}

async function benchReplace(runs: number): Promise<ReplaceResult> {
  const source = syntheticLog(REPLACE_LOG_BYTES);
  const work = join(DATA_DIR, 'upsert-1G.log');
  const copy = join(DATA_DIR, 'upsert-1G.cp');
  run('cp', [source, work]);
  try {
    warmPageCache(work);
    const index = await openIndex(work); // the first index of the copy is the index bench's business
    const lines = index.lineCount;
    const size = index.size;
    const start = Math.floor(lines / 2);
    const end = start + REPLACED_LINES - 1;
    const upsertOnce = async (n: number) => {
      const { version } = await read(work, { mode: 'lines', ranges: [{ start, end }] });
      const t = performance.now();
      await upsert(work, {
        target: { kind: 'replace', start, end, units: 'lines' },
        content: replacement(n),
        preconditions: { ifMatch: version.etag },
      });
      return performance.now() - t;
    };
    const cpOnce = () => {
      rmSync(copy, { force: true });
      settleDisk();
      return timeRun('cp', [work, copy]);
    };
    const cpSyncOnce = () => {
      rmSync(copy, { force: true });
      settleDisk();
      return timeRun('sh', ['-c', 'cp "$1" "$2" && sync "$2"', 'sh', work, copy]);
    };
    // One warm-up of each, then the contenders interleaved run by run.
    cpOnce();
    cpSyncOnce();
    await settleHash(work);
    settleDisk();
    await upsertOnce(0);
    const cp: number[] = [];
    const cpSync: number[] = [];
    const ups: number[] = [];
    const hashes: number[] = [];
    for (let i = 1; i <= runs; i++) {
      hashes.push(await settleHash(work));
      cp.push(cpOnce());
      cpSync.push(cpSyncOnce());
      rmSync(copy, { force: true });
      settleDisk();
      ups.push(await upsertOnce(i));
    }
    const back = await read(work, { mode: 'lines', ranges: [{ start, end }] });
    if (back.content !== replacement(runs)) throw new Error('the replaced lines did not read back as written');
    if (back.totalLines !== lines)
      throw new Error(`the file has ${back.totalLines} lines after replacing ${REPLACED_LINES} by ${REPLACED_LINES}, had ${lines}`);
    const ms = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
    process.stderr.write(`replace runs (ms): cp ${ms(cp)}; cp + sync ${ms(cpSync)}; upsert ${ms(ups)}; background hash ${ms(hashes)}\n`);
    return { size, lines, cpMs: median(cp), cpSyncMs: median(cpSync), upsertMs: median(ups), hashMs: median(hashes) };
  } finally {
    rmSync(copy, { force: true });
    rmSync(work, { force: true });
  }
}

interface AppendResult {
  size: number;
  /** appends back to back: each new version starts a background SHA-256 of the whole file */
  upsert: number[];
  /** appends after the background hash of the current version is done */
  upsertSettled: number[];
  raw: number[];
}

function rawAppend(file: string, line: string): number {
  const t = performance.now();
  const fd = openSync(file, 'a');
  try {
    writeSync(fd, line);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return performance.now() - t;
}

async function benchAppend(): Promise<AppendResult> {
  const source = syntheticLog(APPEND_LOG_BYTES);
  const work = join(DATA_DIR, 'append-2G.log');
  run('cp', [source, work]);
  try {
    warmPageCache(work);
    settleDisk();
    await openIndex(work);
    const size = fileSize(work);
    const line = (kind: string, i: number) => `2026-01-01T00:00:00.000Z INFO [bench] ${kind} append ${i}\n`;
    const raw: number[] = [];
    const appendLoop = async (kind: string, settle: boolean) => {
      const ups: number[] = [];
      for (let i = 0; i <= APPENDS; i++) {
        if (settle) await settleHash(work);
        // The read an agent makes first hands it the etag (untimed); the upsert is timed.
        const { version } = await read(work, { mode: 'tail', lines: 1 });
        const t = performance.now();
        await upsert(work, { target: { kind: 'append' }, content: line(kind, i), preconditions: { ifMatch: version.etag } });
        const ms = performance.now() - t;
        const rawMs = rawAppend(work, line(`${kind} raw`, i));
        if (i > 0) {
          ups.push(ms);
          if (!settle) raw.push(rawMs);
        }
      }
      const tail = await read(work, { mode: 'tail', lines: 2 });
      if (tail.content !== line(kind, APPENDS) + line(`${kind} raw`, APPENDS))
        throw new Error(`the appended lines did not read back: ${JSON.stringify(tail.content)}`);
      return ups;
    };
    const upsertSettled = await appendLoop('settled', true);
    const ups = await appendLoop('back-to-back', false);
    return { size, upsert: ups, upsertSettled, raw };
  } finally {
    rmSync(work, { force: true });
  }
}

export async function benchUpsert(o: BenchOptions): Promise<void> {
  process.env.FOLIO_CACHE_DIR = join(DATA_DIR, 'cache');
  const runs = o.runs;
  process.stderr.write(`upsert bench: replace in a 1 GiB log (median of ${runs}), ${APPENDS} appends to a 2 GiB log\n`);
  const r = await benchReplace(runs);
  const a = await benchAppend();
  await closeIndexPools();

  const ratio = (ms: number, base: number) => `${(ms / base).toFixed(2)}x`;
  const upMed = median(a.upsert);
  const upP99 = percentile(a.upsert, 99);
  const rawMed = median(a.raw);
  const rawP99 = percentile(a.raw, 99);
  const replaceRows: (string | number)[][] = [
    ['contender', 'median ms', 'throughput', 'time vs cp'],
    ['cp (copy stays in dirty pages)', r.cpMs.toFixed(0), gbps(r.size, r.cpMs), '1.00x'],
    ['cp + sync of the copy', r.cpSyncMs.toFixed(0), gbps(r.size, r.cpSyncMs), ratio(r.cpSyncMs, r.cpMs)],
    [`Folio upsert: replace ${REPLACED_LINES} middle lines (if_match)`, r.upsertMs.toFixed(0), gbps(r.size, r.upsertMs), ratio(r.upsertMs, r.cpMs)],
    ['Folio: background SHA-256 of a new version (untimed above)', r.hashMs.toFixed(0), gbps(r.size, r.hashMs), ratio(r.hashMs, r.cpMs)],
  ];
  const appendRows: (string | number)[][] = [
    ['contender', 'median ms', 'p99 ms', 'median vs bare append'],
    ['bare open(O_APPEND) + write + fsync + close', rawMed.toFixed(2), rawP99.toFixed(2), '1.00x'],
    ['Folio upsert: append a line (if_match), back to back', upMed.toFixed(2), upP99.toFixed(2), ratio(upMed, rawMed)],
    [
      'Folio upsert: append a line (if_match), background hash settled first',
      median(a.upsertSettled).toFixed(2),
      percentile(a.upsertSettled, 99).toFixed(2),
      ratio(median(a.upsertSettled), rawMed),
    ],
  ];
  const goals = [
    ['replace in a 1 GiB file <= 1.5x cp', r.upsertMs / r.cpMs <= 1.5, `${ratio(r.upsertMs, r.cpMs)} (${r.upsertMs.toFixed(0)} vs ${r.cpMs.toFixed(0)} ms)`],
    ['replace vs cp + sync, like for like (no goal set)', true, `${ratio(r.upsertMs, r.cpSyncMs)} (${r.upsertMs.toFixed(0)} vs ${r.cpSyncMs.toFixed(0)} ms)`],
    ['append to a 2 GiB log <= 5 ms (median)', upMed <= 5, `${upMed.toFixed(2)} ms`],
    ['append to a 2 GiB log <= 5 ms (p99)', upP99 <= 5, `${upP99.toFixed(2)} ms`],
    [
      'the same with the background hash settled (no goal set)',
      true,
      `median ${median(a.upsertSettled).toFixed(2)} ms, p99 ${percentile(a.upsertSettled, 99).toFixed(2)} ms`,
    ],
  ] as const;
  const out = [
    `## upsert (replace: ${(r.size / 1024 ** 3).toFixed(2)} GiB log, ${r.lines.toLocaleString('en-US')} lines, median of ${runs}; append: ${(a.size / 1024 ** 3).toFixed(2)} GiB log, ${a.upsert.length} appends)`,
    '',
    table(replaceRows),
    '',
    table(appendRows),
    '',
    table([['goal', 'met', 'measured'], ...goals.map(([g, ok, m]) => [g, ok ? 'yes' : 'NO', m])]),
    '',
  ].join('\n');
  process.stdout.write(out + '\n');
}
