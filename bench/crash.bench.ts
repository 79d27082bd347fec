/**
 * `npm run bench -- crash`: crash safety, in full.
 * - Append latency: a one-line append to a 2 GiB log (a copy under bench/.data) by
 *   upsert under if_match, against a bare open(O_APPEND) + write + fsync + close
 *   measured in the same run; and a 32 MiB append (the intent path: size recorded
 *   and fsynced first) against the bare append of the same bytes.
 * - The kill loops of test/engine/append-crash.test.ts and
 *   test/review/journal-crash.test.ts with the full counts: 40 kills of 32 MiB
 *   appends; approve, undo and redo on a 64 MiB file, 70 kills each (210). Prints
 *   kills, torn files and journal disagreements (all must be 0).
 * - The CLI append kill loop of test/engine/append-kill-families.test.ts in full:
 *   appends of 1 KiB to 32 MiB in four size families, 50 kills each (200), each
 *   followed by the next process's read + append + read, with a reader child
 *   reading all along. Prints per family: kills, where they landed, next-write
 *   failures, duplicated appends, cut lines, internal errors (all but kills must be 0).
 * FOLIO_CRASH_KILLS_SCALE (e.g. 0.1) scales the kill counts down for a quick look;
 * FOLIO_CRASH_ONLY=append-families runs the CLI append loop alone; FOLIO_CRASH_LOG=1
 * prints each of its steps (and the counts so far) on stderr.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { closeIndexPools } from '../src-main/engine/index/builder.ts';
import { openIndex } from '../src-main/engine/index/store.ts';
import { read } from '../src-main/engine/read/read.ts';
import { upsert } from '../src-main/engine/write/upsert.ts';
import { appendKillFamilies, familiesTable } from '../test/fixtures/append-kill-families.ts';
import { appendKillLoop } from '../test/fixtures/append-kill-loop.ts';
import { journalKillLoop } from '../test/fixtures/journal-kill-loop.ts';
import type { BenchOptions } from './main.ts';
import { DATA_DIR, median, percentile, syntheticLog, table, warmPageCache } from './lib.ts';
import { spawnSync } from 'node:child_process';

const LOG_BYTES = 2 * 1024 ** 3;
const LINE_APPENDS = 100;
const BIG_APPEND_BYTES = 32 * 1024 * 1024;
const BIG_APPENDS = 5;
const APPEND_KILLS = 40;
const APPEND_BLOCK_BYTES = 32 * 1024 * 1024;
const JOURNAL_KILLS = 70;
const FAMILY_KILLS = 50;
const JOURNAL_FILE_BYTES = 64 * 1024 * 1024;

function bareAppend(file: string, bytes: Uint8Array): number {
  const t = performance.now();
  const fd = openSync(file, 'a');
  try {
    for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return performance.now() - t;
}

async function timedUpsertAppend(file: string, content: string): Promise<number> {
  const { version } = await read(file, { mode: 'tail', lines: 1 });
  const t = performance.now();
  await upsert(file, { target: { kind: 'append' }, content, preconditions: { ifMatch: version.etag } });
  return performance.now() - t;
}

async function benchAppendLatency(): Promise<void> {
  const work = join(DATA_DIR, 'crash-append-2G.log');
  const cp = spawnSync('cp', [syntheticLog(LOG_BYTES), work]);
  if (cp.status !== 0) throw new Error(`cp failed: ${cp.stderr}`);
  try {
    warmPageCache(work);
    await openIndex(work);
    const line = (i: number) => `2026-01-01T00:00:00.000Z INFO [crash bench] append ${i}\n`;
    const ups: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i <= LINE_APPENDS; i++) {
      const ms = await timedUpsertAppend(work, line(i));
      const b = bareAppend(work, Buffer.from(line(i)));
      if (i === 0) continue; // warm-up
      ups.push(ms);
      bare.push(b);
    }
    const big = Buffer.alloc(BIG_APPEND_BYTES, 'b');
    for (let i = 0; i < BIG_APPEND_BYTES; i += 128) big[i + 127] = 10;
    const bigUps: number[] = [];
    const bigBare: number[] = [];
    for (let i = 0; i < BIG_APPENDS; i++) {
      bigUps.push(await timedUpsertAppend(work, big.toString('latin1')));
      bigBare.push(bareAppend(work, big));
    }
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
    process.stdout.write(
      `\n### crash safety: append latency (2 GiB log, same-run baseline)\n\n${table([
        ['contender', 'median ms', 'p99 ms', 'vs bare append'],
        ['bare O_APPEND + write + fsync, one line', median(bare).toFixed(2), percentile(bare, 99).toFixed(2), '1.00x'],
        ['Folio upsert append, one line (if_match)', median(ups).toFixed(2), percentile(ups, 99).toFixed(2), ratio(median(ups), median(bare))],
        ['bare O_APPEND + write + fsync, 32 MiB', median(bigBare).toFixed(1), '', '1.00x'],
        ['Folio upsert append, 32 MiB (intent, all-or-nothing)', median(bigUps).toFixed(1), '', ratio(median(bigUps), median(bigBare))],
      ])}\n`,
    );
  } finally {
    rmSync(work, { force: true });
  }
}

async function benchKills(scale: number): Promise<void> {
  const dir = join(DATA_DIR, `crash-kills-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    const rows: (string | number)[][] = [['loop', 'kills', 'mid-write kills', 'torn', 'disagreements', 'first problem']];
    const a = await appendKillLoop({ dir, blockBytes: APPEND_BLOCK_BYTES, kills: Math.ceil(APPEND_KILLS * scale), seed: 1 });
    rows.push([`append ${APPEND_BLOCK_BYTES >> 20} MiB blocks`, a.kills, `${a.midAppend} (${a.cutOnDisk} mid-copy)`, a.torn, '-', a.firstTorn ?? '']);
    process.stderr.write(`crash bench: appends ${JSON.stringify({ ...a, appendMs: undefined })}\n`);
    for (const [i, family] of (['approve', 'undo', 'redo', 'own'] as const).entries()) {
      const j = await journalKillLoop({ dir, family, fileBytes: JOURNAL_FILE_BYTES, kills: Math.ceil(JOURNAL_KILLS * scale), seed: 7 + i });
      rows.push([
        `${family}, ${JOURNAL_FILE_BYTES >> 20} MiB file`,
        j.kills,
        `${j.betweenWriteAndCommit} (write done, commit not)`,
        j.torn,
        j.disagreements,
        j.firstProblem ?? '',
      ]);
      process.stderr.write(`crash bench: ${JSON.stringify(j)}\n`);
    }
    process.stdout.write(`\n### crash safety: kill loops\n\n${table(rows)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function benchAppendFamilies(scale: number): Promise<void> {
  const dir = join(DATA_DIR, `crash-families-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    const log = process.env.FOLIO_CRASH_LOG ? (line: string) => process.stderr.write(`crash bench: ${line}\n`) : undefined;
    const f = await appendKillFamilies({ dir, kills: Math.ceil(FAMILY_KILLS * scale), seed: 24, log });
    const title = `CLI appends of 1 KiB-32 MiB killed, then read + append + read (${(f.ms / 1000).toFixed(0)} s)`;
    process.stdout.write(`\n### crash safety: ${title}\n\n${table(familiesTable(f))}\n`);
    for (const [name, s] of Object.entries(f.families)) for (const p of s.problems.slice(0, 5)) process.stderr.write(`crash bench: ${name}: ${p}\n`);
    if (f.reader.firstProblem) process.stderr.write(`crash bench: reader: ${f.reader.firstProblem}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchCrash(_opts: BenchOptions): Promise<void> {
  const scale = Number(process.env.FOLIO_CRASH_KILLS_SCALE) || 1;
  // FOLIO_CRASH_ONLY=append-families runs that loop alone (it takes minutes by itself).
  const only = process.env.FOLIO_CRASH_ONLY;
  try {
    if (only !== 'append-families') {
      await benchAppendLatency();
      await benchKills(scale);
    }
    await benchAppendFamilies(scale);
  } finally {
    await closeIndexPools();
  }
}
