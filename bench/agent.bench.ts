/**
 * `npm run bench -- agent [--size 2G]`: twelve scripted agent tasks, done the same way
 * through Folio (`folio mcp --review auto`) and through the reference MCP filesystem
 * server (@modelcontextprotocol/server-filesystem), both real child processes over
 * stdio driven by the same SDK client, each on its own fresh copy of the workspace.
 *
 * The "agent" is a deterministic script, not a model: per task it opens a session,
 * reads tools/list (its bytes count once per session as bytes sent to the agent),
 * then makes the calls a sensible agent would make with that server's tools, the
 * way their descriptions suggest, using what earlier answers told it. Counted per
 * task and server: tool calls, bytes sent to the agent (tools/list + the text of
 * every tool result, errors included), bytes sent by the agent (each call's
 * arguments as JSON), wall time from tools/list to the last answer (process start
 * and MCP initialize excluded), and success: the files are byte-identical to the
 * result computed here independently.
 *
 * Tasks (the agent is told the paths, on both sides):
 * 1. create src/util/slug.ts (its folder does not exist; Folio's workspace config
 *    sets create_folders: true, the filesystem server has create_directory);
 * 2. rename fetchOrder -> loadOrder, 2 places in each of 3 files of ~300 lines;
 * 3. fix one line in the middle of the synthetic log of --size (2 GiB);
 * 4. append 3 lines to a 1 MiB log;
 * 5. create a file, move one (changing its first line), delete one;
 * 6. change one value in a CRLF file;
 * 7. change one line of a UTF-16 file;
 * 8. change one function in a 200,000-line source file;
 * 9. rewrite one section of a 5,000-section markdown file;
 * 10. set one order's status in a 50 MB JSON export (JSONPath first);
 * 11. a stale edit: a person changes the value between the agent's read and its edit;
 * 12. change one constant in a 5 MB one-line minified bundle.
 * Then latency: MCP initialize and one quote edit, each against the filesystem server.
 *
 * Run `npm run build:cli` first: bin/folio.mjs runs the TypeScript sources through
 * tsx when dist/cli.mjs is older than them, and that slows every Folio session.
 */
