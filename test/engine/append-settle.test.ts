/**
 * After a killed append, the next Folio process (a reader too) settles the dead
 * intent, and no index the file does not match is trusted: the next write never
 * fails on what the killed one left, and an index found wrong is dropped rather
 * than failing every call until the cache folder is removed. The kill loop over
 * real processes is append-kill-families.test.ts; these pin each case down.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, openSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendIntentPathOf } from '../../src-main/engine/index/append-limit.ts';
import { withFileLock } from '../../src-main/engine/index/file-lock.ts';
import { forgetIndexes, openIndex } from '../../src-main/engine/index/store.ts';
import { read } from '../../src-main/engine/read/read.ts';
import { upsert } from '../../src-main/engine/write/upsert.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';

const tmp = engineTempDir();

const OLD = 'an old line of the log\n'.repeat(400); // 9200 bytes
const APPEND = Buffer.from('a new line A\na new line B\n'.repeat(400)); // spans pages

/** A pid no process has: a child that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '']);
  return r.pid!;
}

/** `path` holding OLD, then the first `cut` bytes of APPEND, with the intent of writer `pid` beside it. */
function killedAppend(name: string, pid: number, cut: number): string {
  const p = tmp.path(name);
  writeFileSync(p, OLD);
  writeFileSync(appendIntentPathOf(p), `${pid}\n${OLD.length}\n${APPEND.length}\n`);
  appendFileSync(p, APPEND.subarray(0, cut));
  return p;
}

describe('a dead append is settled by the next process, readers included', () => {
  it('a read settles it: the etag it answers is the one the next append is checked against', async () => {
    const p = killedAppend('read-settles.log', deadPid(), 5000);
    const seen = await read(p, { mode: 'tail', lines: 1 });
    expect(seen.version.size).toBe(OLD.length);
    expect(statSync(p).size).toBe(OLD.length);
    expect(existsSync(appendIntentPathOf(p))).toBe(false);
    // Before settling reads, the writer's truncation moved the version: precondition_failed.
    const res = await upsert(p, { target: { kind: 'append' }, content: 'the next line\n', preconditions: { ifMatch: seen.version.etag } });
    expect(res.applied).toBe(true);
    expect(readFileSync(p, 'utf8')).toBe(`${OLD}the next line\n`);
  });

  it("a reader never settles a live writer's append, nor one whose lock is held; it settles once the lock is free", async () => {
    const p = killedAppend('live.log', process.pid, 5000);
    const cutSize = OLD.length + 5000;
    // A live writer's: hidden, untouched.
    expect((await read(p, { mode: 'tail', lines: 1 })).version.size).toBe(OLD.length);
    expect(statSync(p).size).toBe(cutSize);
    // A dead writer's, while a writer holds the lock (it settles it itself): hidden, untouched, no wait.
    writeFileSync(appendIntentPathOf(p), `${deadPid()}\n${OLD.length}\n${APPEND.length}\n`);
    await withFileLock(p, async () => {
      const r = await read(p, { mode: 'tail', lines: 1 });
      expect(r.version.size).toBe(OLD.length);
      expect(r.content).toBe('an old line of the log\n');
      expect(statSync(p).size).toBe(cutSize);
    });
    // The lock is free: the next read settles it.
    expect((await read(p, { mode: 'tail', lines: 1 })).version.size).toBe(OLD.length);
    expect(statSync(p).size).toBe(OLD.length);
    expect(existsSync(appendIntentPathOf(p))).toBe(false);
  });

  it('an index is not saved for the next process while an append is in flight', async () => {
    const p = tmp.path('in-flight.log');
    writeFileSync(p, 'a line of a log big enough to be cached\n'.repeat(40_000)); // 1.6 MB
    const size = statSync(p).size;
    writeFileSync(appendIntentPathOf(p), `${process.pid}\n${size}\n${APPEND.length}\n`);
    appendFileSync(p, APPEND.subarray(0, 5000));
    forgetIndexes();
    const cacheDir = process.env.FOLIO_CACHE_DIR!;
    const before = existsSync(cacheDir) ? readdirSync(cacheDir).length : 0;
    expect((await openIndex(p)).size).toBe(size);
    expect(existsSync(cacheDir) ? readdirSync(cacheDir).length : 0).toBe(before);
  });
});

describe('an index that does not match its file is never trusted twice', () => {
  /** A 2 MiB log of numbered lines, its index built and cached, then forgotten in memory (as by a new process). */
  async function cachedLog(name: string): Promise<{ p: string; text: string }> {
    const p = tmp.path(name);
    const text = Array.from({ length: 60_000 }, (_, i) => `line ${String(i + 1).padStart(6, '0')} of the log\n`).join('');
    writeFileSync(p, text);
    utimesSync(p, 1_700_000_000, 1_700_000_000); // whole seconds: restorable exactly
    forgetIndexes();
    await openIndex(p);
    forgetIndexes();
    return { p, text };
  }

  it('a cached table that does not cover its size is not used', async () => {
    const { p } = await cachedLog('short-table.log');
    const dir = process.env.FOLIO_CACHE_DIR!;
    const idx = readdirSync(dir).map((f) => join(dir, f));
    for (const f of idx) {
      const b = readFileSync(f);
      writeFileSync(f, b.subarray(0, b.length - 8)); // two blocks short
    }
    const r = await read(p, { mode: 'lines', ranges: [{ start: 59_990, end: 59_990 }] });
    expect(r.content).toBe('line 059990 of the log\n');
  });

  it('an append whose cached index cannot follow it answers success, and its bytes are in once', async () => {
    const { p, text } = await cachedLog('append-short-table.log');
    const dir = process.env.FOLIO_CACHE_DIR!;
    for (const f of readdirSync(dir).map((f) => join(dir, f))) {
      const b = readFileSync(f);
      writeFileSync(f, b.subarray(0, b.length - 8));
    }
    // Before: the read failed (conflict), and so did every call until the cache was removed.
    const seen = await read(p, { mode: 'tail', lines: 1 });
    const res = await upsert(p, { target: { kind: 'append' }, content: 'appended once\n', preconditions: { ifMatch: seen.version.etag } });
    expect(res.applied).toBe(true);
    expect(res.range_after.start_line).toBe(60_001);
    expect(readFileSync(p, 'utf8')).toBe(`${text}appended once\n`);
  });

  it('an index found wrong mid-read is a typed conflict once, then rebuilt: the next read answers', async () => {
    const { p, text } = await cachedLog('moved-newline.log');
    // Same size, same mtime, same edges: the last newline of block 10 moved to block 20.
    // The cache cannot see it (it checks the edges only); the read finds it.
    const from = text.lastIndexOf('\n', 11 * 65536 - 1); // the last newline of block 10
    const to = text.indexOf('\n', 20 * 65536 + 100) - 1;
    const fd = openSync(p, 'r+');
    writeSync(fd, 'x', from);
    writeSync(fd, '\n', to);
    closeSync(fd);
    utimesSync(p, 1_700_000_000, 1_700_000_000);
    const lineOf = (n: number) => read(p, { mode: 'lines', ranges: [{ start: n, end: n }] });
    // The line after the moved newline: its start is looked up by that newline.
    const after = text.slice(0, from).split('\n').length + 1;
    await expect(lineOf(after)).rejects.toMatchObject({ code: 'conflict' });
    // Then a fresh index: the line after the moved newline is read right.
    const again = await lineOf(after);
    const now = readFileSync(p, 'utf8').split('\n');
    expect(again.content).toBe(`${now[after - 1]}\n`);
  });
});
