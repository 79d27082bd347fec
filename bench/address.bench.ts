/**
 * `npm run bench -- address`: addressing by meaning on generated documents, each
 * against a baseline measured in the same run:
 * - the outline of a dense 24 MiB markdown document (about 315,000 headings) against
 *   markdown-it's own whole-file parse (block rules only, which is all the outline
 *   needs, and the full parse with inline), and `wc -l` of the file;
 * - a section read by heading path once the outline is cached, against a plain line
 *   read of the same lines;
 * - a JSONPath read in a 16 MiB JSON document against JSON.parse of the file;
 * - a token page (o200k_base) against gpt-tokenizer counting the same text;
 * - JSON past the in-memory cap (--size, 2 GiB by default), streamed: whole `folio`
 *   processes (reads by JSONPath, an edit) against jq 1.6 doing the same on the same
 *   file (up to 768 MiB: jq holds ~13x the file in memory), and Python's json.load
 *   (up to 1 GiB), with each process's peak RSS.
 * Each is the median of N runs after a warm-up run.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { handle } from '../src-main/api/handle.ts';
import { outlineOf } from '../src-main/engine/address/markdown-outline.ts';
import { closeIndexPools } from '../src-main/engine/index/builder.ts';
import { bigMarkdown } from '../test/fixtures/markdown.ts';
import type { BenchOptions } from './main.ts';
import { DATA_DIR, table, timeCommand, timeMedian } from './lib.ts';

const actor = { kind: 'agent', name: 'bench' } as const;

function bigJson(bytes: number): string {
  const items: unknown[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const item = {
      id: i,
      name: `item ${i}`,
      tags: ['a', 'b', String(i % 7)],
      owner: { id: i % 100, email: `u${i % 100}@example.com` },
      score: (i * 37) % 1000,
    };
    items.push(item);
    size += JSON.stringify(item).length + 8;
  }
  return JSON.stringify({ meta: { generated: 'bench', count: items.length }, items }, null, 2) + '\n';
}

export async function benchAddress(opts: BenchOptions): Promise<void> {
  const runs = Math.max(1, opts.runs);
  mkdirSync(DATA_DIR, { recursive: true });
  const mdPath = join(DATA_DIR, 'doc-24m.md');
  const mdText = bigMarkdown(24 << 20);
  writeFileSync(mdPath, mdText);
  const rows: (string | number)[][] = [['measure', 'Folio (median)', 'baseline (median)', 'ratio']];

  // A new version each run (rewrite the same bytes), so the outline is never served from its cache.
  const outlineMs = await timeMedian(runs, async () => {
    writeFileSync(mdPath, mdText);
    await outlineOf(mdPath);
  });
  const md = new MarkdownIt({ html: true });
  const blockMs = await timeMedian(runs, () => md.block.parse(readFileSync(mdPath, 'utf8'), md, {}, []));
  const fullMs = await timeMedian(runs, () => md.parse(readFileSync(mdPath, 'utf8'), {}));
  const wc = timeCommand(runs, 'wc', ['-l', mdPath]).ms;
  const outline = await outlineOf(mdPath);
  rows.push(['outline 24 MiB md (vs markdown-it block parse)', `${outlineMs.toFixed(0)} ms`, `${blockMs.toFixed(0)} ms`, (outlineMs / blockMs).toFixed(2)]);
  rows.push(['outline 24 MiB md (vs markdown-it full parse)', `${outlineMs.toFixed(0)} ms`, `${fullMs.toFixed(0)} ms`, (outlineMs / fullMs).toFixed(2)]);
  rows.push(['outline 24 MiB md (vs wc -l)', `${outlineMs.toFixed(0)} ms`, `${wc.toFixed(1)} ms`, (outlineMs / wc).toFixed(0)]);

  const h = outline.headings[Math.floor(outline.headings.length / 2)]!;
  const sectionMs = await timeMedian(runs * 20, () => handle('read', { path: mdPath, section: h.path }, actor));
  const linesMs = await timeMedian(runs * 20, () => handle('read', { path: mdPath, ranges: [{ start: h.line, end: h.endLine }] }, actor));
  rows.push([
    `section read (outline cached, ${outline.headings.length} headings)`,
    `${sectionMs.toFixed(2)} ms`,
    `${linesMs.toFixed(2)} ms (same lines)`,
    (sectionMs / linesMs).toFixed(2),
  ]);

  const jsonPath = join(DATA_DIR, 'doc-16m.json');
  writeFileSync(jsonPath, bigJson(16 << 20));
  const jsonReadMs = await timeMedian(runs, async () => {
    writeFileSync(jsonPath, readFileSync(jsonPath)); // a new version: no cached document
    await handle('read', { path: jsonPath, json_path: '$.items[1000].owner' }, actor);
  });
  const parseMs = await timeMedian(runs, () => JSON.parse(readFileSync(jsonPath, 'utf8')));
  rows.push([
    'JSONPath read, 16 MiB JSON, uncached (vs JSON.parse)',
    `${jsonReadMs.toFixed(0)} ms`,
    `${parseMs.toFixed(0)} ms`,
    (jsonReadMs / parseMs).toFixed(2),
  ]);
  const jsonCachedMs = await timeMedian(runs * 20, () => handle('read', { path: jsonPath, json_path: '$.items[2000].owner' }, actor));
  rows.push([
    'JSONPath read, same version (cached document)',
    `${jsonCachedMs.toFixed(2)} ms`,
    `${parseMs.toFixed(0)} ms`,
    (jsonCachedMs / parseMs).toFixed(3),
  ]);

  let pageText = '';
  const pageMs = await timeMedian(runs, async () => {
    const r = await handle('read', { path: mdPath, page: 3, page_tokens: 8000 }, actor);
    pageText = r.content;
  });
  const countMs = await timeMedian(runs, () => countTokens(pageText));
  rows.push([
    'token page (8,000 o200k tokens, page 3) vs counting its text',
    `${pageMs.toFixed(1)} ms`,
    `${countMs.toFixed(1)} ms`,
    (pageMs / countMs).toFixed(2),
  ]);

  process.stdout.write(`\n## address (${runs} runs)\n\n${table(rows)}\n`);
  await closeIndexPools();
  await benchStreamedJson(opts);
}

/** An export of `bytes` or more: a header, one order per line, a tail (made once per size in DATA_DIR). */
function bigExport(bytes: number): { path: string; orders: number } {
  const path = join(DATA_DIR, `export-${bytes}.json`);
  const meta = path + '.orders';
  if (existsSync(path) && existsSync(meta)) return { path, orders: Number(readFileSync(meta, 'utf8')) };
  const fd = openSync(path, 'w');
  writeSync(fd, '{\n  "meta": {"generated": "bench", "count": 0},\n  "orders": [\n');
  let size = 0;
  let i = 0;
  for (let chunk: string[] = []; size < bytes; chunk = []) {
    for (let k = 0; k < 20_000; k++, i++) {
      const line = `    {"id": ${i}, "customer": "c${i % 977}", "total": ${((i * 7919) % 100000) / 100}, "items": [{"sku": "s${i % 31}", "qty": ${(i % 5) + 1}}], "note": "ok"},`;
      chunk.push(line);
      size += line.length + 1;
    }
    writeSync(fd, chunk.join('\n') + '\n');
  }
  writeSync(fd, `    {"id": ${i}, "last": true}\n  ],\n  "tail": {"checksum": "abc"}\n}\n`);
  closeSync(fd);
  writeFileSync(meta, String(i + 1));
  return { path, orders: i + 1 };
}

