/**
 * A search never holds the server: while the regexes of issue 24 that backtrack
 * (or cost the linear engine a big automaton) run over a multi-MB file, a
 * `file_info` of another file sent after them is answered before any of them,
 * and each search answers `timeout` (or its result) within its budget plus a
 * generous margin. Over each door that shares the engine: the stdio MCP server
 * (real SDK client), MCP over HTTP at /api/mcp, and the app's POST /api/search.
 * The same for a token read deep inside a 300 KB line without a space: the
 * window is exact. Responsiveness is proved by the order of the answers, not by
 * wall time.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHttp, connectStdio, startServe, type McpSession, type RunningServe } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-search-responsive-');
const cacheDir = tmp.path('cache');
const ws = tmp.path('ws');
const BUDGET_MS = 1000;
/** Generous: a loaded CI machine, worker start-up, terminating a stuck worker. */
const MARGIN_MS = 20_000;
const ENV = { FOLIO_SEARCH_TIMEOUT_MS: String(BUDGET_MS) };

/** The patterns of issue 24 that blocked file_info for 11-84 s. */
const PATHOLOGICAL = ['(.*a){12}', '(a|aa)+$', '(a|a)*b', '^(a+)+b', '^(\\w+\\s?)*$', '(x+x+)+y'];

/** ~3 MB of lines each of which makes one of the patterns expensive. */
function adversarialText(): string {
  const lines = [
    'a'.repeat(999) + '!', // (a|aa)+$, (a|a)*b, ^(a+)+b
    'x'.repeat(400) + 'z', // (x+x+)+y
    'word '.repeat(150) + '!', // ^(\w+\s?)*$
    'ba-'.repeat(11) + 'b'.repeat(500), // (.*a){12}: eleven a's, one short
  ];
  const block = lines.join('\n') + '\n';
  return block.repeat(Math.ceil(3_000_000 / block.length));
}

/** 300 KB of letters, digits and symbols without a space or a newline. */
const LONG_LINE = (() => {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789!@#$%^&*()_+-=[]{};:,./<>?';
  let seed = 9;
  let s = '';
  for (let i = 0; i < 300_000; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    s += alphabet[seed % alphabet.length];
  }
  return s;
})();

beforeAll(() => {
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'big.txt'), adversarialText());
  writeFileSync(join(ws, 'tiny.txt'), 'x\n');
  writeFileSync(join(ws, 'long-line.txt'), LONG_LINE + '\n');
});
afterAll(() => tmp.cleanup());

type Outcome = { kind: 'search' | 'file_info'; ok: boolean; code?: string; ms: number };

/** file_info calls answered, one after another, before the first search answered. */
const PINGS_BEFORE_ANY_SEARCH = 3;

/**
 * Start every pathological search, then file_info calls of a 2-byte file, one
 * after another, until every search has answered; the answers in arrival order.
 * `search` answers `{ok, code}` (code: the error's).
 */
async function race(search: (pattern: string) => Promise<{ ok: boolean; code?: string }>, fileInfo: () => Promise<boolean>): Promise<Outcome[]> {
  const order: Outcome[] = [];
  const t0 = performance.now();
  let pending = PATHOLOGICAL.length;
  const searches = PATHOLOGICAL.map((p) =>
    search(p).then((r) => {
      pending--;
      order.push({ kind: 'search', ...r, ms: performance.now() - t0 });
    }),
  );
  while (pending > 0) {
    const ok = await fileInfo();
    order.push({ kind: 'file_info', ok, ms: performance.now() - t0 });
  }
  await Promise.all(searches);
  return order;
}

function expectResponsive(order: Outcome[]): void {
  const text = JSON.stringify(order.map((o) => (o.kind === 'file_info' ? 'f' : o)));
  // file_info calls sent after the searches are answered first, again and again: no search holds the server.
  const firstSearch = order.findIndex((o) => o.kind === 'search');
  expect(firstSearch, text).toBeGreaterThanOrEqual(PINGS_BEFORE_ANY_SEARCH);
  expect(order.filter((o) => o.kind === 'file_info').every((o) => o.ok)).toBe(true);
  const searches = order.filter((o) => o.kind === 'search');
  expect(searches).toHaveLength(PATHOLOGICAL.length);
  for (const o of searches) {
    // A result or the budget's timeout, never another failure, and the budget held (with a margin).
    if (!o.ok) expect(o.code, text).toBe('timeout');
    expect(o.ms, text).toBeLessThan(BUDGET_MS + MARGIN_MS);
  }
}

