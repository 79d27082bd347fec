/**
 * Front matter is not a heading. The outline must find the headings pandoc finds
 * (its CommonMark reader with yaml_metadata_block, an independent parser) on
 * hand-picked edge cases, generated documents and real files; the front matter
 * itself is the section "front matter", readable and editable like a section.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { outlineOf } from '../../src-main/engine/address/markdown-outline.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { markdownDoc } from '../fixtures/markdown.ts';
import { hasPandoc, pandocOutline } from '../fixtures/pandoc.ts';
import { runs } from '../fixtures/effort.ts';

const tmp = engineTempDir();
const H = { kind: 'human', name: 'test' } as const;
let n = 0;
const file = (text: string) => {
  const p = tmp.path(`fm${n++}.md`);
  writeFileSync(p, text);
  return p;
};
const headingsOf = (o: Awaited<ReturnType<typeof outlineOf>>) => o.headings.map((h) => [h.line, h.level] as [number, number]);

/**
 * [name, text, front matter (kind and last line) or null, headings as [line, level],
 * whether pandoc reads it (TOML and front matter below the top are not pandoc's)].
 * The headings are pandoc 2.17's answers where pandoc applies.
 */
const CASES: [string, string, { kind: string; endLine: number } | null, [number, number][], boolean][] = [
  ['YAML then a heading', '---\ntitle: Hello\nlayout: post\n---\n\n# Real\n\ntext\n', { kind: 'yaml', endLine: 4 }, [[6, 1]], true],
  ['YAML closed by ...', '---\ntitle: x\n...\n\n# A\n', { kind: 'yaml', endLine: 3 }, [[5, 1]], true],
  ['a setext heading right after the closing line', '---\ntitle: x\n---\nText\n===\n', { kind: 'yaml', endLine: 3 }, [[4, 1]], true],
  ['empty YAML', '---\n---\n\n# A\n', { kind: 'yaml', endLine: 2 }, [[4, 1]], true],
  ['YAML with only a comment', '---\n# just a comment\n---\n\n# A\n', { kind: 'yaml', endLine: 3 }, [[5, 1]], true],
  ['trailing spaces on the delimiters', '---   \ntitle: x\n---  \n# A\n', { kind: 'yaml', endLine: 3 }, [[4, 1]], true],
  ['a BOM before it', '\ufeff---\ntitle: x\n---\n# A\n', { kind: 'yaml', endLine: 3 }, [[4, 1]], true],
  ['CRLF lines', '---\r\ntitle: x\r\n---\r\n# A\r\n', { kind: 'yaml', endLine: 3 }, [[4, 1]], true],
  ['nested YAML and a quoted key', "---\n'a key': 1\nlist:\n  - x\n  - y\nmap:\n  k: v\n---\nBody\n", { kind: 'yaml', endLine: 8 }, [], true],
  [
    'a blank line after the opening: a rule, not front matter',
    '---\n\ntitle: x\n---\n\n# A\n',
    null,
    [
      [3, 2],
      [6, 1],
    ],
    true,
  ],
  [
    'a paragraph between two rules: not a mapping',
    '---\nSome text\n---\n\n# A\n',
    null,
    [
      [2, 2],
      [5, 1],
    ],
    true,
  ],
  ['a YAML list: not a mapping', '---\n- a\n- b\n---\n\n# A\n', null, [[6, 1]], true],
  ['never closed', '---\ntitle: x\n\n# A\n', null, [[4, 1]], true],
  [
    'four dashes',
    '----\ntitle: x\n----\n\n# A\n',
    null,
    [
      [2, 2],
      [5, 1],
    ],
    true,
  ],
  [
    'an indented closing line',
    '---\ntitle: x\n ---\n\n# A\n',
    null,
    [
      [2, 2],
      [5, 1],
    ],
    true,
  ],
  ['TOML', '+++\ntitle = "x"\n+++\n\n# A\n', { kind: 'toml', endLine: 3 }, [[5, 1]], false],
  ['TOML with a table, then a setext heading', '+++\n[params]\nx = 1\n+++\nTitle\n---\n', { kind: 'toml', endLine: 4 }, [[5, 2]], false],
  ['TOML-like but not a key', '+++\njust text\n+++\n\n# A\n', null, [[5, 1]], false],
  // Only the top of the file: pandoc also reads a YAML block further down (after a blank line); Jekyll and Hugo do not.
  ['below the top it is markdown', 'Intro\n\n---\ntitle: x\n---\n', null, [[4, 2]], false],
];

