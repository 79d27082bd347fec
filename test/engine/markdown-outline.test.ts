import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { outlineOf } from '../../src-main/engine/address/markdown-outline.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { bigMarkdown, markdownDoc } from '../fixtures/markdown.ts';
import { DEEP, runs } from '../fixtures/effort.ts';

const tmp = engineTempDir();
const H = { kind: 'human', name: 'test' } as const;

/** Top-level headings of a whole-file markdown-it parse: [line (1-based), level, text]. */
function wholeParse(text: string): [number, number, string][] {
  const md = new MarkdownIt({ html: true });
  const tokens = md.parse(text.replace(/\r\n/g, '\n'), {});
  const out: [number, number, string][] = [];
  tokens.forEach((t, i) => {
    if (t.type === 'heading_open' && t.level === 0)
      out.push([t.map![0] + 1, Number(t.tag.slice(1)), tokens[i + 1]!.content.replace(/[ \t]*\n[ \t]*/g, ' ').trim()]);
  });
  return out;
}

/**
 * The big document two tests read, written by whichever runs first (each runs alone too):
 * 8 MiB per commit (eight of the outline's 1 MiB chunks), 24 MiB in `npm run test:deep`.
 * At 24 MiB, whole-file parse of the reference took most of a minute at load 11.
 */
const BIG_BYTES = DEEP ? 24 << 20 : 8 << 20;
let bigText: string | undefined;
function bigDoc(): { path: string; text: string } {
  const path = tmp.path('big.md');
  if (bigText === undefined) {
    bigText = bigMarkdown(BIG_BYTES);
    writeFileSync(path, bigText);
  }
  return { path, text: bigText };
}

const seen = (o: Awaited<ReturnType<typeof outlineOf>>) => o.headings.map((h) => [h.line, h.level, h.text] as [number, number, string]);

describe('markdown outline', () => {
  it('counts top-level ATX and setext headings, not those in fences, lists, quotes, HTML or indented code', async () => {
    const p = tmp.path('small.md');
    writeFileSync(p, '# A\n\n```\n# no\n```\n\n- # no\n\n> # no\n\n<div>\n# no\n</div>\n\n    # no\n\nSet\n===\n\n## B ##\n');
    const o = await outlineOf(p);
    expect(o.headings.map((h) => [h.text, h.level, h.line, h.headingEndLine, h.endLine])).toEqual([
      ['A', 1, 1, 1, 16],
      ['Set', 1, 17, 18, 20],
      ['B', 2, 20, 20, 20],
    ]);
    expect(o.headings[2]!.path).toBe('Set > B');
    const bytes = readFileSync(p);
    for (const h of o.headings) expect(h.sha256).toBe(createHash('sha256').update(bytes.subarray(h.startByte, h.endByte)).digest('hex'));
  });

  it('chunked parses equal a whole-file parse on generated documents (any chunk size)', async () => {
    const p = tmp.path('prop.md');
    await fc.assert(
      fc.asyncProperty(markdownDoc, fc.integer({ min: 1, max: 400 }), async (generated, chunk) => {
        // markdown-it knows no front matter: a document opening with `---` or `+++` starts with a
        // blank line here, so no front matter is skipped (front-matter.test.ts checks that rule against pandoc).
        const doc = /^(---|\+\+\+)/.test(generated) ? '\n' + generated : generated;
        writeFileSync(p, doc);
        const o = await outlineOf(p, { chunkBytes: chunk });
        expect(seen(o)).toEqual(wholeParse(doc));
        const whole = await outlineOf(p, { chunkBytes: 1 << 30 });
        expect(o.headings).toEqual(whole.headings);
      }),
      runs(300),
    );
  });

  it('a document of many chunks: chunked outline equals the whole-file parse, sections hash their bytes, cached per version', async () => {
    const { path: p, text } = bigDoc();
    let t0 = performance.now();
    // The scan yields between chunks: a timer keeps firing while a big file is outlined
    // (a server answering other requests meanwhile). A scan in one go would let it fire once at most.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const o = await outlineOf(p);
    clearInterval(timer);
    const outlineMs = performance.now() - t0;
    // It yields after each 1 MiB chunk; at least half of those yields let the timer in.
    expect(ticks).toBeGreaterThanOrEqual(BIG_BYTES / (1 << 20) / 2);
    t0 = performance.now();
    const expected = wholeParse(text);
    const parseMs = performance.now() - t0;
    expect(seen(o)).toEqual(expected);
    expect(o.totalLines).toBe(text.split('\n').length - 1);
    const bytes = readFileSync(p);
    for (const h of [o.headings[0]!, o.headings[1000]!, o.headings.at(-1)!]) {
      expect(h.sha256).toBe(createHash('sha256').update(bytes.subarray(h.startByte, h.endByte)).digest('hex'));
    }
    t0 = performance.now();
    expect(await outlineOf(p)).toBe(o);
    const cachedMs = performance.now() - t0;
    console.log(
      `outline of ${(bytes.length / 2 ** 20).toFixed(0)} MiB: ${outlineMs.toFixed(0)} ms (${ticks} timer ticks meanwhile) (whole-file markdown-it parse with inline: ${parseMs.toFixed(0)} ms, ratio ${(outlineMs / parseMs).toFixed(2)}); cached: ${cachedMs.toFixed(1)} ms; ${o.headings.length} headings`,
    );
  }, 300_000); // minutes when the machine is loaded (35 s to outline, 55 s to parse at load 11)
});

