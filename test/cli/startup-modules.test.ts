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

/** Every source file or package file the command loaded (bundle chunks expanded). */
function modulesLoadedBy(args: string[], status = 0): string[] {
  const log = tmp.path(`modules-${args[0]}.log`);
  writeFileSync(log, '');
  const r = spawnSync(process.execPath, ['--import', HOOK, BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, FOLIO_MODULE_LOG: log, FOLIO_CACHE_DIR: tmp.path('cache') },
  });
  expect(r.stderr).toBe('');
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
const bundleRan = (loaded: string[]) => loaded.some((f) => f === join(ROOT, 'dist/cli.mjs'));

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