describe('front matter is not a heading', () => {
  it.each(CASES)('%s', async (_name, text, fm, headings, pandocReads) => {
    const o = await outlineOf(file(text));
    expect(headingsOf(o)).toEqual(headings);
    expect(o.frontMatter && { kind: o.frontMatter.kind, endLine: o.frontMatter.endLine }).toEqual(fm);
    if (pandocReads && hasPandoc) expect(pandocOutline(text)!.headings).toEqual(headings);
  });

  it('a file that is only front matter, with or without a last newline', async () => {
    for (const text of ['---\ntitle: x\n---', '---\ntitle: x\n---\n']) {
      const p = file(text);
      const o = await outlineOf(p);
      expect(o).toMatchObject({ headings: [], totalLines: 3, frontMatter: { line: 1, endLine: 3, startByte: 0, endByte: text.length } });
      expect(o.frontMatter!.sha256).toBe(createHash('sha256').update(text).digest('hex'));
    }
  });

  // Generated: front matter entries (or near misses), then markdown that makes and hides headings.
  // Without table lines: markdown-it reads GFM tables, pandoc's CommonMark reader does not (nor its gfm reader quite as markdown-it).
  const body = markdownDoc.map((d) => d.replace(/^\|.*\n/gm, ''));
  const yamlEntry = fc.constantFrom('title: Hello', 'layout: post', 'tags: [a, b]', '# a comment', 'list:\n  - x\n  - y', "'quoted': v", 'n: 3', 'empty:', '');
  const opening = fc.constantFrom('---', '---', '---', '--- ', '----', '+++');
  const closing = fc.constantFrom('---', '---', '...', ' ---', '+++', '');
  const fmDoc = fc
    .tuple(opening, fc.array(yamlEntry, { maxLength: 6 }), closing, body)
    .map(([open, entries, close, body]) => [open, ...entries.map((e, i) => e.replace(/^(\w+):/, `$1${i}:`)), close].join('\n') + '\n' + body);

  it.skipIf(!hasPandoc)('generated documents: the headings pandoc finds, at any chunk size', async () => {
    const p = tmp.path('gen.md');
    const params = runs(300);
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(fmDoc, fc.integer({ min: 1, max: 300 }), async (doc, chunk) => {
        // TOML front matter (`+++`) is not pandoc's: it reads the block as text (a `# comment` in it as a heading).
        // The TOML cases above check that rule on their own.
        if (/^\+\+\+[ \t]*\n(?:.*\n)*?\+\+\+[ \t]*\n/.test(doc)) return;
        const expected = pandocOutline(doc);
        if (!expected) return; // pandoc refuses invalid YAML; there is nothing to compare with
        compared++;
        writeFileSync(p, doc);
        const o = await outlineOf(p, { chunkBytes: chunk });
        expect(headingsOf(o)).toEqual(expected.headings);
        if (expected.meta) expect(o.frontMatter).not.toBeNull();
      }),
      params,
    );
    // Most generated documents are compared (pandoc refuses some YAML, TOML is left out).
    expect(compared).toBeGreaterThan(params.numRuns! / 2);
  });

  /** Markdown files with front matter under `dir` (at most `max`). */
  function markdownWithFrontMatter(dir: string, max: number): string[] {
    const out: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (out.length >= max) return;
        const p = join(d, e.name);
        if (e.isDirectory() && e.name !== '.git') walk(p);
        else if (e.isFile() && /\.(md|markdown)$/i.test(e.name) && statSync(p).size < 1 << 20) {
          if (/^(\ufeff)?(---|\+\+\+)[ \t]*\r?\n/.test(readFileSync(p, 'utf8').slice(0, 200))) out.push(p);
        }
      }
    };
    walk(dir);
    return out;
  }

  // Real files: those in node_modules (npm packages ship some), or FOLIO_MARKDOWN_CORPUS, a directory of your own.
  it.skipIf(!hasPandoc)('real files with front matter: the headings pandoc finds, and none inside the front matter', async () => {
    const dir = process.env.FOLIO_MARKDOWN_CORPUS ?? join(process.cwd(), 'node_modules');
    const files = markdownWithFrontMatter(dir, 2000);
    expect(files.length).toBeGreaterThan(0);
    const disagree: string[] = [];
    let compared = 0;
    for (const p of files) {
      const text = readFileSync(p, 'utf8');
      const expected = pandocOutline(text);
      if (!expected) continue;
      compared++;
      const o = await outlineOf(p);
      if (JSON.stringify(headingsOf(o)) !== JSON.stringify(expected.headings)) disagree.push(p);
      if (o.frontMatter) expect(o.headings.every((h) => h.line > o.frontMatter!.endLine)).toBe(true);
    }
    console.log(`front matter: ${compared - disagree.length} of ${compared} real files (of ${files.length} found under ${dir}) outline as pandoc does`);
    expect(disagree).toEqual([]);
  });
});