describe('sections through the api', () => {
  const DOC = '# Guide\n\n## Install\n\nintro\n\n### Linux\n\napt\n\n### Mac\n\nbrew\n\n# Other\n\n## Install\n\n### Linux\n\nyum\n';

  it('reads a section by heading path from any level; duplicates are ambiguous with candidates; [N] picks one; missing is not_found', async () => {
    const p = tmp.path('sec.md');
    writeFileSync(p, DOC);
    const r = await handle('read', { path: p, section: 'Guide > Install > Linux' }, H);
    expect(r.content).toBe('### Linux\n\napt\n\n');
    expect(r.section).toMatchObject({ path: 'Guide > Install > Linux', line: 7, end_line: 10, level: 3 });
    await expect(handle('read', { path: p, section: 'Install > Linux' }, H)).rejects.toMatchObject({
      code: 'ambiguous',
      details: {
        candidates: [
          { path: 'Guide > Install > Linux', ref: 'Install > Linux[1]' },
          { path: 'Other > Install > Linux', ref: 'Install > Linux[2]' },
        ],
      },
    });
    expect((await handle('read', { path: p, section: 'Install > Linux[2]' }, H)).content).toBe('### Linux\n\nyum\n');
    expect((await handle('read', { path: p, section: 'Mac' }, H)).content).toBe('### Mac\n\nbrew\n\n');
    await expect(handle('read', { path: p, section: 'Guide > Windows' }, H)).rejects.toMatchObject({
      code: 'not_found',
      details: { section: 'Guide > Windows' },
    });
    await expect(handle('read', { path: p, section: 'Install > Linux[3]' }, H)).rejects.toMatchObject({ code: 'not_found' });
    await expect(handle('read', { path: p, section: 'Mac', head: 3 }, H)).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('replace, insert and append within a section under its hash; a stale hash is precondition_failed and writes nothing', async () => {
    const p = tmp.path('edit.md');
    writeFileSync(p, DOC);
    const sha = async (path: string) => (await handle('outline', { path: p }, H)).headings.find((h) => h.path === path)!.sha256;
    const u = await handle(
      'upsert',
      {
        path: p,
        target: { section: { path: 'Guide > Install > Mac', position: 'replace' } },
        content: '### Mac\n\nport\n\n',
        expected_section_sha256: await sha('Guide > Install > Mac'),
      },
      H,
    );
    expect(u.applied).toBe(true);
    expect(u.preconditions.checked).toEqual(['expected_range_sha256']);
    await handle(
      'upsert',
      {
        path: p,
        target: { section: { path: 'Other > Install', position: 'insert' } },
        content: 'first\n',
        expected_section_sha256: await sha('Other > Install'),
      },
      H,
    );
    await handle(
      'upsert',
      {
        path: p,
        target: { section: { path: 'Guide > Install > Linux', position: 'append' } },
        content: 'dnf\n\n',
        expected_section_sha256: await sha('Guide > Install > Linux'),
      },
      H,
    );
    await handle(
      'upsert',
      {
        path: p,
        target: { section: { path: 'Guide', position: 'replace', include_heading: false } },
        content: 'Body.\n\n## Install\n\nnew\n\n',
        expected_section_sha256: await sha('Guide'),
      },
      H,
    );
    expect(readFileSync(p, 'utf8')).toBe('# Guide\nBody.\n\n## Install\n\nnew\n\n# Other\n\n## Install\nfirst\n\n### Linux\n\nyum\n');
    const before = readFileSync(p);
    const stale = '0'.repeat(64);
    const err = await handle(
      'upsert',
      { path: p, target: { section: { path: 'Other', position: 'append' } }, content: 'x\n', expected_section_sha256: stale },
      H,
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'precondition_failed',
      details: { failed: ['expected_section_sha256'], section: { path: 'Other', sha256: await sha('Other') }, read: { section: 'Other' } },
    });
    expect(readFileSync(p)).toEqual(before);
    await expect(handle('upsert', { path: p, target: { section: { path: 'Other', position: 'append' } }, content: 'x\n' }, H)).rejects.toMatchObject({
      code: 'precondition_required',
    });
    await expect(
      handle('upsert', { path: p, target: { section: { path: 'Other', position: 'append' } }, content: 'x\n', expected_range_sha256: stale }, H),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(
      handle('upsert', { path: p, target: { section: { path: 'Other', position: 'append' } }, expected_section_sha256: await sha('Other') }, H),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(
      handle('upsert', { path: p, target: { replace: { start: 1, end: 1 } }, content: 'x', expected_section_sha256: stale }, H),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    expect(readFileSync(p)).toEqual(before);
  });

  it('a section read of the big document reuses the cached outline', async () => {
    const { path: p } = bigDoc();
    const o = await handle('outline', { path: p, max_level: 2 }, H);
    // What outlining costs on this machine now: a fresh document an eighth of this one.
    const small = tmp.path('small.md');
    writeFileSync(small, bigMarkdown(BIG_BYTES / 8));
    let t0 = performance.now();
    await outlineOf(small);
    const smallOutlineMs = performance.now() - t0;
    expect(o.headings.every((h) => h.level <= 2)).toBe(true);
    const h = o.headings[500]!;
    t0 = performance.now();
    const r = await handle('read', { path: p, section: `${h.path}[1]` }, H).catch(() =>
      handle('read', { path: p, ranges: [{ start: h.line, end: h.end_line }] }, H),
    );
    // Outlining the big document again would take ~8x smallOutlineMs; reusing the outline takes a few ms.
    expect(performance.now() - t0).toBeLessThan(3 * smallOutlineMs);
    expect(r.start_line).toBe(h.line);
  }, 240_000); // alone it writes and outlines the big document itself
});
