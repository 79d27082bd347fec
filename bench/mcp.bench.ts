/**
 * `npm run bench -- mcp [--size 2G]`: Folio's MCP door against the reference MCP
 * filesystem server (@modelcontextprotocol/server-filesystem), both real child
 * processes over stdio, driven by the same SDK client in the same run:
 * - latency of Folio `read` of a 64 KiB byte window at random offsets of the
 *   synthetic log, against their `read_text_file` with head=100 on a small file;
 *   per KiB of content delivered, and at equal answer size (head=100 of the same
 *   file on both sides); the bytes of each answer (content, and the whole result
 *   with structuredContent); tools/list (its size and time) in the same table;
 * - what each serves of the big log: head, tail, the middle, the whole file.
 */
import { closeSync, mkdirSync, openSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { BenchOptions } from './main.ts';
import { prng } from '../test/fixtures/generate.ts';
import { answerOfResult } from '../src-main/doors/mcp/reply.ts';
import { DATA_DIR, fileSize, percentile, syntheticLog, table, warmPageCache } from './lib.ts';

const CALLS = 500;
const WARMUP = 50;
const WINDOW_BYTES = 64 * 1024;
const SMALL_LINES = 1000;
const THEIRS = 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js';

interface Answer {
  ok: boolean;
  text: string;
  /** the parsed JSON of `text`, parsed only when asked (never inside a timed call) */
  // Folio answers JSON; the reference server answers the file text.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly json?: any;
  structured?: unknown;
  /** characters of the whole result (content and structuredContent): what the client receives */
  resultChars?: number;
}

interface Server {
  name: string;
  client: Client;
  call(tool: string, args: Record<string, unknown>): Promise<Answer>;
}

function withJson(a: Omit<Answer, 'json'> & { body?: unknown }): Answer {
  return {
    ...a,
    get json() {
      if (a.body !== undefined) return a.body; // Folio's answer, a long text put back (doors/mcp/reply.ts)
      try {
        return JSON.parse(a.text);
      } catch {
        return undefined; // the reference server answers plain text
      }
    },
  };
}

async function connect(name: string, command: string, args: string[]): Promise<Server> {
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...(process.env as Record<string, string>), FOLIO_CACHE_DIR: join(DATA_DIR, 'cache') },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'folio-bench', version: '1.0.0' });
  await client.connect(transport);
  return {
    name,
    client,
    async call(tool, toolArgs) {
      try {
        const r = await client.callTool({ name: tool, arguments: toolArgs }, undefined, { timeout: 300_000 });
        const { text, body } = answerOfResult(r);
        const answer = withJson({ ok: r.isError !== true, text, structured: r.structuredContent, body });
        // Measured lazily, outside the timed call.
        Object.defineProperty(answer, 'resultChars', { get: () => JSON.stringify(r).length });
        return answer;
      } catch (err) {
        return withJson({ ok: false, text: err instanceof Error ? err.message : String(err) });
      }
    },
  };
}

interface Timing {
  p50: number;
  p99: number;
  /** bytes of text returned per call (median) */
  bytes: number;
  /** characters of the whole result per call (median) */
  resultChars: number;
}

/** `n` calls after `WARMUP` unmeasured ones; every answer must be ok. */
async function timeCalls(s: Server, n: number, make: () => [string, Record<string, unknown>], check: (a: Answer) => number): Promise<Timing> {
  for (let i = 0; i < WARMUP; i++) {
    const [tool, args] = make();
    const a = await s.call(tool, args);
    if (!a.ok) throw new Error(`${s.name} ${tool} ${JSON.stringify(args)} failed: ${a.text.slice(0, 500)}`);
  }
  const times: number[] = [];
  const bytes: number[] = [];
  const results: number[] = [];
  for (let i = 0; i < n; i++) {
    const [tool, args] = make();
    const t = performance.now();
    const a = await s.call(tool, args);
    times.push(performance.now() - t);
    if (!a.ok) throw new Error(`${s.name} ${tool} ${JSON.stringify(args)} failed: ${a.text.slice(0, 500)}`);
    bytes.push(check(a));
    results.push(a.resultChars ?? 0);
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99), bytes: percentile(bytes, 50), resultChars: percentile(results, 50) };
}

/** tools/list, `n` times after a warm-up: its time, and its size (characters of the tool list) as `bytes`. */
async function timeToolList(s: Server, n: number): Promise<Timing> {
  const { tools } = await s.client.listTools();
  const chars = JSON.stringify(tools).length;
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await s.client.listTools();
    times.push(performance.now() - t);
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99), bytes: chars, resultChars: chars };
}

async function timeOnce(s: Server, tool: string, args: Record<string, unknown>): Promise<{ ms: number; a: Answer }> {
  const t = performance.now();
  const a = await s.call(tool, args);
  return { ms: performance.now() - t, a };
}