import { createHash } from 'node:crypto';
import { closeSync, copyFileSync, createReadStream, existsSync, mkdirSync, openSync, readFileSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { BenchOptions } from './main.ts';
import { DATA_DIR, fileSize, syntheticLog, table } from './lib.ts';

const THEIRS = 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js';
/** What one call may take before the agent gives up on it (the 2 GiB task). */
const CALL_TIMEOUT_MS = 120_000;
const WS_ROOT = join(DATA_DIR, 'agent');

type Side = 'folio' | 'filesystem';

interface Answer {
  ok: boolean;
  text: string;
}

/** What one task cost one server. */
interface Tally {
  calls: number;
  toAgent: number;
  toolsListBytes: number;
  fromAgent: number;
  ms: number;
  /** each request and its ms, in order */
  steps: string[];
  success: boolean;
  note: string;
}

/**
 * One agent session: a fresh server process, tools/list once, then counted calls.
 * The client keeps the SDK's default cap on one message (10 MiB, what SDK-based agent
 * hosts get): a bigger answer closes the connection, and the agent host restarts the
 * server (`restart`, tools/list counted again).
 */
class Session {
  private client!: Client;
  private t0 = 0;
  /** the connection closed under the last call */
  closed = false;
  readonly tally: Tally = { calls: 0, toAgent: 0, toolsListBytes: 0, fromAgent: 0, ms: 0, steps: [], success: false, note: '' };

  private constructor(
    private readonly side: Side,
    private readonly ws: string,
  ) {}

  /** The workspace this session's server works on (for what a person does meanwhile). */
  get root(): string {
    return this.ws;
  }

  static async open(side: Side, ws: string): Promise<Session> {
    const s = new Session(side, ws);
    await s.connect();
    s.t0 = performance.now();
    await s.listTools();
    return s;
  }

  private async connect(): Promise<void> {
    const args = this.side === 'folio' ? ['bin/folio.mjs', 'mcp', '--root', this.ws, '--review', 'auto'] : [THEIRS, this.ws];
    const transport = new StdioClientTransport({
      command: process.execPath,
      args,
      env: { ...(process.env as Record<string, string>), FOLIO_CACHE_DIR: join(DATA_DIR, 'cache') },
      stderr: 'ignore',
    });
    this.client = new Client({ name: 'folio-bench-agent', version: '1.0.0' });
    await this.client.connect(transport);
    this.closed = false;
  }

  private async listTools(): Promise<void> {
    const t = performance.now();
    const bytes = Buffer.byteLength(JSON.stringify(await this.client.listTools()));
    this.tally.toolsListBytes += bytes;
    this.tally.toAgent += bytes;
    this.tally.steps.push(`tools/list ${(performance.now() - t).toFixed(0)}`);
    this.tally.ms = performance.now() - this.t0;
  }

  /** What an agent host does when the server's connection closed: start it again and list its tools. */
  async restart(): Promise<void> {
    await this.client.close();
    this.tally.steps.push('restart');
    await this.connect();
    await this.listTools();
  }

  /** One tool call; a failure (tool error or timeout) is an answer the agent reads too. */
  async call(tool: string, args: Record<string, unknown>): Promise<Answer> {
    this.tally.calls++;
    this.tally.fromAgent += Buffer.byteLength(JSON.stringify(args));
    let a: Answer;
    const t = performance.now();
    try {
      const r = await this.client.callTool({ name: tool, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS });
      a = { ok: r.isError !== true, text: (r.content as { text?: string }[]).map((c) => c.text ?? '').join('') };
    } catch (err) {
      a = { ok: false, text: err instanceof Error ? err.message : String(err) };
      this.closed = /Connection closed/.test(a.text);
    }
    this.tally.toAgent += Buffer.byteLength(a.text);
    this.tally.steps.push(`${tool} ${(performance.now() - t).toFixed(0)}`);
    this.tally.ms = performance.now() - this.t0;
    return a;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

const must = (a: Answer, what: string): Answer => {
  if (!a.ok) throw new Error(`${what} failed: ${a.text.slice(0, 300)}`);
  return a;
};

// ---- the workspace ----------------------------------------------------------------

const SLUG_PATH = 'src/util/slug.ts';
const SLUG_TS = `/** URL slugs: lower-case ASCII words joined by dashes, stable across runs. */

const COMBINING_MARKS = /[\\u0300-\\u036f]/g;
const NOT_WORD = /[^a-z0-9]+/g;
const EDGE_DASHES = /^-+|-+$/g;

export interface SlugOptions {
  /** longest slug, cut at a dash where possible (default 80) */
  maxLength?: number;
  /** joins the words (default "-") */
  separator?: string;
}

/** "Grüße aus Köln!" -> "grusse-aus-koln" */
export function slugOf(text: string, options: SlugOptions = {}): string {
  const maxLength = options.maxLength ?? 80;
  const separator = options.separator ?? '-';
  const ascii = text
    .normalize('NFKD')
    .replace(COMBINING_MARKS, '')
    .replace(/ß/g, 'ss')
    .toLowerCase();
  const slug = ascii.replace(NOT_WORD, '-').replace(EDGE_DASHES, '');
  return cut(slug, maxLength).split('-').join(separator);
}

/** The slug cut to \`maxLength\`, at its last dash when there is one. */
function cut(slug: string, maxLength: number): string {
  if (slug.length <= maxLength) return slug;
  const head = slug.slice(0, maxLength);
  const dash = head.lastIndexOf('-');
  return dash > 0 ? head.slice(0, dash) : head;
}

/** A slug not yet in \`taken\`: "name", then "name-2", "name-3" ... */
export function uniqueSlugOf(text: string, taken: ReadonlySet<string>): string {
  const base = slugOf(text);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(\`\${base}-\${n}\`)) return \`\${base}-\${n}\`;
}
`;

const OLD_NAME = 'fetchOrder';
const NEW_NAME = 'loadOrder';
const RENAME_FILES = ['src/orders/api.ts', 'src/orders/service.ts', 'src/orders/cache.ts'];

/** A TypeScript module of ~300 lines using `fetchOrder` twice (a definition or import, and a call). */
function orderModule(file: string, seed: number): string {
  const filler = (from: number, to: number) => {
    const out: string[] = [];
    for (let i = from; i < to; i++) {
      const n = seed * 100 + i;
      out.push(
        `/** Line totals of an order, variant ${n}. */`,
        `export function lineTotals${n}(order: Order): number[] {`,
        `  const rate = ${(1 + (n % 7) / 100).toFixed(2)};`,
        `  return order.items.map((item) => Math.round(item.price * item.qty * rate * 100) / 100);`,
        `}`,
        ``,
      );
    }
    return out;
  };
  const head =
    file === 'src/orders/api.ts'
      ? [`import type { Order } from './types.ts';`, ``, `const BASE = 'https://orders.example.test/v1';`, ``]
      : [`import type { Order } from './types.ts';`, `import { ${OLD_NAME} } from './api.ts';`, ``];
  const first =
    file === 'src/orders/api.ts'
      ? [
          `export async function ${OLD_NAME}(id: string): Promise<Order> {`,
          '  const res = await fetch(`${BASE}/orders/${encodeURIComponent(id)}`);',
          '  if (!res.ok) throw new Error(`order ${id}: HTTP ${res.status}`);',
          `  return (await res.json()) as Order;`,
          `}`,
          ``,
        ]
      : [];
  const call =
    file === 'src/orders/api.ts'
      ? [`export async function orderTotal(id: string): Promise<number> {`, `  const order = await ${OLD_NAME}(id);`]
      : file === 'src/orders/service.ts'
        ? [`export async function confirmOrder(orderId: string): Promise<Order> {`, `  const order = await ${OLD_NAME}(orderId);`]
        : [`export async function refreshCached(key: string, cache: Map<string, Order>): Promise<number> {`, `  const order = await ${OLD_NAME}(key);`];
  const callEnd =
    file === 'src/orders/api.ts'
      ? [`  return lineTotals${seed * 100}(order).reduce((a, b) => a + b, 0);`, `}`, ``]
      : file === 'src/orders/service.ts'
        ? [`  if (order.items.length === 0) throw new Error(\`order \${orderId} is empty\`);`, `  return order;`, `}`, ``]
        : [`  cache.set(key, order);`, `  return cache.size;`, `}`, ``];
  return [...head, ...filler(0, 25), ...first, ...filler(25, 40), ...call, ...callEnd, ...filler(40, 50)].join('\n');
}

const APP_LOG = 'logs/app.log';
const APPENDED = [
  '2026-01-02T00:00:00.000Z INFO [api] bench agent appended line 1 {"req":"a1","ms":1,"ok":true}',
  '2026-01-02T00:00:00.037Z WARN [api] bench agent appended line 2 {"req":"a2","ms":2,"ok":true}',
  '2026-01-02T00:00:00.074Z INFO [api] bench agent appended line 3 {"req":"a3","ms":3,"ok":true}',
];

const BIG_LOG = 'logs/big.log';
const MARKER_QUOTE = 'order=ord-4711 amount=12,50 EUR';
const FIXED_QUOTE = 'order=ord-4711 amount=12.50 EUR';
const MARKER_LINE = `2026-01-01T12:00:00.000Z ERROR [billing] charge failed ${MARKER_QUOTE} {"req":"bench-agent","ms":0,"ok":false}`;
const FIXED_LINE = MARKER_LINE.replace(MARKER_QUOTE, FIXED_QUOTE);

/** The big log: the synthetic log with MARKER_LINE inserted at the first line start past its middle. */
interface BigLog {
  source: string;
  insertAt: number;
}

/** Copies `source` to `dest` with `line` inserted at byte `at`, in 8 MiB chunks. */
function writeWithInsertedLine(source: string, dest: string, at: number, line: string): void {
  const inFd = openSync(source, 'r');
  const outFd = openSync(dest, 'w');
  try {
    const buf = Buffer.allocUnsafe(8 << 20);
    let pos = 0;
    const copyUpTo = (end: number) => {
      while (pos < end) {
        const got = readSync(inFd, buf, 0, Math.min(buf.length, end - pos), pos);
        if (got === 0) break;
        writeSync(outFd, buf, 0, got);
        pos += got;
      }
    };
    copyUpTo(at);
    writeSync(outFd, `${line}\n`);
    copyUpTo(Number.MAX_SAFE_INTEGER);
  } finally {
    closeSync(inFd);
    closeSync(outFd);
  }
}

/** SHA-256 of the concatenation of byte ranges of files and literal strings, streamed. */
async function sha256Of(parts: ({ file: string; start?: number; end?: number } | string)[]): Promise<string> {
  const h = createHash('sha256');
  for (const p of parts) {
    if (typeof p === 'string') {
      h.update(p);
      continue;
    }
    if (p.end !== undefined && p.end <= (p.start ?? 0)) continue;
    const stream = createReadStream(p.file, { start: p.start, end: p.end === undefined ? undefined : p.end - 1, highWaterMark: 8 << 20 });
    for await (const chunk of stream) h.update(chunk as Buffer);
  }
  return h.digest('hex');
}

/** Fresh workspaces for both servers, with the same files (Folio's also holds its folio.config.json). */
// Tasks 5-7: a file to delete, one to move (its first line changed on the way), a CRLF file, a UTF-16 file.
const LEGACY = 'src/legacy/old-orders.ts';
const DRAFT = 'src/orders/draft.ts';
const FINAL = 'src/orders/final.ts';
const CREATED = 'src/orders/index.ts';
const CREATED_TS = "export * from './final.ts';\nexport * from './api.ts';\n";
const DRAFT_TS = '// draft: not used yet\n' + Array.from({ length: 30 }, (_, i) => `export const step${i} = ${i};\n`).join('');
const FINAL_TS = DRAFT_TS.replace('// draft: not used yet', '// the order steps');
const INI_LINES = Array.from({ length: 200 }, (_, i) => (i === 120 ? 'timeout = 30' : `key${i} = value${i}`));
const INI = 'conf/service.ini';
const UTF16 = 'conf/labels.txt';
const LABELS = Array.from({ length: 100 }, (_, i) => (i === 60 ? 'checkout = Zur Kasse' : `label${i} = Beschriftung ${i} (Größe)`));
const utf16le = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
// Tasks 8-9: a 200,000-line source file, a markdown file of 5,000 sections.
const HUGE_TS = 'src/generated/handlers.ts';
const HUGE_LINES = Array.from({ length: 200_000 }, (_, i) =>
  i % 4 === 0
    ? `export function handler${i / 4}(input: Input): Output {`
    : i % 4 === 1
      ? `  const value = compute(input, ${i});`
      : i % 4 === 2
        ? '  return wrap(value);'
        : '}',
);
const TARGET_FN = 31_337;
const HUGE_OLD = `export function handler${TARGET_FN}(input: Input): Output {\n  const value = compute(input, ${TARGET_FN * 4 + 1});`;
const HUGE_NEW = `export function handler${TARGET_FN}(input: Input): Output {\n  const value = computeChecked(input, ${TARGET_FN * 4 + 1});`;
const MANUAL = 'docs/manual.md';
const MANUAL_TEXT = Array.from({ length: 5000 }, (_, i) => `## Section ${i + 1}\n\nThe text of section ${i + 1}.\nIt has two lines.\n\n`).join('');
const SECTION = 'Section 2500';
const SECTION_NEW = `## ${SECTION}\n\nRewritten: the text of section 2500.\n\n`;
// Task 10: a 50 MB JSON export (pretty-printed, 2 spaces), one order's status to change.
const ORDERS_JSON = 'data/orders.json';
const ORDER_COUNT = 178_000;
const TARGET_ORDER = 'ord-123457';
const orderOf = (i: number) => ({
  id: `ord-${100_000 + i}`,
  customer: `cust-${(i * 7919) % 50_000}`,
  status: i % 3 === 0 ? 'shipped' : 'pending',
  total: Math.round(((i * 37) % 10_000) * 1.5) / 100,
  items: Array.from({ length: 1 + (i % 3) }, (_, k) => ({ sku: `sku-${(i + k * 13) % 9_999}`, qty: 1 + ((i + k) % 4) })),
});
/** The export with the target order's status set to `status` (its own is 'pending'). */
const builtJson = new Map<string, Buffer>();
function ordersJson(targetStatus = 'pending'): Buffer {
  const built = builtJson.get(targetStatus);
  if (built) return built;
  const orders = Array.from({ length: ORDER_COUNT }, (_, i) => orderOf(i));
  const target = orders.find((o) => o.id === TARGET_ORDER)!;
  target.status = targetStatus;
  const bytes = Buffer.from(JSON.stringify({ exported_at: '2026-11-01T00:00:00Z', orders }, null, 2) + '\n');
  builtJson.set(targetStatus, bytes);
  return bytes;
}
// Task 11: a config a person changes between the agent's read and its edit.
const LIMITS = 'conf/limits.yaml';
const LIMITS_LINES = Array.from({ length: 120 }, (_, i) => (i === 70 ? 'max_connections: 100' : `limit_${i}: ${i * 10}`));
const LIMITS_TEXT = LIMITS_LINES.join('\n') + '\n';
/** What the person does meanwhile: raises the limit to 150 and adds a comment above it. */
const LIMITS_BY_PERSON = LIMITS_TEXT.replace('max_connections: 100', '# raised for the sale (ops)\nmax_connections: 150');
// Task 12: a 5 MB minified bundle on one line, one constant to change.
const BUNDLE = 'dist/app.min.js';
const BUNDLE_OLD = 'apiBase:"https://api-v1.example.test"';
const BUNDLE_NEW = 'apiBase:"https://api-v2.example.test"';
let builtBundle: Buffer | undefined;
function bundleJs(): Buffer {
  if (builtBundle) return builtBundle;
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < 5_000_000; i++) {
    const p = `function f${i}(a,b){var c=a+${i}*b;return c>${i % 97}?g${i % 50}(c,"k${i}"):h(c,[${i % 7},${i % 11}])}`;
    parts.push(p);
    size += p.length;
    if (i === 40_000) parts.push(`var cfg={${BUNDLE_OLD},retries:3};`);
  }
  return (builtBundle = Buffer.from('"use strict";' + parts.join(';') + '\n'));
}

const SMALL_FILES: Record<string, Buffer> = {
  [HUGE_TS]: Buffer.from(HUGE_LINES.join('\n') + '\n'),
  [MANUAL]: Buffer.from(MANUAL_TEXT),
  [LEGACY]: Buffer.from('export const legacy = true;\n'),
  [DRAFT]: Buffer.from(DRAFT_TS),
  [INI]: Buffer.from(INI_LINES.join('\r\n') + '\r\n'),
  [UTF16]: utf16le(LABELS.join('\n') + '\n'),
  [LIMITS]: Buffer.from(LIMITS_TEXT),
};

function makeWorkspaces(bigSource: string, appSource: string): { ws: Record<Side, string>; big: BigLog } {
  rmSync(WS_ROOT, { recursive: true, force: true });
  const ws: Record<Side, string> = { folio: join(WS_ROOT, 'folio'), filesystem: join(WS_ROOT, 'filesystem') };
  const buf = Buffer.alloc(64 * 1024);
  const fd = openSync(bigSource, 'r');
  const mid = Math.floor(fileSize(bigSource) / 2);
  const got = readSync(fd, buf, 0, buf.length, mid);
  closeSync(fd);
  const nl = buf.subarray(0, got).indexOf(0x0a);
  if (nl < 0) throw new Error('no line end near the middle of the log');
  const big: BigLog = { source: bigSource, insertAt: mid + nl + 1 };
  const [orders, bundle] = [ordersJson(), bundleJs()];
  for (const side of ['folio', 'filesystem'] as const) {
    const root = ws[side];
    mkdirSync(join(root, 'src/orders'), { recursive: true });
    mkdirSync(join(root, 'logs'), { recursive: true });
    RENAME_FILES.forEach((f, i) => writeFileSync(join(root, f), orderModule(f, i + 1)));
    for (const [path, bytes] of Object.entries(SMALL_FILES)) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), bytes);
    }
    copyFileSync(appSource, join(root, APP_LOG));
    for (const [path, bytes] of [
      [ORDERS_JSON, orders],
      [BUNDLE, bundle],
    ] as const) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), bytes);
    }
    if (side === 'folio') {
      writeFileSync(join(root, 'folio.config.json'), JSON.stringify({ create_folders: true }, null, 2) + '\n');
      writeWithInsertedLine(bigSource, join(root, BIG_LOG), big.insertAt, MARKER_LINE);
    } else {
      copyFileSync(join(ws.folio, BIG_LOG), join(root, BIG_LOG));
    }
  }
  return { ws, big };
}