/** Wall time and peak RSS of one process (its stdout to a file when `stdoutTo`). */
function once(argv: string[], stdoutTo?: string): { ms: number; rssMb: number; ok: boolean } {
  const t = performance.now();
  const args = ['-f', '%M', ...argv];
  const r = spawnSync('/usr/bin/time', stdoutTo ? ['-f', '%M', 'sh', '-c', `"$@" > ${stdoutTo}`, 'sh', ...argv] : args, {
    encoding: 'utf8',
    maxBuffer: 256 << 20,
  });
  const ms = performance.now() - t;
  return { ms, rssMb: Number(/(\d+)\s*$/.exec(r.stderr)?.[1] ?? NaN) / 1024, ok: r.status === 0 };
}

/** Median wall time and peak RSS of a process, over `runs` runs after a warm-up. */
function timeProcess(runs: number, argv: string[], stdoutTo?: string): { ms: number; rssMb: number; ok: boolean } {
  once(argv, stdoutTo);
  const all = Array.from({ length: runs }, () => once(argv, stdoutTo)).sort((x, y) => x.ms - y.ms);
  return all[Math.floor(all.length / 2)]!;
}

/** `npm run bench -- json` runs this part alone. */
export async function benchStreamedJson(opts: BenchOptions): Promise<void> {
  const runs = Math.max(1, opts.runs);
  const { path, orders } = bigExport(opts.size);
  const size = statSync(path).size;
  const bin = join(process.cwd(), 'bin/folio.mjs');
  // jq holds ~13x the file in memory (3.4 GB for 256 MiB): not run past 768 MiB on a 24 GiB machine.
  const hasJq = size <= 768 << 20 && spawnSync('jq', ['--version']).status === 0;
  const cache = join(DATA_DIR, 'json-cache');
  const folio = (...args: string[]) => ['env', `FOLIO_CACHE_DIR=${cache}`, process.execPath, bin, ...args];
  const shown = (r: { ms: number; rssMb: number; ok: boolean }) => (r.ok ? `${(r.ms / 1000).toFixed(2)} s, ${r.rssMb.toFixed(0)} MB` : 'failed');
  const rows: (string | number)[][] = [['measure', 'Folio (median, peak RSS)', 'jq 1.6', 'ratio (time)']];
  const last = orders - 1;
  const cases: [string, string[], string[]][] = [
    ['read $.tail (past every order)', ['read', path, '--json-path', '$.tail'], ['-c', '.tail', path]],
    [`read $.orders[${last}] (by index)`, ['read', path, '--json-path', `$.orders[${last}]`], ['-c', `.orders[${last}]`, path]],
    ['read $.orders[-1] (count, then index)', ['read', path, '--json-path', '$.orders[-1]'], ['-c', '.orders[-1]', path]],
    [
      'read $.orders[?@.total == 999.99].id (a filter over every order)',
      ['read', path, '--json-path', '$.orders[?@.total == 999.99].id'],
      ['-c', '[.orders[] | select(.total == 999.99) | .id]', path],
    ],
  ];
  timeProcess(1, folio('read', path, '--json-path', '$.meta')); // the line index, built once
  for (const [name, f, j] of cases) {
    const a = timeProcess(name.includes('filter') ? 1 : runs, folio(...f));
    const b = hasJq ? timeProcess(name.includes('filter') ? 1 : runs, ['jq', ...j]) : null;
    rows.push([name, shown(a), b ? shown(b) : 'not run', b?.ok ? (a.ms / b.ms).toFixed(2) : '-']);
  }
  // An edit: Folio rewrites the file atomically around one value; jq prints a whole new document.
  const etagOf = () =>
    (
      JSON.parse(
        spawnSync(process.execPath, [bin, 'read', path, '--json-path', '$.meta', '--json'], {
          encoding: 'utf8',
          env: { ...process.env, FOLIO_CACHE_DIR: cache },
        }).stdout,
      ) as { version: { etag: string } }
    ).version.etag;
  const edits = Array.from({ length: runs }, (_, i) =>
    once(folio('upsert', path, '--json-path', '$.meta.count', '--json-set', String(i), '--if-match', etagOf())),
  ).sort((x, y) => x.ms - y.ms);
  const edit = edits[Math.floor(edits.length / 2)]!;
  const jqEdit = hasJq ? timeProcess(1, ['jq', '.meta.count = 1', path], join(DATA_DIR, 'jq-out.json')) : null;
  rows.push([
    'set $.meta.count (Folio: atomic rewrite, one value changed; jq: prints a reformatted copy)',
    shown(edit),
    jqEdit ? shown(jqEdit) : 'not run',
    jqEdit?.ok ? (edit.ms / jqEdit.ms).toFixed(2) : '-',
  ]);
  if (size <= 1 << 30) {
    const py = timeProcess(1, ['python3', '-c', 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["tail"]))', path]);
    rows.push(['Python json.load, then .tail', '-', shown(py), '-']);
  }
  process.stdout.write(`\n## streamed JSON (${(size / 2 ** 30).toFixed(2)} GiB, ${orders} orders, ${runs} runs)\n\n${table(rows)}\n`);
}
