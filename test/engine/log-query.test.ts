/**
 * The query engine on its own: a query that runs on is stopped at its time limit
 * and by its signal (its process is killed, nothing hangs or spins on, even a
 * query looping inside SQLite that no worker thread could be stopped in); a huge answer is
 * capped at limit; rows stream, so a log many times the worker's heap is queried
 * whole in that heap; continuation lines fold into the row above and lines
 * before the first stamp are rows of their own.
 */
import { existsSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { liveQueryPids, liveQueryWorkers, queryLogs, spareQueryPid } from '../../src-main/engine/search/log-query.ts';
import { keysOf, namedKeysOf } from '../../src-main/engine/search/log-rows.mjs';
import { selectsAll } from '../../src-main/engine/search/log-query-worker.mjs';
import { readFileSync } from 'node:fs';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { writeQueryLog } from '../fixtures/query-log.ts';

const tmp = engineTempDir();
/** How many of this process's open files are `path` (0 where /proc is missing: the checks then hold trivially). */
function openCountOf(path: string): number {
  if (!existsSync('/proc/self/fd')) return 0;
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === path) n++;
    } catch {
      // closed while we looked
    }
  }
  return n;
}

/** Resolves once `holds()` is true (checked every 10 ms), rejects after 30 s. */
async function until(holds: () => boolean): Promise<void> {
  const end = Date.now() + 30_000;
  while (!holds()) {
    if (Date.now() > end) throw new Error('condition not met within 30 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** 2000³ row triples, each a row the query process's JS reads: hours. */
const FOREVER = 'SELECT count(*) FROM log a, log b, log c';
/**
 * Counting for ever inside SQLite, never calling back into JS: a worker thread
 * running it could not be terminated (V8 stops a thread when it next runs JS) and
 * spun on after its call answered; a process is killed wherever it is.
 */
const FOREVER_IN_SQLITE = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c';

/** Whether process `pid` is gone (kill 0 answers ESRCH; a zombie not yet reaped still counts as there). */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Resolves once this process spent under 100 ms of CPU in a 500 ms window (no thread of it spinning); at most 30 s. */
async function untilIdle(): Promise<void> {
  for (let i = 0; i < 60; i++) {
    const before = process.cpuUsage();
    await new Promise((r) => setTimeout(r, 500));
    const spent = process.cpuUsage(before);
    if ((spent.user + spent.system) / 1000 < 100) return;
  }
  throw new Error('this process did not go idle within 30 s');
}

/** Process `pid`'s CPU time so far, ms (utime + stime in /proc/<pid>/stat, 10 ms ticks); Infinity without /proc. */
function cpuMsOf(pid: number): number {
  if (!existsSync(`/proc/${pid}/stat`)) return Infinity;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The one query process's pid, once it has spent 1 s of CPU (a node start is ~0.2 s: it is in SQLite's loop). */
async function spinningQueryPid(): Promise<number> {
  await until(() => liveQueryPids().length === 1);
  const pid = liveQueryPids()[0]!;
  await until(() => cpuMsOf(pid) >= 1000);
  return pid;
}

describe('queryLogs', () => {
  const small = tmp.path('small.log');
  writeQueryLog(small, { lines: 2000 });

  it('stops a query that runs on at its time limit', async () => {
    const t0 = performance.now();
    await expect(queryLogs([small], FOREVER, { timeoutMs: 300 })).rejects.toMatchObject({ code: 'timeout' });
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  it('cancels a query when its signal aborts', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    await expect(queryLogs([small], FOREVER, { signal: ac.signal })).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('a query looping inside SQLite, cancelled, stops: its process is gone and no CPU is spent', async () => {
    await until(() => liveQueryWorkers() === 0);
    const ac = new AbortController();
    const run = queryLogs([small], FOREVER_IN_SQLITE, { signal: ac.signal });
    const pid = await spinningQueryPid();
    expect(isGone(pid)).toBe(false);
    ac.abort();
    await expect(run).rejects.toMatchObject({ code: 'cancelled' });
    await until(() => isGone(pid));
    expect(liveQueryWorkers()).toBe(0);
    expect(openCountOf(small)).toBe(0);
    await untilIdle();
  });

  it('a query looping inside SQLite stops at its time limit: its process is gone and no CPU is spent', async () => {
    await until(() => liveQueryWorkers() === 0);
    const run = queryLogs([small], FOREVER_IN_SQLITE, { timeoutMs: 1500 });
    const pid = liveQueryPids()[0]!;
    await expect(run).rejects.toMatchObject({ code: 'timeout' });
    await until(() => isGone(pid));
    expect(liveQueryWorkers()).toBe(0);
    await untilIdle();
  });

  it.skipIf(process.platform !== 'linux')('runs the next query in the process started ahead, which reopens the files and is killed alike', async () => {
    await until(() => liveQueryWorkers() === 0);
    const first = await queryLogs([small], 'SELECT count(*) FROM log');
    await until(() => spareQueryPid() !== undefined);
    const spare = spareQueryPid()!;
    expect(isGone(spare)).toBe(false);
    const running = queryLogs([small], 'SELECT count(*) FROM log');
    expect(liveQueryPids()).toEqual([spare]);
    expect((await running).rows).toEqual(first.rows);
    await until(() => isGone(spare));
    await until(() => spareQueryPid() !== undefined);
    const next = spareQueryPid()!;
    const ac = new AbortController();
    const run = queryLogs([small], FOREVER_IN_SQLITE, { signal: ac.signal });
    expect(liveQueryPids()).toEqual([next]);
    expect(openCountOf(small)).toBe(1); // ours: the child's copy is its own
    await until(() => cpuMsOf(next) >= 1000);
    ac.abort();
    await expect(run).rejects.toMatchObject({ code: 'cancelled' });
    await until(() => isGone(next));
    expect(openCountOf(small)).toBe(0);
    await untilIdle();
  });

  it('answers too_large when the answer outgrows its process heap, and the process is gone', async () => {
    await until(() => liveQueryWorkers() === 0);
    // 100,000 strings of 1000 characters: ~100 MB of JS strings in a 16 MiB heap.
    const sql = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 100000) SELECT hex(zeroblob(500)) FROM c';
    await expect(queryLogs([small], sql, { heapMb: 16, limit: 100_000 })).rejects.toMatchObject({ code: 'too_large' });
    expect(liveQueryWorkers()).toBe(0);
    expect(openCountOf(small)).toBe(0);
  });

  it('keeps SQLite values a JSON channel would lose: Infinity, -0, a blob as base64', async () => {
    const r = await queryLogs([small], "SELECT 1e999, -1e999, -0.0, x'00ff'");
    expect(r.rows).toEqual([[Infinity, -Infinity, -0, 'AP8=']]);
  });

  it('a cancelled or timed-out query leaves no worker and no file open', async () => {
    await until(() => liveQueryWorkers() === 0); // the tests above stopped theirs: gone soon after
    const ac = new AbortController();
    const run = queryLogs([small], FOREVER, { signal: ac.signal });
    expect(liveQueryWorkers()).toBe(1);
    expect(openCountOf(small)).toBe(1);
    ac.abort();
    await expect(run).rejects.toMatchObject({ code: 'cancelled' });
    await expect(queryLogs([small], FOREVER, { timeoutMs: 200 })).rejects.toMatchObject({ code: 'timeout' });
    await until(() => liveQueryWorkers() === 0);
    expect(openCountOf(small)).toBe(0);
  });

  it('answers not_found for a missing file and closes the files it opened before it', async () => {
    const missing = tmp.path('missing.log');
    await expect(queryLogs([small, missing], 'SELECT count(*) FROM log')).rejects.toMatchObject({ code: 'not_found', details: { paths: [small, missing] } });
    expect(liveQueryWorkers()).toBe(0);
    expect(openCountOf(small)).toBe(0);
  });

  it('caps a big answer at limit and says so', async () => {
    const r = await queryLogs([small], 'SELECT * FROM log', { limit: 10 });
    expect(r.rows).toHaveLength(10);
    expect(r.capped).toBe(true);
    expect(r.links!.map((l) => l!.line)).toEqual(r.rows.map((row) => row[1]));
    const all = await queryLogs([small], 'SELECT count(*) FROM log', { limit: 10 });
    expect(all.capped).toBe(false);
  });

  it('computes every column for a * that selects them all, and not for a product or count(*)', async () => {
    const all = [
      'SELECT * FROM log',
      'select distinct * from log',
      'SELECT ALL * FROM log',
      'SELECT line, * FROM log',
      'SELECT log.* FROM log',
      'SELECT /* all of it */ * FROM log',
      'SELECT\n  *\nFROM log',
      "SELECT '*', * FROM log",
      'SELECT amount * 2, * FROM log',
    ];
    const some = [
      'SELECT count(*) FROM log',
      'SELECT sum(amount * 100) FROM log',
      'SELECT line, dur_ms*2 FROM log',
      "SELECT '*' FROM log WHERE message LIKE '%*%'",
      'SELECT "a*b" FROM log',
      'SELECT line FROM log -- no * here',
      'SELECT count( * ) FROM log',
    ];
    expect(all.filter((sql) => !selectsAll(sql))).toEqual([]);
    expect(some.filter((sql) => selectsAll(sql))).toEqual([]);
    // A product beside the columns it names: the same rows as the same sum written without *.
    const product = await queryLogs([small], 'SELECT count(*), sum(CAST(round(amount * 100) AS INTEGER)), sum(dur_ms * 2) FROM log', {});
    const quotient = await queryLogs([small], 'SELECT count(*), sum(CAST(round(amount / 0.01) AS INTEGER)), sum(dur_ms / 0.5) FROM log', {});
    expect(product.rows).toEqual(quotient.rows);
    expect(product.rows[0]![1]).toBeGreaterThan(0);
    // Every column of a row read through *, with a product beside it.
    const star = await queryLogs([small], 'SELECT *, dur_ms * 2 AS twice FROM log WHERE dur_ms IS NOT NULL LIMIT 3', {});
    const named = await queryLogs([small], 'SELECT time, level, message, raw, fields, dur_ms FROM log WHERE dur_ms IS NOT NULL LIMIT 3', {});
    const at = (name: string) => star.columns.indexOf(name);
    expect(star.rows.map((r) => [r[at('time')], r[at('level')], r[at('message')], r[at('raw')], r[at('fields')], r[at('dur_ms')]])).toEqual(named.rows);
    expect(star.rows.map((r) => r[at('twice')])).toEqual(named.rows.map((r) => (r[5] as number) * 2));
  });

  it('folds unstamped lines into the row above; lines before the first stamp are rows', async () => {
    const f = tmp.path('trace.log');
    writeFileSync(
      f,
      [
        'starting up',
        '2024-05-01T00:00:00Z INFO boot done port=80',
        '2024-05-01T00:00:01Z ERROR crash {"user":"u1","depth":{"a":1}}',
        '    at a (x.js:1)',
        '    at b (x.js:2)',
        '2024-05-01T00:00:02Z WARN slow user="u 2" ms=12.5',
        '',
      ].join('\n'),
    );
    const r = await queryLogs([f], 'SELECT line, lines, time, level, message, user, depth, ms, port FROM log');
    expect(r.rows).toEqual([
      [1, 1, null, 'other', 'starting up', null, null, null, null],
      [2, 1, '2024-05-01T00:00:00.000Z', 'info', 'boot done port=80', null, null, null, 80],
      [3, 3, '2024-05-01T00:00:01.000Z', 'error', 'crash {"user":"u1","depth":{"a":1}}\n    at a (x.js:1)\n    at b (x.js:2)', 'u1', '{"a":1}', null, null],
      [6, 1, '2024-05-01T00:00:02.000Z', 'warn', 'slow user="u 2" ms=12.5', 'u 2', null, 12.5, null],
    ]);
  });

  it('reads keys of key=value pairs and a JSON body', () => {
    expect(keysOf('done user=u1 status=200 path=/a,b="x y"')).toEqual({ user: 'u1', status: 200, path: '/a', b: 'x y' });
    expect(keysOf('event {"ok":true,"n":null,"a":[1]}')).toEqual({ ok: 1, n: null, a: '[1]' });
    expect(keysOf('no keys here')).toBeNull();
  });

  it('finds the keys a query names as keysOf reads them all, on every message of a log', () => {
    const names = ['user', 'status', 'amount', 'ok', 'missing'];
    const messages = [
      ...readFileSync(small, 'utf8')
        .split('\n')
        .map((l) => l.slice(l.indexOf(']') + 2)),
      'a=1 a=2 user=x {"user":"y"}',
      'xuser=1 user="q r"',
      'status=',
    ];
    for (const m of messages) {
      const all = keysOf(m);
      const picked = Object.fromEntries(Object.entries(all ?? {}).filter(([k]) => names.includes(k)));
      expect(namedKeysOf(m, names) ?? {}, m).toEqual(picked);
    }
  });

  it('streams a log many times its heap: 64 MiB queried in a 16 MiB query heap', async () => {
    const big = tmp.path('big.log');
    const w = writeQueryLog(big, { bytes: 64 << 20 });
    const r = await queryLogs([big], 'SELECT count(*), sum(lines), max(length(raw)), count(status), count(amount) FROM log', { heapMb: 16 });
    expect(r.rows[0]![0]).toBe(w.stamped);
    expect(r.rows[0]![1]).toBe(w.lines);
    expect(Number(r.rows[0]![3]) + Number(r.rows[0]![4])).toBe(w.stamped);
  }, 240_000);
});