// ---- the tasks: what each scripted agent does ---------------------------------------

interface Task {
  name: string;
  run: Record<Side, (s: Session) => Promise<void>>;
  /** '' when the workspace holds exactly the expected result; else what differs */
  check(root: string): Promise<string>;
}

const textOf = (root: string, path: string) => readFileSync(join(root, path), 'utf8');

/** The smallest run of whole lines starting at `lineIdx` whose text occurs once in `content`. */
function uniqueQuote(lines: string[], lineIdx: number, content: string): string {
  for (let n = 1; lineIdx + n <= lines.length; n++) {
    const quote = lines.slice(lineIdx, lineIdx + n).join('\n');
    if (content.indexOf(quote) === content.lastIndexOf(quote)) return quote;
  }
  throw new Error(`no unique quote from line ${lineIdx + 1}`);
}

function tasks(o: BenchOptions, big: BigLog, appSource: string): Task[] {
  const sizeLabel = `${(o.size / 1024 ** 3).toFixed(o.size >= 1024 ** 3 ? 0 : 2)} GiB`;
  const renameExpected = (f: string, i: number) =>
    orderModule(f, i + 1)
      .split(OLD_NAME)
      .join(NEW_NAME);
  return [
    {
      name: `1. create ${SLUG_PATH} (${SLUG_TS.split('\n').length - 1} lines, new folder)`,
      run: {
        folio: async (s) => {
          must(await s.call('upsert', { path: SLUG_PATH, target: { whole_file: true }, content: SLUG_TS, if_none_match: '*' }), 'upsert');
        },
        filesystem: async (s) => {
          must(await s.call('create_directory', { path: 'src/util' }), 'create_directory');
          must(await s.call('write_file', { path: SLUG_PATH, content: SLUG_TS }), 'write_file');
        },
      },
      check: async (root) => (textOf(root, SLUG_PATH) === SLUG_TS ? '' : `${SLUG_PATH} differs`),
    },
    {
      name: `2. rename ${OLD_NAME} -> ${NEW_NAME}, 6 places in 3 files`,
      run: {
        // One search of the folder (per-file counts checked), then one edit of the 3 files, all or none.
        folio: async (s) => {
          const hits = JSON.parse(must(await s.call('search', { path: 'src/orders', pattern: `\\b${OLD_NAME}\\b` }), 'search').text);
          const counts = Object.fromEntries((hits.files as { path: string; count: number }[]).map((f) => [`src/orders/${f.path}`, f.count]));
          for (const path of RENAME_FILES) if (counts[path] !== 2) throw new Error(`${path}: expected 2 hits, search found ${counts[path]}`);
          const edits = RENAME_FILES.map((path) => ({ path, old_text: OLD_NAME, new_text: NEW_NAME, replace_all: true }));
          must(await s.call('edit', { edits }), 'edit');
        },
        // No content search (search_files matches names): read the 3 files in one call, then
        // edit_file per file with one edit per occurrence, each quoting its whole line
        // ("replaces exact line sequences"), widened to more lines if the line is not unique.
        filesystem: async (s) => {
          const all = must(await s.call('read_multiple_files', { paths: RENAME_FILES }), 'read_multiple_files').text;
          const sections = all.split('\n---\n');
          for (const [i, path] of RENAME_FILES.entries()) {
            const section = sections[i]!;
            if (!section.startsWith(`${path}:\n`)) throw new Error(`read_multiple_files: section ${i} is not ${path}`);
            const content = section.slice(path.length + 2, -1);
            const lines = content.split('\n');
            const edits = lines.flatMap((line, idx) => {
              if (!line.includes(OLD_NAME)) return [];
              const oldText = uniqueQuote(lines, idx, content);
              return [{ oldText, newText: oldText.split(OLD_NAME).join(NEW_NAME) }];
            });
            must(await s.call('edit_file', { path, edits }), 'edit_file');
          }
        },
      },
      check: async (root) =>
        RENAME_FILES.filter((f, i) => textOf(root, f) !== renameExpected(f, i))
          .map((f) => `${f} differs`)
          .join('; '),
    },
    {
      name: `3. fix one line in the middle of the ${sizeLabel} log`,
      run: {
        // Find the line, then quote the part to change: the quote is the precondition.
        folio: async (s) => {
          const hits = JSON.parse(must(await s.call('search', { path: BIG_LOG, pattern: 'order=ord-4711', max: 10 }), 'search').text);
          if (hits.count !== 1 || !hits.matches[0].text.includes(MARKER_QUOTE)) throw new Error(`search: ${JSON.stringify(hits).slice(0, 300)}`);
          must(await s.call('edit', { path: BIG_LOG, edits: [{ old_text: MARKER_QUOTE, new_text: FIXED_QUOTE }] }), 'edit');
        },
        // No content search and no offset reads: the whole file is the only way to the
        // middle. Then, as if the agent knew the exact line, edit_file with it (it reads the
        // whole file too). Each call may take CALL_TIMEOUT_MS.
        filesystem: async (s) => {
          const read = await s.call('read_text_file', { path: BIG_LOG });
          if (s.closed) await s.restart();
          const edit = await s.call('edit_file', { path: BIG_LOG, edits: [{ oldText: MARKER_LINE, newText: FIXED_LINE }] });
          const why = (a: Answer) => (a.ok ? 'ok' : a.text.replace(/\s+/g, ' ').slice(0, 140));
          s.tally.note = `read_text_file: ${why(read)}; edit_file: ${why(edit)}`;
        },
      },
      check: async (root) => {
        const src = { file: big.source };
        const [want, got] = await Promise.all([
          sha256Of([{ ...src, end: big.insertAt }, `${FIXED_LINE}\n`, { ...src, start: big.insertAt }]),
          sha256Of([{ file: join(root, BIG_LOG) }]),
        ]);
        if (want === got) return '';
        const before = await sha256Of([{ ...src, end: big.insertAt }, `${MARKER_LINE}\n`, { ...src, start: big.insertAt }]);
        return before === got ? 'file unchanged' : 'file differs from both the expected result and the original';
      },
    },
    {
      name: `4. append 3 lines to a 1 MiB log`,
      run: {
        folio: async (s) => {
          const info = JSON.parse(must(await s.call('file_info', { path: APP_LOG }), 'file_info').text);
          must(
            await s.call('upsert', { path: APP_LOG, target: { append: { at_end: true } }, content: APPENDED.join('\n') + '\n', if_match: info.version.etag }),
            'upsert',
          );
        },
        // No append tool: read the whole file, write it back whole with the lines added.
        filesystem: async (s) => {
          const text = must(await s.call('read_text_file', { path: APP_LOG }), 'read_text_file').text;
          must(await s.call('write_file', { path: APP_LOG, content: text + APPENDED.join('\n') + '\n' }), 'write_file');
        },
      },
      check: async (root) => {
        const want = Buffer.concat([readFileSync(appSource), Buffer.from(APPENDED.join('\n') + '\n')]);
        return readFileSync(join(root, APP_LOG)).equals(want) ? '' : `${APP_LOG} differs`;
      },
    },
    {
      name: '5. create one file, move one (its first line changed), delete one',
      run: {
        // The versions from one list, then one patch: all or none, one journal group.
        folio: async (s) => {
          const listed = JSON.parse(must(await s.call('list', { path: 'src' }), 'list').text);
          const legacy = (listed.entries as { path: string; etag: string | null }[]).find((e) => e.path.endsWith('old-orders.ts'));
          if (!legacy?.etag) throw new Error(`list: no version for ${LEGACY}`);
          const patch = [
            '*** Begin Patch',
            `*** Add File: ${CREATED}`,
            ...CREATED_TS.trimEnd()
              .split('\n')
              .map((l) => `+${l}`),
            `*** Update File: ${DRAFT}`,
            `*** Move to: ${FINAL}`,
            '@@',
            '-// draft: not used yet',
            '+// the order steps',
            `*** Delete File: ${LEGACY}`,
            '*** End Patch',
          ].join('\n');
          must(await s.call('edit', { patch, path: LEGACY, if_match: legacy.etag }), 'edit');
        },
        // write_file, move_file, edit_file; it has no tool that deletes a file.
        filesystem: async (s) => {
          must(await s.call('write_file', { path: CREATED, content: CREATED_TS }), 'write_file');
          must(await s.call('move_file', { source: DRAFT, destination: FINAL }), 'move_file');
          must(await s.call('edit_file', { path: FINAL, edits: [{ oldText: '// draft: not used yet', newText: '// the order steps' }] }), 'edit_file');
          s.tally.note = 'no delete tool';
        },
      },
      check: async (root) => {
        const wrong: string[] = [];
        if (!existsSync(join(root, CREATED)) || textOf(root, CREATED) !== CREATED_TS) wrong.push(`${CREATED} differs`);
        if (existsSync(join(root, DRAFT))) wrong.push(`${DRAFT} still there`);
        if (!existsSync(join(root, FINAL)) || textOf(root, FINAL) !== FINAL_TS) wrong.push(`${FINAL} differs`);
        if (existsSync(join(root, LEGACY))) wrong.push(`${LEGACY} not deleted`);
        return wrong.join('; ');
      },
    },
    {
      name: '6. change one value in a CRLF file (200 lines)',
      run: {
        folio: async (s) => {
          must(await s.call('edit', { path: INI, edits: [{ old_text: 'timeout = 30', new_text: 'timeout = 60' }] }), 'edit');
        },
        filesystem: async (s) => {
          must(await s.call('edit_file', { path: INI, edits: [{ oldText: 'timeout = 30', newText: 'timeout = 60' }] }), 'edit_file');
        },
      },
      check: async (root) => {
        const want = Buffer.from(INI_LINES.map((l) => (l === 'timeout = 30' ? 'timeout = 60' : l)).join('\r\n') + '\r\n');
        const got = readFileSync(join(root, INI));
        if (got.equals(want)) return '';
        return got.includes(Buffer.from('\r\n')) ? `${INI} differs` : `${INI} lost its CRLF line ends`;
      },
    },
    {
      name: '7. change one line of a UTF-16 file (BOM, 100 lines)',
      run: {
        folio: async (s) => {
          must(await s.call('edit', { path: UTF16, edits: [{ old_text: 'checkout = Zur Kasse', new_text: 'checkout = Zur Kasse gehen' }] }), 'edit');
        },
        // It reads UTF-8 only: the quote as the agent knows it is not in what it sees.
        filesystem: async (s) => {
          must(await s.call('edit_file', { path: UTF16, edits: [{ oldText: 'checkout = Zur Kasse', newText: 'checkout = Zur Kasse gehen' }] }), 'edit_file');
        },
      },
      check: async (root) => {
        const want = utf16le(LABELS.map((l) => (l === 'checkout = Zur Kasse' ? 'checkout = Zur Kasse gehen' : l)).join('\n') + '\n');
        return readFileSync(join(root, UTF16)).equals(want) ? '' : `${UTF16} differs`;
      },
    },
    {
      name: `8. change one function in a ${HUGE_LINES.length.toLocaleString('en-US')}-line source file`,
      run: {
        // Find it, then quote its two lines: the quote is the precondition.
        folio: async (s) => {
          const hits = JSON.parse(must(await s.call('search', { path: HUGE_TS, pattern: `function handler${TARGET_FN}\\b`, max: 5 }), 'search').text);
          if (hits.count !== 1) throw new Error(`search: ${hits.count} hits`);
          must(await s.call('edit', { path: HUGE_TS, edits: [{ old_text: HUGE_OLD, new_text: HUGE_NEW }] }), 'edit');
        },
        // No content search: the whole file, then edit_file with the lines it found.
        filesystem: async (s) => {
          const read = await s.call('read_text_file', { path: HUGE_TS });
          if (s.closed) await s.restart();
          const edit = await s.call('edit_file', { path: HUGE_TS, edits: [{ oldText: HUGE_OLD, newText: HUGE_NEW }] });
          const why = (a: Answer) => (a.ok ? 'ok' : a.text.replace(/\s+/g, ' ').slice(0, 120));
          s.tally.note = `read_text_file: ${why(read)}; edit_file: ${why(edit)}`;
        },
      },
      check: async (root) =>
        readFileSync(join(root, HUGE_TS)).equals(Buffer.from(HUGE_LINES.join('\n').replace(HUGE_OLD, HUGE_NEW) + '\n')) ? '' : `${HUGE_TS} differs`,
    },
    {
      name: '9. rewrite one section of a 5,000-section markdown file',
      run: {
        // Read the section (its sha256 comes with it), then replace it under that hash.
        folio: async (s) => {
          const r = JSON.parse(must(await s.call('read', { path: MANUAL, section: SECTION }), 'read').text);
          must(
            await s.call('upsert', {
              path: MANUAL,
              target: { section: { path: SECTION, position: 'replace' } },
              content: SECTION_NEW,
              expected_section_sha256: r.section.sha256,
            }),
            'upsert',
          );
        },
        // The whole file, then edit_file quoting the section's lines.
        filesystem: async (s) => {
          must(await s.call('read_text_file', { path: MANUAL }), 'read_text_file');
          const old = `## ${SECTION}\n\nThe text of section 2500.\nIt has two lines.\n`;
          must(await s.call('edit_file', { path: MANUAL, edits: [{ oldText: old, newText: SECTION_NEW.trimEnd() + '\n' }] }), 'edit_file');
        },
      },
      check: async (root) => {
        const want = MANUAL_TEXT.replace(`## ${SECTION}\n\nThe text of section 2500.\nIt has two lines.\n\n`, SECTION_NEW);
        return textOf(root, MANUAL) === want ? '' : `${MANUAL} differs`;
      },
    },
    {
      name: `10. set one order's status in a ${(ordersJson().length / 1e6).toFixed(0)} MB JSON export`,
      run: {
        // JSONPath first (the read gives the value and the version), then a JSON set under it.
        // When the read is refused, the lines: find the order, read it, quote its lines.
        folio: async (s) => {
          const path = `$.orders[?@.id=="${TARGET_ORDER}"].status`;
          const q = await s.call('read', { path: ORDERS_JSON, json_path: path });
          if (q.ok) {
            const etag = JSON.parse(q.text).version.etag as string;
            must(await s.call('upsert', { path: ORDERS_JSON, target: { json: { path, op: 'set', value: '"shipped"' } }, if_match: etag }), 'upsert');
            return;
          }
          s.tally.note = `json_path read refused: ${/"code":"(\w+)"/.exec(q.text)?.[1] ?? q.text.slice(0, 80)}; then by lines`;
          const hits = JSON.parse(must(await s.call('search', { path: ORDERS_JSON, pattern: `"id": "${TARGET_ORDER}"`, max: 2 }), 'search').text);
          if (hits.count !== 1) throw new Error(`search: ${hits.count} hits`);
          const line = hits.matches[0].line as number;
          const r = JSON.parse(must(await s.call('read', { path: ORDERS_JSON, ranges: [{ start: line, end: line + 2 }] }), 'read').text);
          const quote = (r.content as string).trimEnd();
          if (!quote.endsWith('"status": "pending",')) throw new Error(`read: the order's third line is not its status: ${quote}`);
          must(await s.call('edit', { path: ORDERS_JSON, edits: [{ old_text: quote, new_text: quote.replace(/"pending",$/, '"shipped",') }] }), 'edit');
        },
        // No query and no content search: the whole file (over the client's 10 MiB cap, so the
        // connection closes and the host restarts the server); then, as if the agent knew the
        // order's lines, edit_file with them.
        filesystem: async (s) => {
          const read = await s.call('read_text_file', { path: ORDERS_JSON });
          if (s.closed) await s.restart();
          const order = orderOf(Number(TARGET_ORDER.slice(4)) - 100_000);
          const old = `"id": "${order.id}",\n      "customer": "${order.customer}",\n      "status": "pending",`;
          const edit = await s.call('edit_file', { path: ORDERS_JSON, edits: [{ oldText: old, newText: old.replace('"pending"', '"shipped"') }] });
          const why = (a: Answer) => (a.ok ? 'ok' : a.text.replace(/\s+/g, ' ').slice(0, 100));
          s.tally.note = `read_text_file: ${why(read)}; edit_file: ${why(edit)}`;
        },
      },
      check: async (root) => (readFileSync(join(root, ORDERS_JSON)).equals(ordersJson('shipped')) ? '' : `${ORDERS_JSON} differs`),
    },
    {
      name: '11. stale edit: double max_connections after a person changed it',
      run: {
        // Read, the person edits, the edit quoting what was read is refused with the nearest
        // line as it is now: the agent doubles that value.
        folio: async (s) => {
          const hits = JSON.parse(must(await s.call('search', { path: LIMITS, pattern: '^max_connections:' }), 'search').text);
          const was = Number(/(\d+)$/.exec(hits.matches[0].text)![1]);
          writeFileSync(join(s.root, LIMITS), LIMITS_BY_PERSON);
          const first = await s.call('edit', { path: LIMITS, edits: [{ old_text: `max_connections: ${was}`, new_text: `max_connections: ${was * 2}` }] });
          if (first.ok) throw new Error('the stale edit was applied');
          const now = JSON.parse(first.text).error?.nearest?.text as string | undefined;
          const value = Number(/^max_connections: (\d+)$/.exec(now ?? '')?.[1]);
          if (!value) throw new Error(`no current value in the refusal: ${first.text.slice(0, 200)}`);
          must(await s.call('edit', { path: LIMITS, edits: [{ old_text: now!, new_text: `max_connections: ${value * 2}` }] }), 'edit');
        },
        // Read the file, the person edits, the stale quote fails: read again, then edit.
        filesystem: async (s) => {
          const text = must(await s.call('read_text_file', { path: LIMITS }), 'read_text_file').text;
          const was = Number(/^max_connections: (\d+)$/m.exec(text)![1]);
          writeFileSync(join(s.root, LIMITS), LIMITS_BY_PERSON);
          const first = await s.call('edit_file', { path: LIMITS, edits: [{ oldText: `max_connections: ${was}`, newText: `max_connections: ${was * 2}` }] });
          if (first.ok) throw new Error('the stale edit was applied');
          const again = must(await s.call('read_text_file', { path: LIMITS }), 'read_text_file').text;
          const value = Number(/^max_connections: (\d+)$/m.exec(again)![1]);
          must(
            await s.call('edit_file', { path: LIMITS, edits: [{ oldText: `max_connections: ${value}`, newText: `max_connections: ${value * 2}` }] }),
            'edit_file',
          );
        },
      },
      check: async (root) => (textOf(root, LIMITS) === LIMITS_BY_PERSON.replace('max_connections: 150', 'max_connections: 300') ? '' : `${LIMITS} differs`),
    },
    {
      name: `12. change one constant in a ${(bundleJs().length / 1e6).toFixed(0)} MB one-line bundle`,
      run: {
        // Find it (the answer shows the line around the hit, not 5 MB), then quote it.
        folio: async (s) => {
          const hits = JSON.parse(must(await s.call('search', { path: BUNDLE, pattern: 'apiBase:', max: 5 }), 'search').text);
          if (hits.count !== 1 || !hits.matches[0].text.includes(BUNDLE_OLD)) throw new Error(`search: ${JSON.stringify(hits).slice(0, 300)}`);
          must(await s.call('edit', { path: BUNDLE, edits: [{ old_text: BUNDLE_OLD, new_text: BUNDLE_NEW }] }), 'edit');
        },
        // No content search: the whole file, then edit_file with the constant.
        filesystem: async (s) => {
          const text = must(await s.call('read_text_file', { path: BUNDLE }), 'read_text_file').text;
          if (!text.includes(BUNDLE_OLD)) throw new Error('read_text_file: the constant is not in the text');
          must(await s.call('edit_file', { path: BUNDLE, edits: [{ oldText: BUNDLE_OLD, newText: BUNDLE_NEW }] }), 'edit_file');
        },
      },
      check: async (root) => {
        const want = bundleJs().toString('latin1').replace(BUNDLE_OLD, BUNDLE_NEW);
        return readFileSync(join(root, BUNDLE), 'latin1') === want ? '' : `${BUNDLE} differs`;
      },
    },
  ];
}