export async function benchMcp(o: BenchOptions): Promise<void> {
  const big = syntheticLog(o.size);
  const size = fileSize(big);
  warmPageCache(big);
  // The small file: the first lines of the log, in its own folder under bench/.data.
  const smallDir = join(DATA_DIR, 'mcp-small');
  mkdirSync(smallDir, { recursive: true });
  const small = join(smallDir, 'small.log');
  const buf = Buffer.alloc(1 << 20);
  const fd = openSync(big, 'r');
  const got = readSync(fd, buf, 0, buf.length, 0);
  closeSync(fd);
  const smallText = buf.subarray(0, got).toString('utf8').split('\n').slice(0, SMALL_LINES).join('\n') + '\n';
  writeFileSync(small, smallText);

  process.stderr.write(`mcp bench: ${big} (${(size / 1024 ** 3).toFixed(2)} GiB); starting folio mcp and server-filesystem...\n`);
  // Both servers see the same tree: the whole of bench/.data.
  const folio = await connect('folio', process.execPath, ['bin/folio.mjs', 'mcp', '--root', DATA_DIR]);
  const theirs = await connect('server-filesystem', process.execPath, [THEIRS, DATA_DIR]);
  try {
    // A big file is hashed once in a background worker after its first read: measure
    // the steady state after that, not two cores shared with the hash.
    const t0 = performance.now();
    for (;;) {
      const a = await folio.call('read', { path: big, head: 1 });
      if (!a.ok) throw new Error(`folio read failed: ${a.text}`);
      if (a.json.version.sha256) break;
      if (performance.now() - t0 > 120_000) throw new Error('background SHA-256 did not finish in 120 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    const hashWaitMs = performance.now() - t0;

    const rand = prng(11);
    const contentBytes = (a: Answer) => Buffer.byteLength(a.json?.content ?? a.text);
    const folioWindow = await timeCalls(
      folio,
      CALLS,
      () => ['read', { path: big, start_byte: Math.floor(rand() * (size - WINDOW_BYTES)), max_bytes: WINDOW_BYTES }],
      contentBytes,
    );
    const folioHeadSmall = await timeCalls(folio, CALLS, () => ['read', { path: small, head: 100 }], contentBytes);
    const folioHeadBig = await timeCalls(folio, CALLS, () => ['read', { path: big, head: 100 }], contentBytes);
    const theirsHeadSmall = await timeCalls(theirs, CALLS, () => ['read_text_file', { path: small, head: 100 }], contentBytes);
    const folioPing = await timeCalls(
      folio,
      CALLS,
      () => ['file_info', { path: small }],
      (a) => a.text.length,
    );
    const theirsPing = await timeCalls(
      theirs,
      CALLS,
      () => ['get_file_info', { path: small }],
      (a) => a.text.length,
    );

    const folioList = await timeToolList(folio, 50);
    const theirsList = await timeToolList(theirs, 50);

    const base = theirsHeadSmall.p50;
    const usPerKiB = (t: Timing) => (1000 * t.p50) / (t.bytes / 1024);
    const baseUsPerKiB = usPerKiB(theirsHeadSmall);
    const ratio = (t: Timing) => `${(t.p50 / base).toFixed(2)}x`;
    const row = (name: string, t: Timing, perKiB = true) => [
      name,
      t.p50.toFixed(3),
      t.p99.toFixed(3),
      t.bytes,
      t.resultChars,
      perKiB ? usPerKiB(t).toFixed(1) : '-',
      ratio(t),
      perKiB ? `${(usPerKiB(t) / baseUsPerKiB).toFixed(2)}x` : '-',
    ];
    const rows: (string | number)[][] = [
      [
        'call (stdio MCP, same SDK client)',
        'p50 ms',
        'p99 ms',
        'content bytes (median)',
        'result chars (median)',
        'µs per KiB of content',
        'p50 vs theirs head=100',
        'per KiB vs theirs head=100',
      ],
      row(`Folio read, 64 KiB byte window at random offsets of the ${(size / 1024 ** 3).toFixed(0)} GiB log`, folioWindow),
      row(`Folio read head=100, ${(size / 1024 ** 3).toFixed(0)} GiB log`, folioHeadBig),
      row(`Folio read head=100, small file (${SMALL_LINES} lines): equal answer size`, folioHeadSmall),
      row(`server-filesystem read_text_file head=100, small file (baseline)`, theirsHeadSmall),
      row('Folio file_info, small file', folioPing, false),
      row('server-filesystem get_file_info, small file', theirsPing, false),
      [
        ...row('Folio tools/list (content bytes: characters of the tool list)', folioList, false).slice(0, 6),
        `${(folioList.p50 / theirsList.p50).toFixed(2)}x theirs`,
        `size ${(folioList.bytes / theirsList.bytes).toFixed(2)}x theirs`,
      ],
      [...row('server-filesystem tools/list', theirsList, false).slice(0, 6), '1.00x', 'size 1.00x'],
    ];

    // What each serves of the big log. server-filesystem has head, tail and the whole file; no offset.
    const mid = Math.floor(size / 2);
    const serveRows: (string | number)[][] = [['request on the big log', 'server', 'answer', 'ms', 'content bytes']];
    const outcome = (a: Answer) =>
      a.ok ? 'ok' : `FAILS: ${(a.json?.error?.code ? `${a.json.error.code}: ${a.json.error.message}` : a.text).replace(/\s+/g, ' ').slice(0, 110)}`;
    const probes: [string, Server, string, Record<string, unknown>][] = [
      ['head 100 lines', folio, 'read', { path: big, head: 100 }],
      ['head 100 lines', theirs, 'read_text_file', { path: big, head: 100 }],
      ['tail 100 lines', folio, 'read', { path: big, tail: 100 }],
      ['tail 100 lines', theirs, 'read_text_file', { path: big, tail: 100 }],
      ['the middle: 64 KiB at size/2', folio, 'read', { path: big, start_byte: mid, max_bytes: WINDOW_BYTES }],
      [
        'the middle: 100 lines at line N/2',
        folio,
        'read',
        { path: big, offset: Math.floor((await folio.call('file_info', { path: big })).json.lines / 2), limit: 100 },
      ],
      ['the whole file (their only way to the middle)', theirs, 'read_text_file', { path: big }],
      ['the whole file', folio, 'read', { path: big, full: true }],
    ];
    const served: Record<string, boolean> = {};
    for (const [what, s, tool, args] of probes) {
      const { ms, a } = await timeOnce(s, tool, args);
      served[`${s.name}:${what}`] = a.ok;
      serveRows.push([what, s.name, outcome(a), ms.toFixed(1), a.ok ? contentBytes(a) : 0]);
    }

    const goalRatio = folioWindow.p50 / base;
    const equalSize = folioHeadSmall.p50 / base;
    const perKiB = usPerKiB(folioWindow) / baseUsPerKiB;
    const theirsWholeFails = !served['server-filesystem:the whole file (their only way to the middle)'];
    const folioServesAll = ['head 100 lines', 'tail 100 lines', 'the middle: 64 KiB at size/2', 'the middle: 100 lines at line N/2'].every(
      (w) => served[`folio:${w}`],
    );
    const goals = [
      [
        'Folio 64 KiB window p50 <= 0.5x server-filesystem head=100 p50',
        goalRatio <= 0.5,
        `${goalRatio.toFixed(2)}x (${folioWindow.p50.toFixed(3)} vs ${base.toFixed(3)} ms)`,
      ],
      [
        'at equal answer size (head=100 of the same file) Folio p50 <= 0.5x theirs',
        equalSize <= 0.5,
        `${equalSize.toFixed(2)}x (${folioHeadSmall.p50.toFixed(3)} vs ${base.toFixed(3)} ms; ${folioHeadSmall.bytes} vs ${theirsHeadSmall.bytes} content bytes)`,
      ],
      [
        'per KiB delivered: Folio 64 KiB window <= 0.5x theirs head=100',
        perKiB <= 0.5,
        `${perKiB.toFixed(2)}x (${usPerKiB(folioWindow).toFixed(1)} vs ${baseUsPerKiB.toFixed(1)} µs/KiB)`,
      ],
      ['tools/list no bigger than theirs', folioList.bytes <= theirsList.bytes, `${folioList.bytes} vs ${theirsList.bytes} characters`],
      ['server-filesystem cannot serve the middle of the big log (whole-file read fails)', theirsWholeFails, theirsWholeFails ? 'fails' : 'it served it'],
      ['Folio serves head, tail and the middle of the big log', folioServesAll, folioServesAll ? 'all ok' : 'a request failed'],
    ] as const;

    const out = [
      `## mcp (stdio, ${CALLS} calls per row after ${WARMUP} warm-up; ${(size / 1024 ** 3).toFixed(2)} GiB synthetic log, page-cached)`,
      '',
      table(rows),
      '',
      table(serveRows),
      '',
      table([['goal', 'met', 'measured'], ...goals.map(([g, ok, m]) => [g, ok ? 'yes' : 'NO', m])]),
      '',
      `(waited ${(hashWaitMs / 1000).toFixed(1)} s for Folio's background SHA-256 of the log before measuring)`,
      '',
    ].join('\n');
    process.stdout.write(out + '\n');
  } finally {
    await Promise.all([folio.client.close(), theirs.client.close()]);
  }
}