type Window = { content: string; start_byte: number; end_byte: number; tokens: { start_token: number; end_token: number } };

/**
 * A token read deep inside the 300 KB line, with file_info calls one after
 * another while it runs: the window is exact and file_info is never held.
 */
async function tokenRace(readWindow: () => Promise<Window>, fileInfo: () => Promise<boolean>): Promise<void> {
  const order: string[] = [];
  let done = false;
  const read = readWindow().then((w) => {
    done = true;
    order.push('read');
    return w;
  });
  do {
    expect(await fileInfo()).toBe(true);
    order.push('file_info');
  } while (!done);
  const w = await read;
  expect(order[0]).toBe('file_info');
  expect(w.tokens).toMatchObject({ start_token: 10_000, end_token: 10_100 });
  expect(w.content).toBe(LONG_LINE.slice(w.start_byte, w.end_byte));
  expect(w.content.length).toBeLessThan(1000);
}

async function mcpTokenRace(mcp: McpSession): Promise<void> {
  await tokenRace(
    async () => {
      const r = await mcp.call('read', { path: 'long-line.txt', token_start: 10_000, token_end: 10_100 });
      expect(r.isError, r.text).toBe(false);
      return r.body as Window;
    },
    async () => !(await mcp.call('file_info', { path: 'tiny.txt' })).isError,
  );
}

async function mcpRace(mcp: McpSession): Promise<Outcome[]> {
  // Warm up: the file's line index is built before the race (an index build is not a search).
  expect((await mcp.call('file_info', { path: 'big.txt' })).isError).toBe(false);
  return race(
    async (pattern) => {
      const r = await mcp.call('search', { path: 'big.txt', pattern });
      return { ok: !r.isError, code: r.isError ? r.body.error?.code : undefined };
    },
    async () => !(await mcp.call('file_info', { path: 'tiny.txt' })).isError,
  );
}

/** The bearer token of /api/mcp: the agent's, which opens nothing else (the person's `token` is refused there). */
function mcpBearer(state: RunningServe['state']): string {
  return state.agent_token;
}

describe('a pathological search or a token read of a 300 KB line never holds the server', () => {
  it(
    'stdio MCP: file_info answers before every running search and during a token read; searches keep their budget, the window is exact',
    { timeout: 180_000 },
    async () => {
      const mcp = await connectStdio(ws, { cacheDir, env: ENV });
      try {
        expectResponsive(await mcpRace(mcp));
        await mcpTokenRace(mcp);
      } finally {
        await mcp.close();
      }
    },
  );

  describe('folio serve', () => {
    let serve: RunningServe;
    beforeAll(async () => {
      serve = await startServe(ws, cacheDir, ENV);
    });
    afterAll(async () => {
      await serve?.stop();
    });

    it(
      'MCP over HTTP (/api/mcp): file_info answers before every running search and during a token read; budget kept, window exact',
      { timeout: 180_000 },
      async () => {
        const mcp = await connectHttp(serve.state.mcp, mcpBearer(serve.state));
        try {
          expectResponsive(await mcpRace(mcp));
          await mcpTokenRace(mcp);
        } finally {
          await mcp.close();
        }
      },
    );

    it(
      "the app's POST /api/search and /api/read (the person's bearer token): file_info answers first; budget kept, window exact",
      { timeout: 180_000 },
      async () => {
        const post = async (op: string, body: object) => {
          const res = await fetch(`${serve.origin}/api/${op}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${serve.state.token}` },
            body: JSON.stringify(body),
          });
          const json = (await res.json()) as { error?: { code: string } };
          return { ok: res.status === 200, code: json.error?.code, status: res.status };
        };
        const big = join(ws, 'big.txt');
        expect((await post('file_info', { path: big })).ok).toBe(true);
        const order = await race(
          (pattern) => post('search', { path: big, pattern }),
          async () => (await post('file_info', { path: join(ws, 'tiny.txt') })).ok,
        );
        expectResponsive(order);
        await tokenRace(
          async () => {
            const res = await fetch(`${serve.origin}/api/read`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: `Bearer ${serve.state.token}` },
              body: JSON.stringify({ path: join(ws, 'long-line.txt'), token_start: 10_000, token_end: 10_100 }),
            });
            expect(res.status).toBe(200);
            return (await res.json()) as Window;
          },
          async () => (await post('file_info', { path: join(ws, 'tiny.txt') })).ok,
        );
      },
    );
  });
});
