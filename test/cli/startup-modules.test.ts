/**
 * Start-up of `folio read`, `folio info` and `folio upsert` on a small file is mostly
 * module loading (docs/BENCHMARKS.md, "Whole process (CLI)"): these commands load
 * only what they run. Timing on a shared machine is noisy; the list of modules a
 * process loads is not. A loader hook (test/fixtures/module-log.mjs) logs every
 * module; bundle chunks (dist/cli-*.mjs) are expanded to the sources they hold
 * with esbuild's metafile (dist/cli-meta.json). Works on the sources too (tsx,
 * when the bundle is stale): their paths are checked directly.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-cli-startup-');
afterAll(() => tmp.cleanup());
const ROOT = process.cwd();
const BIN = join(ROOT, 'bin/folio.mjs');
const HOOK = join(ROOT, 'test/fixtures/module-log.mjs');

/** Vendor adapters and their SDKs: loaded by the first locator of their scheme only (src-main/backends/index.ts). */
const PG: [what: string, pattern: RegExp][] = [
  ['the PostgreSQL adapter', /src-main\/backends\/postgres\//],
  ['pg', /node_modules\/(pg|pg-[a-z-]+)\//],
];
const OBJECT_STORES: [what: string, pattern: RegExp][] = [
  ['the Azure and S3 adapters', /src-main\/backends\/(azure|s3)\//],
  ['the object-store helpers', /src-main\/backends\/object-util\.ts$/],
  ['the Azure SDK', /node_modules\/@azure\//],
  ['the AWS SDK', /node_modules\/(@aws-sdk|@smithy)\//],
];
const BACKENDS: [what: string, pattern: RegExp][] = [...PG, ...OBJECT_STORES];

/** Not for a read, an info or a line upsert: the doors and layers they do not use, and heavy packages of other modes. */
const NOT_AT_START: [what: string, pattern: RegExp][] = [
  ['the MCP SDK', /@modelcontextprotocol\//],
  ['markdown-it', /\/markdown-it\//],
  ['gpt-tokenizer', /\/gpt-tokenizer\//],
  ['chardet', /\/chardet\//],
  ['iconv-lite', /\/iconv-lite\//],
  ['json-p3', /\/json-p3\//],
  ['jsonc-parser', /\/jsonc-parser\//],
  ['the HTTP door', /src-main\/doors\/http\//],
  ['the MCP door', /src-main\/doors\/mcp\//],
  ['the agent guard', /src-main\/api\/agent\//],
  ['the search engine', /src-main\/engine\/search\//],
  ...BACKENDS,
];
/**
 * A line upsert is journaled so that `folio review undo` takes it back, as a record
 * the next review user folds in (review/applied-log.ts): not with Automerge. The
 * review layer's other modules and the write path are for the read-only commands only.
 */
const NO_DOCUMENT: [what: string, pattern: RegExp][] = [
  ['Automerge', /@automerge\//],
  ['the review document', /src-main\/review\/(store|journal|records|doc-codec|journal-commit|intents)\.ts$/],
];
const READ_ONLY_TOO: [what: string, pattern: RegExp][] = [
  ...NO_DOCUMENT,
  ['the review layer', /src-main\/review\//],
  ['the write path', /src-main\/engine\/write\//],
];

interface Run {
  /** written to stdin, which then closes */
  input?: string;
  env?: Record<string, string>;
  /** stderr must match this; empty when not given */
  stderr?: RegExp;
  /** stdout must match this */
  stdout?: RegExp;
}

/** Every source file or package file the command loaded (bundle chunks expanded). */
function modulesLoadedBy(args: string[], status = 0, run: Run = {}): string[] {
  const log = tmp.path(`modules-${args[0]}.log`);
  writeFileSync(log, '');
  const r = spawnSync(process.execPath, ['--import', HOOK, BIN, ...args], {
    encoding: 'utf8',
    input: run.input,
    env: { ...process.env, FOLIO_MODULE_LOG: log, FOLIO_CACHE_DIR: tmp.path('cache'), ...run.env },
  });
  if (run.stderr) expect(r.stderr).toMatch(run.stderr);
  else expect(r.stderr).toBe('');
  if (run.stdout) expect(r.stdout).toMatch(run.stdout);
  expect(r.status).toBe(status);
  const meta = existsSync(join(ROOT, 'dist/cli-meta.json'))
    ? (JSON.parse(readFileSync(join(ROOT, 'dist/cli-meta.json'), 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> })
    : { outputs: {} };
  const loaded: string[] = [];
  for (const url of readFileSync(log, 'utf8').split('\n')) {
    if (!url.startsWith('file:')) continue;
    const path = fileURLToPath(url);
    const chunk = meta.outputs[path.slice(ROOT.length + 1)];
    loaded.push(path, ...(chunk ? Object.keys(chunk.inputs) : []));
  }
  return loaded;
}

/** The built CLI checks these commands' input without zod (src-main/api/quick-handle.ts); the sources (tsx, a stale bundle) use zod. */
const ZOD: [what: string, pattern: RegExp][] = [['zod', /\/zod\//]];
const bundleRan = (loaded: string[]) => loaded.some((f) => f === join(ROOT, 'dist/cli.mjs') || f === join(ROOT, 'dist/mcp.mjs'));

function expectNone(loaded: string[], rules: [string, RegExp][]): void {
  for (const [what, pattern] of rules)
    expect(
      loaded.filter((f) => pattern.test(f)),
      `${what} was loaded`,
    ).toEqual([]);
}

describe('modules a small command loads', () => {
  const file = tmp.path('small.txt');
  writeFileSync(file, Array.from({ length: 100 }, (_, i) => `line ${i + 1}\n`).join(''));

  it('folio read --lines: not the other doors, layers or packages', () => {
    const loaded = modulesLoadedBy(['read', file, '--lines', '1-10', '--json']);
    expect(loaded.some((f) => f.includes('src-main/engine/read/'))).toBe(true); // the hook sees the read
    expectNone(loaded, [...NOT_AT_START, ...READ_ONLY_TOO, ...(bundleRan(loaded) ? ZOD : [])]);
  });

  it('folio info: not the other doors, layers or packages', () => {
    const loaded = modulesLoadedBy(['info', file, '--json']);
    expectNone(loaded, [...NOT_AT_START, ...READ_ONLY_TOO, ...(bundleRan(loaded) ? ZOD : [])]);
  });

  it('folio upsert of lines: not Automerge, the other doors or packages of other modes', () => {
    const etag = JSON.parse(spawnSync(process.execPath, [BIN, 'read', file, '--lines', '1', '--json'], { encoding: 'utf8' }).stdout).version.etag;
    const loaded = modulesLoadedBy(['upsert', file, '--replace', '2-2', '--content', 'two\n', '--if-match', etag, '--json']);
    expectNone(loaded, [...NOT_AT_START, ...NO_DOCUMENT, ...(bundleRan(loaded) ? ZOD : [])]);
    expect(loaded.some((f) => f.includes('src-main/review/applied-log.ts'))).toBe(true); // journaled all the same
  });

  it('folio read with bad input: zod names the fields', () => {
    const loaded = modulesLoadedBy(['read', '', '--json'], 1);
    if (bundleRan(loaded)) expect(loaded.some((f) => /\/zod\//.test(f))).toBe(true);
  });
});

/** An agent host waits for this answer before anything else (issue 26: ≤ 250 ms on a quiet machine, `npm run bench -- startup`). */
const INITIALIZE =
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'startup-modules', version: '0' } },
  }) + '\n';

describe('backends are plugins: loaded by the first locator of their scheme', () => {
  it('folio mcp answers initialize without a backend, a vendor SDK, Automerge or Hono', () => {
    const loaded = modulesLoadedBy(['mcp', '--root', tmp.path('.')], 0, { input: INITIALIZE, stdout: /"protocolVersion"/ });
    expect(loaded.some((f) => f.includes('src-main/doors/mcp/server.ts'))).toBe(true); // the hook sees the door
    expectNone(loaded, [
      ...BACKENDS,
      ...NO_DOCUMENT,
      ['the review layer', /src-main\/review\//],
      ['Hono (the Streamable HTTP transport)', /\/(hono|@hono)\//],
      ['the HTTP door', /src-main\/doors\/http\//],
      ['gpt-tokenizer', /\/gpt-tokenizer\//],
    ]);
    // The bundle carries the tool list (the operation table's schemas load with the first call)
    // and a stand-in for the SDK's Ajv, which Folio loads on first use (scripts/build-cli.mjs);
    // its own entry (dist/mcp.mjs) parses the flags without commander or the other commands.
    if (bundleRan(loaded))
      expectNone(loaded, [
        ['the operation table', /src-main\/api\/(operations\.ts|schemas\/|agent\/tools\.ts)/],
        ['Ajv', /\/(ajv|ajv-formats|fast-uri)\//],
        ['commander', /\/commander\//],
        ['the other commands', /src-main\/doors\/cli\/(main|commands|review|read|upsert|search)\.ts$/],
      ]);
  });

  it('a pg:// locator loads the PostgreSQL adapter and pg, and no other backend', () => {
    // No server at this socket: the adapter loads, connects, and reports io_error.
    const loaded = modulesLoadedBy(['info', 'pg://docs/readme/body'], 1, {
      env: { PGHOST: tmp.path('no-server'), DATABASE_URL: '' },
      stderr: /io_error: pg:\/\/docs\/readme\/body: PostgreSQL/,
    });
    for (const [what, pattern] of PG)
      expect(
        loaded.some((f) => pattern.test(f)),
        `${what} was not loaded`,
      ).toBe(true);
    expectNone(loaded, OBJECT_STORES);
  });
});
