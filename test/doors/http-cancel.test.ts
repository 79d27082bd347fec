/**
 * A request the client abandons stops the work on the server (issue 31): the HTTP
 * door aborts the call's signal when the connection closes before the answer, and
 * `query` kills its process. Observed from outside a real `folio serve` child:
 * the server opens the log for the query's process and closes it once that has
 * exited, so /proc/<pid>/fd of the server names the log while the query runs and
 * no longer once its process is gone. A search has no such mark, nor a query
 * looping inside SQLite (what a worker thread could not be stopped in): their CPU
 * time is read instead (/proc/<pid>/stat, of the server and its children).
 * Linux only (/proc).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, mkdirSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServe } from '../fixtures/mcp-client.ts';
import { tempDir, writeLogFile } from '../fixtures/generate.ts';
import { writeQueryLog } from '../fixtures/query-log.ts';
import { httpRequest } from './http-request.ts';

const tmp = tempDir('folio-http-cancel-');
const ws = tmp.path('ws');
const log = join(ws, 'app.log');
let stamped = 0;
let serve: RunningServe;
/** 20 000² row pairs, each a row read and parsed: hours, never done within the test. */
const CROSS_JOIN = 'SELECT count(*) FROM log a, log b WHERE a.message < b.message';

beforeAll(async () => {
  mkdirSync(ws, { recursive: true });
  stamped = writeQueryLog(log, { lines: 20_000 }).stamped;
  // The whole backreference search below takes seconds of CPU, more on a loaded machine: past the default
  // 10 s budget it would answer timeout (504), which is not what the test is about.
  serve = await startServe(ws, tmp.path('cache'), { FOLIO_SEARCH_TIMEOUT_MS: String(600_000) });
});
afterAll(async () => {
  await serve?.stop();
  tmp.cleanup();
});

/** How many of the server's open files are `path`. */
function openCountOf(pid: number, path: string): number {
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) === path) n++;
    } catch {
      // closed while we looked
    }
  }
  return n;
}

/** Resolves once `holds()` is true, checking every 20 ms; rejects after `deadlineMs` saying what was awaited. */
async function until(what: string, holds: () => boolean, deadlineMs = 60_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!holds()) {
    if (Date.now() > end) throw new Error(`not within ${deadlineMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The server's CPU time so far, ms (utime + stime, /proc/<pid>/stat, in clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The pids whose parent is `pid` (/proc/<n>/stat's fourth field). */
function childrenOf(pid: number): number[] {
  const kids: number[] = [];
  for (const n of readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    try {
      if (Number(readFileSync(`/proc/${n}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === pid) kids.push(Number(n));
    } catch {
      // gone while we looked
    }
  }
  return kids;
}

/**
 * CPU time, ms, of the server and every process under it: its own, its reaped
 * children's (cutime + cstime) and its live children's. A query's process is a child.
 */
function treeCpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  let ms = (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 10;
  for (const kid of childrenOf(pid)) {
    try {
      ms += treeCpuMsOf(kid);
    } catch {
      // exited while we looked: its time is in its parent's cutime now
    }
  }
  return ms;
}

/** Resolves once the server (and its children) spent under 30 ms of CPU in a 500 ms window (nothing running); at most 60 s. */
async function untilIdle(pid: number): Promise<void> {
  for (let i = 0; i < 120; i++) {
    const before = treeCpuMsOf(pid);
    await new Promise((r) => setTimeout(r, 500));
    if (treeCpuMsOf(pid) - before < 30) return;
  }
  throw new Error('the server did not go idle within 60 s');
}