// ---- the run ------------------------------------------------------------------------

async function runTask(task: Task, side: Side, root: string): Promise<Tally> {
  const s = await Session.open(side, root);
  try {
    await task.run[side](s);
  } catch (err) {
    s.tally.note = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').slice(0, 200);
  } finally {
    await s.close();
  }
  const diff = await task.check(root);
  s.tally.success = diff === '';
  if (diff) s.tally.note = s.tally.note ? `${s.tally.note}; ${diff}` : diff;
  return s.tally;
}

const kib = (n: number) => (n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 ** 2).toFixed(1)} MiB`);
const ratioOf = (a: number, b: number) => (b === 0 ? 'n/a' : `${(a / b).toFixed(a / b < 0.01 ? 4 : 2)}x`);

// ---- latency: one quote edit, and initialize ------------------------------------------

const EDITS = 40;
const STARTS = 5;
const LATENCY_FILE = 'latency.txt';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)]!;

/** A server of `side` on `root`, connected: how long from spawn to the answer to initialize, and the client. */
async function started(side: Side, root: string): Promise<{ ms: number; client: Client }> {
  const args = side === 'folio' ? ['bin/folio.mjs', 'mcp', '--root', root, '--review', 'auto'] : [THEIRS, root];
  const t = performance.now();
  const client = new Client({ name: 'folio-bench-latency', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args,
      env: { ...(process.env as Record<string, string>), FOLIO_CACHE_DIR: join(DATA_DIR, 'cache') },
      stderr: 'ignore',
    }),
  );
  return { ms: performance.now() - t, client };
}

/**
 * Issue 27's latency goals, each side in the same run on its own copy of a 40 KB
 * file: MCP initialize (spawn to answer, STARTS fresh processes) and one quote edit
 * of one line (EDITS in one session after one warm-up call; Folio under auto, so the
 * journal, its intent and every fsync are in it).
 */
async function latencyRows(): Promise<(string | number)[][]> {
  const text = Array.from({ length: 1000 }, (_, i) => `line ${i} of the file, some words to make forty kilobytes`).join('\n') + '\n';
  const rows: (string | number)[][] = [['server', 'initialize p50 ms', 'edit p50 ms', 'edit p90 ms']];
  const medians: Record<Side, { init: number; edit: number }> = { folio: { init: 0, edit: 0 }, filesystem: { init: 0, edit: 0 } };
  for (const side of ['folio', 'filesystem'] as const) {
    const root = join(WS_ROOT, `latency-${side}`);
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, LATENCY_FILE), text);
    const inits: number[] = [];
    for (let i = 0; i < STARTS; i++) {
      const { ms, client } = await started(side, root);
      inits.push(ms);
      await client.close();
    }
    const { client } = await started(side, root);
    const edits: number[] = [];
    try {
      for (let i = 0; i <= EDITS; i++) {
        const [from, to] = [`line ${100 + i} of`, `LINE ${100 + i} of`];
        const args =
          side === 'folio'
            ? { name: 'edit', arguments: { path: LATENCY_FILE, edits: [{ old_text: from, new_text: to }] } }
            : { name: 'edit_file', arguments: { path: join(root, LATENCY_FILE), edits: [{ oldText: from, newText: to }] } };
        const t = performance.now();
        const r = await client.callTool(args);
        if (r.isError) throw new Error(`${side} edit ${i}: ${JSON.stringify(r.content).slice(0, 200)}`);
        if (i > 0) edits.push(performance.now() - t);
      }
    } finally {
      await client.close();
    }
    medians[side] = { init: median(inits), edit: median(edits) };
    rows.push([side === 'folio' ? 'Folio' : 'filesystem', median(inits).toFixed(0), median(edits).toFixed(1), p90(edits).toFixed(1)]);
  }
  rows.push([
    'Folio / filesystem',
    ratioOf(medians.folio.init, medians.filesystem.init),
    ratioOf(medians.folio.edit, medians.filesystem.edit),
    `goals: initialize <= 250 ms, edit <= 3x`,
  ]);
  return rows;
}

export async function benchAgent(o: BenchOptions): Promise<void> {
  const bigSource = syntheticLog(o.size);
  const appSource = syntheticLog(1 << 20);
  process.stderr.write(`agent bench: building both workspaces under ${WS_ROOT} (two copies of the ${kib(fileSize(bigSource))} log)...\n`);
  const { ws, big } = makeWorkspaces(bigSource, appSource);
  const results: { task: Task; folio: Tally; filesystem: Tally }[] = [];
  try {
    for (const task of tasks(o, big, appSource)) {
      process.stderr.write(`agent bench: ${task.name}\n`);
      const folio = await runTask(task, 'folio', ws.folio);
      const filesystem = await runTask(task, 'filesystem', ws.filesystem);
      results.push({ task, folio, filesystem });
    }
  } finally {
    // The two copies of the big log are 2 x --size: do not leave them behind.
    rmSync(WS_ROOT, { recursive: true, force: true });
  }
  process.stderr.write('agent bench: latency\n');
  const latency = await latencyRows().finally(() => rmSync(WS_ROOT, { recursive: true, force: true }));

  const rows: (string | number)[][] = [
    ['task', 'server', 'calls', 'bytes to agent', 'of which tools/list', 'bytes from agent', 'wall ms', 'ms per request', 'done', 'note'],
  ];
  const ratios: (string | number)[][] = [['task', 'calls F/fs', 'bytes to agent F/fs', 'same without tools/list', 'bytes from agent F/fs', 'wall F/fs']];
  const goals: (string | number)[][] = [['task', 'fewer calls', 'fewer bytes to agent', 'fewer bytes from agent', 'Folio done', 'filesystem done']];
  const yes = (b: boolean) => (b ? 'yes' : 'NO');
  for (const { task, folio, filesystem } of results) {
    for (const [name, t] of [
      ['Folio', folio],
      ['filesystem', filesystem],
    ] as const) {
      rows.push([task.name, name, t.calls, t.toAgent, t.toolsListBytes, t.fromAgent, t.ms.toFixed(0), t.steps.join(', '), t.success ? 'yes' : 'NO', t.note]);
    }
    const bothDone = folio.success && filesystem.success;
    ratios.push([
      task.name,
      ratioOf(folio.calls, filesystem.calls),
      ratioOf(folio.toAgent, filesystem.toAgent),
      ratioOf(folio.toAgent - folio.toolsListBytes, filesystem.toAgent - filesystem.toolsListBytes),
      ratioOf(folio.fromAgent, filesystem.fromAgent),
      bothDone ? ratioOf(folio.ms, filesystem.ms) : 'n/a (filesystem failed)',
    ]);
    goals.push([
      task.name,
      yes(folio.calls < filesystem.calls),
      yes(folio.toAgent < filesystem.toAgent),
      yes(folio.fromAgent < filesystem.fromAgent),
      yes(folio.success),
      filesystem.success ? 'yes' : 'no',
    ]);
  }
  const out = [
    `## agent (scripted tasks over stdio MCP, one session per task and server; big log ${kib(fileSize(bigSource))})`,
    '',
    table(rows),
    '',
    'Same-run ratios, Folio / filesystem server (below 1: Folio used less):',
    '',
    table(ratios),
    '',
    table(goals),
    '',
    `Latency, same run (initialize: ${STARTS} fresh processes; a one-line quote edit of a 40 KB file: ${EDITS} in one session):`,
    '',
    table(latency),
    '',
  ].join('\n');
  process.stdout.write(out + '\n');
}
