/**
 * `npm run bench -- address`: addressing by meaning on generated documents, each
 * against a baseline measured in the same run:
 * - the outline of a dense 24 MiB markdown document (about 315,000 headings) against
 *   markdown-it's own whole-file parse (block rules only, which is all the outline
 *   needs, and the full parse with inline), and `wc -l` of the file;
 * - a section read by heading path once the outline is cached, against a plain line
 *   read of the same lines;
 * - a JSONPath read in a 16 MiB JSON document against JSON.parse of the file;
 * - a token page (o200k_base) against gpt-tokenizer counting the same text.
 * Each is the median of N runs after a warm-up run.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
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
}