/** POST /api/query as the person; the request, to destroy, and whether it was answered. */
function startQuery(sql: string): { req: ClientRequest; answered: () => boolean; closed: Promise<void> } {
  let answered = false;
  const req = request(`${serve.origin}/api/query`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${serve.state.token}`, 'Content-Type': 'application/json' },
  });
  req.on('response', () => (answered = true));
  const closed = new Promise<void>((resolve) => req.once('close', () => resolve()));
  req.on('error', () => {}); // destroying it is the point
  req.end(JSON.stringify({ paths: [log], sql }));
  return { req, answered: () => answered, closed };
}

describe.skipIf(process.platform !== 'linux')('folio serve stops the work of a request its client abandons', () => {
  it('a query whose request is aborted has its process killed; the next query answers', { timeout: 180_000 }, async () => {
    const pid = serve.state.pid;
    expect(openCountOf(pid, log)).toBe(0);
    const slow = startQuery(CROSS_JOIN);
    await until('the query worker has the log open', () => openCountOf(pid, log) > 0);
    expect(slow.answered()).toBe(false);
    slow.req.destroy();
    await slow.closed;
    // Without the abort the worker would scan on for hours (its time limit is 10 min).
    await until('the worker is gone and the log closed', () => openCountOf(pid, log) === 0);
    const next = await httpRequest(`${serve.origin}/api/query`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${serve.state.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ paths: [log], sql: 'SELECT count(*) AS n FROM log' }),
    });
    expect(next.status).toBe(200);
    expect((JSON.parse(next.text) as { rows: number[][] }).rows).toEqual([[stamped]]);
    await until("the answered query's worker is gone too", () => openCountOf(pid, log) === 0);
  });

  it('a query looping inside SQLite whose request is aborted stops: the server goes idle', { timeout: 180_000 }, async () => {
    const pid = serve.state.pid;
    await untilIdle(pid);
    const start = treeCpuMsOf(pid);
    // Never calls back into JS: a worker thread running it spun on for ever after the abort.
    const spin = startQuery('WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c');
    await until('the query spins (1.5 s of CPU under the server)', () => treeCpuMsOf(pid) - start >= 1500);
    expect(spin.answered()).toBe(false);
    // The spinning one; another child may be the idle process started ahead for the next query.
    const spinning = childrenOf(pid).filter((kid) => treeCpuMsOf(kid) >= 1000);
    expect(spinning).toHaveLength(1);
    spin.req.destroy();
    await spin.closed;
    await until('the query process is gone and the log closed', () => openCountOf(pid, log) === 0 && !childrenOf(pid).includes(spinning[0]!));
    await untilIdle(pid);
  });

  it('two queries at once, one aborted: the other runs on to its answer', { timeout: 180_000 }, async () => {
    const pid = serve.state.pid;
    const slow = startQuery(CROSS_JOIN);
    await until('the slow query has the log open', () => openCountOf(pid, log) === 1);
    const kept = httpRequest(`${serve.origin}/api/query`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${serve.state.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ paths: [log], sql: "SELECT count(*) AS n FROM log WHERE level = 'error'" }),
    });
    slow.req.destroy();
    const answer = await kept;
    expect(answer.status).toBe(200);
    const errors = Number(execFileSync('grep', ['-cE', '^[0-9TZ:.-]+ ERROR ', log], { encoding: 'utf8' }));
    expect(errors).toBeGreaterThan(0);
    expect((JSON.parse(answer.text) as { rows: number[][] }).rows).toEqual([[errors]]);
    await until('the aborted worker is gone', () => openCountOf(pid, log) === 0);
  });

  it('a search whose request is aborted stops: the server spends a fraction of the whole search', { timeout: 300_000 }, async () => {
    const pid = serve.state.pid;
    const big = join(ws, 'big.log');
    writeLogFile(big, 128 * 1024 * 1024, 5);
    // A backreference keeps the search in V8's backtracking engine: seconds of CPU for 128 MiB.
    const search = { path: big, pattern: '(\\w+) \\1 ', count_only: true };
    const post = (signal?: AbortSignal) =>
      fetch(`${serve.origin}/api/search`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${serve.state.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(search),
        ...(signal ? { signal } : {}),
      });
    expect((await post()).status).toBe(200); // the index is built
    await untilIdle(pid);
    let start = cpuMsOf(pid);
    const whole = await post();
    expect(whole.status).toBe(200);
    expect(((await whole.json()) as { count: number }).count).toBeGreaterThan(0);
    await untilIdle(pid);
    const wholeMs = cpuMsOf(pid) - start;
    expect(wholeMs).toBeGreaterThan(500);

    start = cpuMsOf(pid);
    const ac = new AbortController();
    const aborted = post(ac.signal).catch((err: Error) => err);
    await until('the search is running', () => cpuMsOf(pid) - start >= 50);
    ac.abort();
    expect(await aborted).toBeInstanceOf(Error);
    await untilIdle(pid);
    expect(cpuMsOf(pid) - start).toBeLessThan(wholeMs / 2);
  });
});