describe('the section "front matter"', () => {
  const DOC = '---\ntitle: Hello\nlayout: post\n---\n\n# Intro\n\ntext\n';
  const etag = async (p: string) => (await handle('read', { path: p, head: 1 }, H)).version.etag;

  it('the outline lists it apart from the headings; a read by that name gives the block', async () => {
    const p = file(DOC);
    const o = await handle('outline', { path: p }, H);
    expect(o.front_matter).toEqual({
      kind: 'yaml',
      section: 'front matter',
      line: 1,
      end_line: 4,
      start_byte: 0,
      end_byte: 34,
      sha256: createHash('sha256').update(DOC.slice(0, 34)).digest('hex'),
    });
    expect(o.headings.map((h) => [h.path, h.line])).toEqual([['Intro', 6]]);
    const r = await handle('read', { path: p, section: 'front matter' }, H);
    expect(r.content).toBe('---\ntitle: Hello\nlayout: post\n---\n');
    expect(r.section).toMatchObject({ path: 'front matter', level: 0, line: 1, end_line: 4 });
    const plain = await handle('outline', { path: file('# A\n') }, H);
    expect(plain.front_matter).toBeNull();
  });

  it('replace (whole or between the delimiters), insert after the opening line, append before the closing one', async () => {
    const p = file(DOC);
    let sha = (await handle('outline', { path: p }, H)).front_matter!.sha256;
    const target = (position: 'replace' | 'insert' | 'append', include_heading?: boolean) => ({
      section: { path: 'front matter', position, ...(include_heading === undefined ? {} : { include_heading }) },
    });
    await handle('upsert', { path: p, target: target('replace', false), content: 'title: Bye\n', expected_section_sha256: sha }, H);
    expect(readFileSync(p, 'utf8')).toBe('---\ntitle: Bye\n---\n\n# Intro\n\ntext\n');
    await handle('upsert', { path: p, target: target('append'), content: 'tags: [a]\n', if_match: await etag(p) }, H);
    await handle('upsert', { path: p, target: target('insert'), content: 'layout: page\n', if_match: await etag(p) }, H);
    expect(readFileSync(p, 'utf8')).toBe('---\nlayout: page\ntitle: Bye\ntags: [a]\n---\n\n# Intro\n\ntext\n');
    sha = (await handle('outline', { path: p }, H)).front_matter!.sha256;
    await handle('upsert', { path: p, target: target('replace'), content: '+++\ntitle = "T"\n+++\n', expected_section_sha256: sha }, H);
    expect(readFileSync(p, 'utf8')).toBe('+++\ntitle = "T"\n+++\n\n# Intro\n\ntext\n');
    expect((await handle('outline', { path: p }, H)).front_matter).toMatchObject({ kind: 'toml', end_line: 3 });
  });

  it('a heading with the same text makes the name ambiguous: [1] is the front matter, [2] the heading', async () => {
    const p = file('---\ntitle: x\n---\n\n# front matter\n\nabout it\n');
    await expect(handle('read', { path: p, section: 'front matter' }, H)).rejects.toMatchObject({
      code: 'ambiguous',
      details: {
        candidates: [
          { line: 1, level: 0, ref: 'front matter[1]' },
          { line: 5, level: 1, ref: 'front matter[2]' },
        ],
      },
    });
    expect((await handle('read', { path: p, section: 'front matter[2]' }, H)).content).toBe('# front matter\n\nabout it\n');
    expect((await handle('read', { path: p, section: 'front matter[1]' }, H)).content).toBe('---\ntitle: x\n---\n');
    await expect(handle('read', { path: file('# A\n'), section: 'front matter' }, H)).rejects.toMatchObject({ code: 'not_found' });
  });
});
