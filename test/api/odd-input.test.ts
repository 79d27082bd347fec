/**
 * Odd input gets a typed error with a documented code, from every door:
 * - ids that are Object.prototype's member names (`__proto__`, `constructor` …)
 *   are `not_found`, never an answer built from Object.prototype, a TypeError
 *   (`internal`), or "already undefined";
 * - file names no file system can hold (NUL byte, lone surrogate, a 300-byte or
 *   multibyte 256-byte name, a 5,000-character path) are `invalid_input` with a
 *   `reason`, across every operation that takes a path, never `io_error` or a
 *   silently different file.
 * Through handle(), real `node bin/folio.mjs` child processes, and a real MCP SDK
 * client over stdio.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src-main/engine/errors.ts';
import { handle } from '../../src-main/api/handle.ts';
import { read } from '../../src-main/engine/read/read.ts';
import { propose } from '../../src-main/review/index.ts';
import { connectStdio } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-odd-input-');
afterAll(() => tmp.cleanup());
const BIN = join(process.cwd(), 'bin/folio.mjs');
const env = { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache'), FOLIO_STATE_DIR: tmp.path('state') };
const folio = (args: string[], cwd: string) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', cwd, env });

const HUMAN = { kind: 'human', name: 'odd' } as const;
const AGENT = { kind: 'agent', name: 'odd' } as const;
/** Every name Object.prototype answers for (__proto__, constructor, toString, hasOwnProperty, valueOf, __defineGetter__ …), and `prototype`: each must be "no such record". */
const PROTO_NAMES = [...Object.getOwnPropertyNames(Object.prototype), 'prototype'];

/** What handle() threw, as the doors send it: code only. */
async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return (err as { code?: string }).code ?? `untyped ${String((err as Error).name)}: ${(err as Error).message}`;
  }
}

let root = '';
let file = '';
let proposalId = '';
beforeAll(async () => {
  root = tmp.path('ws');
  mkdirSync(root, { recursive: true });
  file = join(root, 'notes.txt');
  writeFileSync(file, 'one\ntwo\n');
  const etag = (await read(file, { mode: 'head', lines: 1 })).version.etag;
  // One real proposal, so the document's maps exist (an empty store answers not_found by another road).
  proposalId = (
    await propose(root, AGENT, { path: file, target: { kind: 'replace', start: 1, end: 1, units: 'lines' }, content: 'ONE', preconditions: { ifMatch: etag } })
  ).proposal_id;
});

describe('ids named like Object.prototype members', () => {
  it('proposal_status, review_show/approve/reject and review_undo by id answer not_found for each, and the real proposal stays pending', async () => {
    const seen: string[] = [];
    for (const id of PROTO_NAMES) {
      seen.push(`${id} status ${await codeOf(handle('proposal_status', { proposal_id: id }, AGENT, { workspace: root }))}`);
      seen.push(`${id} show ${await codeOf(handle('review_show', { id }, HUMAN, { workspace: root }))}`);
      seen.push(`${id} approve ${await codeOf(handle('review_approve', { id }, HUMAN, { workspace: root }))}`);
      seen.push(`${id} reject ${await codeOf(handle('review_reject', { id }, HUMAN, { workspace: root }))}`);
      seen.push(`${id} undo ${await codeOf(handle('review_undo', { id }, HUMAN, { workspace: root }))}`);
    }
    expect(seen.filter((s) => !s.endsWith(' not_found'))).toEqual([]);
    expect((await handle('proposal_status', { proposal_id: proposalId }, AGENT, { workspace: root })).status).toBe('pending');
    expect(readFileSync(file, 'utf8')).toBe('one\ntwo\n');
  });

  it('folio review show|approve|reject (child processes) exit 1 with not_found, --json {error: {code: not_found}}', () => {
    const wrong: string[] = [];
    // A few child processes (each costs a Node start): the in-process test covers every name.
    const runs = [...['__proto__', 'constructor', 'toString'].map((id) => ['show', id]), ['approve', '__proto__'], ['reject', 'constructor']];
    {
      for (const [cmd, id] of runs) {
        const r = folio(['review', cmd!, id!, '--json'], root);
        const code = r.stdout ? (JSON.parse(r.stdout) as { error?: { code?: string } }).error?.code : undefined;
        if (r.status !== 1 || code !== 'not_found') wrong.push(`${cmd} ${id}: exit ${r.status} ${r.stdout}${r.stderr}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('proposal_status over MCP (SDK client, folio mcp child): isError with code not_found for each', async () => {
    const mcp = await connectStdio(root, { cacheDir: tmp.path('cache') });
    try {
      const wrong: string[] = [];
      for (const id of PROTO_NAMES) {
        const r = await mcp.call('proposal_status', { proposal_id: id });
        if (!r.isError || r.body?.error?.code !== 'not_found') wrong.push(`${id}: ${r.text}`);
      }
      expect(wrong).toEqual([]);
    } finally {
      await mcp.close();
    }
  });
});

/** File names no file can have, and the reason each must be refused with. */
const BAD_PATHS = (dir: string): [what: string, path: string, reason: string | null][] => [
  ['an empty path', '', null],
  ['a NUL byte', join(dir, 'a\0b.txt'), 'nul_byte'],
  ['a lone surrogate', join(dir, 'a\uD800b.txt'), 'lone_surrogate'],
  ['a lone low surrogate at the end', join(dir, 'ab\uDC00'), 'lone_surrogate'],
  ['a 300-character name', join(dir, 'n'.repeat(300)), 'name_too_long'],
  ['a 256-byte name in 128 two-byte characters', join(dir, 'é'.repeat(128)), 'name_too_long'],
  ['a 256-byte name in 64 four-byte characters', join(dir, '😀'.repeat(64)), 'name_too_long'],
  ['a 5,000-character path of short names', join(dir, ...Array.from({ length: 500 }, () => 'abcdefghi')), 'path_too_long'],
];

/** Every operation that takes a file name, with an input naming `p` (`to` for move). */
const PATH_OPS: [op: string, input: (p: string, ok: string) => Record<string, unknown>][] = [
  ['read', (p) => ({ path: p })],
  ['file_info', (p) => ({ path: p })],
  ['outline', (p) => ({ path: p })],
  ['search', (p) => ({ path: p, pattern: 'x' })],
  ['search_tree', (p) => ({ path: p, pattern: 'x' })],
  ['list', (p) => ({ path: p })],
  ['upsert', (p) => ({ path: p, target: { append: { at_end: true } }, content: 'x\n', if_none_match: '*' })],
  ['upsert', (p, ok) => ({ path: ok, targets: [{ insert: { at: 1 }, content: 'x', path: p, if_match: 'e' }], if_match: 'e' })],
  ['edit', (p) => ({ path: p, edits: [{ old_text: 'one', new_text: 'ONE' }] })],
  ['edit', (p, ok) => ({ path: ok, edits: [{ path: p, old_text: 'one', new_text: 'ONE' }], if_match: 'e' })],
  ['delete_file', (p) => ({ path: p, if_match: 'e' })],
  ['move_file', (p) => ({ path: p, to: join(root, 'moved.txt'), if_match: 'e' })],
  ['move_file', (p, ok) => ({ path: ok, to: p, if_match: 'e' })],
  ['marks_list', (p) => ({ path: p })],
  ['recent_add', (p) => ({ path: p })],
];

describe('file names no file can have', () => {
  it('every path-taking operation answers invalid_input with the reason, for every bad name, and no file is made', async () => {
    const dir = join(root, 'bad');
    mkdirSync(dir, { recursive: true });
    const wrong: string[] = [];
    let tried = 0;
    for (const [op, input] of PATH_OPS) {
      for (const [what, p, reason] of BAD_PATHS(dir)) {
        tried++;
        try {
          await handle(op as 'read', input(p, file), HUMAN, { workspace: root });
          wrong.push(`${op} ${what}: answered`);
        } catch (err) {
          const e = err as { code?: string; details?: { reason?: string } };
          // An empty path is the schema's (its issues name the field); the others say why.
          if (e.code !== 'invalid_input' || (reason !== null && e.details?.reason !== reason))
            wrong.push(`${op} ${what}: ${e.code ?? 'untyped'} ${e.details?.reason ?? ''} ${(err as Error).message.slice(0, 80)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(tried).toBe(PATH_OPS.length * 8);
    expect(readdirSync(dir)).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe('one\ntwo\n');
  });

  it('the CLI (child processes) exits 1 with invalid_input for a 300-character name in read, info, search, list, upsert, edit, rm and mv', () => {
    const long = 'n'.repeat(300);
    const runs: string[][] = [
      ['read', long],
      ['info', long],
      ['search', long, 'x'],
      ['list', long],
      ['upsert', long, '--append', '--content', 'x', '--if-none-match', '*'],
      ['edit', long, '--old', 'one', '--new', 'ONE'],
      ['rm', long, '--if-match', 'e'],
      ['mv', 'notes.txt', long, '--if-match', 'e'],
    ];
    const wrong: string[] = [];
    for (const args of runs) {
      const r = folio([...args, '--json'], root);
      const error = r.stdout ? (JSON.parse(r.stdout) as { error?: { code?: string; reason?: string } }).error : undefined;
      if (r.status !== 1 || error?.code !== 'invalid_input' || error.reason !== 'name_too_long')
        wrong.push(`${args[0]}: exit ${r.status} ${r.stdout}${r.stderr}`);
    }
    expect(wrong).toEqual([]);
  });

  it('an agent over MCP gets invalid_input (isError) for a NUL byte and a lone surrogate in read and upsert', async () => {
    const mcp = await connectStdio(root, { cacheDir: tmp.path('cache') });
    try {
      const wrong: string[] = [];
      for (const p of ['a\0b.txt', 'a\uD800b.txt', 'n'.repeat(300)]) {
        for (const [tool, args] of [
          ['read', { path: p }],
          ['upsert', { path: p, content: 'x\n', if_none_match: '*' }],
        ] as const) {
          const r = await mcp.call(tool, args);
          if (!r.isError || r.body?.error?.code !== 'invalid_input') wrong.push(`${tool} ${JSON.stringify(p).slice(0, 20)}: ${r.text.slice(0, 200)}`);
        }
      }
      expect(wrong).toEqual([]);
    } finally {
      await mcp.close();
    }
  });
});

describe('the documented error codes', () => {
  const section = (text: string, heading: RegExp) => {
    const at = text.search(heading);
    expect(at, `no ${heading} section`).toBeGreaterThanOrEqual(0);
    const rest = text.slice(at + 1);
    const next = rest.search(/\n#{1,2} /);
    return next < 0 ? rest : rest.slice(0, next);
  };
  const codesIn = (text: string) => new Set([...text.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]));

  it('README ("Error codes: …") and docs/API.md ("## Errors") list every code of the closed union (and `internal`)', () => {
    const readmeText = readFileSync('README.md', 'utf8');
    const from = readmeText.indexOf('Error codes:');
    expect(from).toBeGreaterThanOrEqual(0);
    const readme = codesIn(readmeText.slice(from, readmeText.indexOf('\n\n', from)));
    const api = codesIn(section(readFileSync('docs/API.md', 'utf8'), /\n## Errors/));
    expect([...ERROR_CODES, 'internal'].filter((c) => !readme.has(c))).toEqual([]);
    expect([...ERROR_CODES, 'internal'].filter((c) => !api.has(c))).toEqual([]);
  });
});
