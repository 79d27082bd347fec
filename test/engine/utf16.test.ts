/**
 * UTF-16 files end to end, made with the real `iconv` binary from UTF-8 sources:
 * every read mode is compared with the same slice of the UTF-8 source
 * (differential), offsets are real (even) file offsets, upserts are converted
 * back with iconv and compared, untouched bytes stay byte-exact.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fileInfo } from '../../src-main/engine/read/file-info.ts';
import { buildIndex } from '../../src-main/engine/index/builder.ts';
import { openIndex } from '../../src-main/engine/index/store.ts';
import { read, type ReadResult } from '../../src-main/engine/read/read.ts';
import { searchPath } from '../../src-main/engine/search/search-path.ts';
import { upsert, type UpsertRequest } from '../../src-main/engine/write/upsert.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { prng } from '../fixtures/generate.ts';
import { runs } from '../fixtures/effort.ts';

const tmp = engineTempDir();

/** Convert with the iconv binary. */
function iconv(from: string, to: string, input: Buffer | string): Buffer {
  return execFileSync('iconv', ['-f', from, '-t', to], { input, maxBuffer: 1 << 28 });
}

type Variant = 'le-bom' | 'be-bom' | 'le' | 'be';
const ENCODING = { 'le-bom': 'utf-16le', 'be-bom': 'utf-16be', le: 'utf-16le', be: 'utf-16be' } as const;

/** UTF-16 bytes of `text` as `variant` (iconv's UTF-16LE/BE never write a BOM: it is added here). */
function utf16(text: string, variant: Variant): Buffer {
  const be = variant.startsWith('be');
  const body = iconv('UTF-8', be ? 'UTF-16BE' : 'UTF-16LE', text);
  if (!variant.endsWith('bom')) return body;
  return Buffer.concat([Buffer.from(be ? [0xfe, 0xff] : [0xff, 0xfe]), body]);
}

/** Back to UTF-8 with iconv (the BOM, if any, dropped). */
function backToUtf8(bytes: Buffer, variant: Variant): string {
  const bom = variant.endsWith('bom') ? 2 : 0;
  return iconv(variant.startsWith('be') ? 'UTF-16BE' : 'UTF-16LE', 'UTF-8', bytes.subarray(bom)).toString('utf8');
}

let n = 0;
function file(bytes: Buffer): string {
  const p = tmp.path(`w${n++}.txt`);
  writeFileSync(p, bytes);
  return p;
}

/**
 * Realistic mixed text: ASCII log words, CJK, characters outside the BMP (surrogate
 * pairs), and units whose low or high byte is 0x0A or 0x0D (U+010A Ċ, U+0A0A ਊ,
 * U+0D0A ഊ, U+0A0D), which a byte-level '\n' count would miscount.
 */
function sourceText(lines: number, seed: number, opts: { crlf?: boolean; longLineEvery?: number } = {}): string {
  const rand = prng(seed);
  const pieces = ['request ok', '日本語のログ', '中文文本', '😀 emoji', '𝄞 clef', 'Ċ dot', 'ਊ gurmukhi', 'ഊ malayalam', '\u0a0d', 'naïve café', 'Привет', 'x'];
  const nl = opts.crlf ? '\r\n' : '\n';
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const words = [`${i}`];
    const k = 1 + Math.floor(rand() * 8);
    for (let w = 0; w < k; w++) words.push(pieces[Math.floor(rand() * pieces.length)]!);
    if (opts.longLineEvery && i % opts.longLineEvery === opts.longLineEvery - 1) words.push('長い行😀'.repeat(400));
    out.push(words.join(' ') + nl);
  }
  return out.join('');
}

/** Lines of `text` with their terminators, as read answers give them. */
const linesOf = (text: string) => text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
/** `wc -l` of the UTF-8 source: the line count oracle. */
const wcL = (p: string) => Number(execFileSync('wc', ['-l', p], { encoding: 'utf8' }).trim().split(/\s+/)[0]);

function expectEvenOffsets(r: ReadResult) {
  for (const v of [r.startByte, r.endByte, r.nextStartByte ?? 0, ...(r.ranges ?? []).flatMap((x) => [x.startByte, x.endByte])]) expect(v % 2).toBe(0);
}

describe('UTF-16 index and file facts', () => {
  for (const variant of ['le-bom', 'be-bom', 'le', 'be'] as const) {
    it(`${variant}: line count equals wc -l of the UTF-8 source; encoding, BOM and newline style are reported`, async () => {
      const text = sourceText(500, 1, { crlf: variant === 'be' });
      const src = tmp.path(`src-${variant}.txt`);
      writeFileSync(src, text);
      const p = file(utf16(text, variant));
      const info = await fileInfo(p);
      expect(info).toMatchObject({
        encoding: ENCODING[variant],
        bom: variant.endsWith('bom'),
        lines: wcL(src),
        newlines: wcL(src),
        newlineStyle: variant === 'be' ? 'crlf' : 'lf',
        finalNewline: true,
        binary: { isBinary: false },
        utf8: { valid: true, firstInvalidOffset: null },
      });
    });
  }

  it('iconv -t UTF-16 (which writes its own BOM) is recognised', async () => {
    const p = file(iconv('UTF-8', 'UTF-16', 'a\nb\n'));
    const info = await fileInfo(p);
    expect(info.encoding).toMatch(/^utf-16(le|be)$/);
    expect(info).toMatchObject({ bom: true, lines: 2 });
  });

  it('the worker-pool build splits on even boundaries and equals the in-thread build, with a surrogate pair and a CRLF across block edges', async () => {
    // ~3 MiB of UTF-16 so the pool gets several pieces; pairs and CR LF straddle 64 KiB edges.
    let text = sourceText(40_000, 2, { crlf: true });
    const bytes = utf16(text, 'le-bom');
    for (const edge of [65536, 131072, 65536 * 7]) {
      // Put "😀" (D83D DE00) so its high unit ends at edge and its low starts there; then CR at edge+2 / LF at edge+4... in units.
      bytes.writeUInt16LE(0xd83d, edge - 2);
      bytes.writeUInt16LE(0xde00, edge);
      bytes.writeUInt16LE(0x0d, edge + 65536 - 2);
      bytes.writeUInt16LE(0x0a, edge + 65536);
    }
    text = backToUtf8(bytes, 'le-bom');
    const p = file(bytes);
    const pooled = await buildIndex(p, { threads: 4, smallFileBytes: 0 });
    const single = await buildIndex(p, { threads: 0 });
    expect(pooled.newlines).toBe(single.newlines);
    expect(pooled.facts).toEqual(single.facts);
    expect(pooled.facts.firstInvalid).toBeNull();
    expect(pooled.newlines).toBe(linesOf(text).filter((l) => l.endsWith('\n')).length);
    for (let line = 0; line < single.lineCount; line += 997) expect(pooled.lineStart(line)).toBe(single.lineStart(line));
  });

  it('a lone surrogate across a piece boundary is found by the pooled build at its offset', async () => {
    const bytes = utf16(sourceText(40_000, 3), 'le');
    bytes.writeUInt16LE(0xd800, 65536 * 5 - 2); // high surrogate, then whatever unit starts the next piece
    bytes.writeUInt16LE(0x41, 65536 * 5);
    const p = file(bytes);
    const pooled = await buildIndex(p, { threads: 4, smallFileBytes: 0 });
    expect(pooled.facts.firstInvalid).toBe(65536 * 5 - 2);
    expect((await buildIndex(p, { threads: 0 })).facts.firstInvalid).toBe(65536 * 5 - 2);
  });

  it('extend() on a growing UTF-16 log equals a full rebuild, with a CR LF pair and a surrogate pair cut by the append', async () => {
    const { appendFileSync } = await import('node:fs');
    const first = utf16(sourceText(3000, 7, { crlf: true }), 'le-bom');
    const p = file(Buffer.concat([first, Buffer.from([0x0d, 0x00, 0x3d, 0xd8])])); // ends with CR and a high surrogate
    const index = await openIndex(p);
    expect(index.facts.firstInvalid).toBe(first.length + 2); // for now: a high surrogate at the very end
    appendFileSync(p, Buffer.concat([Buffer.from([0x00, 0xde, 0x0a, 0x00]), utf16(sourceText(2000, 8, { crlf: true }), 'le')]));
    expect(index.extend()).toBe('extended');
    const fresh = await buildIndex(p, { threads: 0 });
    expect(index.newlines).toBe(fresh.newlines);
    expect(fresh.facts.firstInvalid).toBeNull();
    expect(index.facts).toEqual(fresh.facts);
    expect(index.lineCount).toBe(fresh.lineCount);
    for (let line = 0; line < fresh.lineCount; line += 173) expect(index.lineStart(line)).toBe(fresh.lineStart(line));
  });

  it('UTF-8 text and binary files are not mistaken for BOM-less UTF-16', async () => {
    expect((await fileInfo(file(Buffer.from('plain ascii\nand more\n')))).encoding).toBe('utf-8');
    expect((await fileInfo(file(Buffer.from('abc\0def\n')))).encoding).toBe('binary');
    expect((await fileInfo(file(Buffer.from([1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0])))).encoding).toBe('binary');
  });
});

describe('UTF-16 reads, differential against the UTF-8 source', () => {
  const text = sourceText(300, 4, { longLineEvery: 97 });
  const lines = linesOf(text);
  const paths = { 'le-bom': '', 'be-bom': '', le: '', be: '' } as Record<Variant, string>;
  const pathOf = (v: Variant) => (paths[v] ||= file(utf16(text, v)));

  for (const variant of ['le-bom', 'be'] as const) {
    it(`${variant}: line ranges, head, tail and full equal the source's lines`, async () => {
      const p = pathOf(variant);
      const r = await read(p, {
        mode: 'lines',
        ranges: [
          { start: 5, end: 9 },
          { start: 120, end: 130 },
        ],
      });
      expect(r.encoding).toBe(ENCODING[variant]);
      expect(r.ranges!.map((x) => x.content)).toEqual([lines.slice(4, 9).join(''), lines.slice(119, 130).join('')]);
      expectEvenOffsets(r);
      expect((await read(p, { mode: 'head', lines: 3 })).content).toBe(lines.slice(0, 3).join(''));
      expect((await read(p, { mode: 'tail', lines: 4 })).content).toBe(lines.slice(-4).join(''));
      const full = await read(p, { mode: 'full' });
      expect(full.content).toBe(text);
      expect(full.totalLines).toBe(lines.length);
      expect(full.bom).toBe(variant === 'le-bom');
    });

    it(`${variant}: byte windows page through the file once, whole lines or cuts outside surrogate pairs`, async () => {
      const p = pathOf(variant);
      for (const maxBytes of [65536, 1001, 37]) {
        let at = 0;
        let joined = '';
        for (let guard = 0; guard < 20000; guard++) {
          const r = await read(p, { mode: 'bytes', startByte: at, maxBytes });
          expectEvenOffsets(r);
          expect(r.content).not.toContain('\uFFFD');
          joined += r.content;
          if (r.nextStartByte === null || r.nextStartByte === undefined) break;
          at = r.nextStartByte;
        }
        expect(joined).toBe(text);
      }
      // An odd start byte is a position inside a unit: the window starts at its line.
      const r = await read(p, { mode: 'bytes', startByte: 1001, maxBytes: 65536 });
      expectEvenOffsets(r);
      expect(lines.join('').startsWith(r.content) || text.includes(r.content)).toBe(true);
    });

    it(`${variant}: pages rejoin to the source, and hashlines hash the file's own bytes`, async () => {
      const p = pathOf(variant);
      let joined = '';
      for (let page = 1; ; page++) {
        const r = await read(p, { mode: 'page', page, pageChars: 3000 });
        joined += r.content;
        if (!r.nextPage) break;
      }
      expect(joined).toBe(text);
      const h = await read(p, { mode: 'lines', ranges: [{ start: 1, end: 3 }] }, { hashlines: true });
      const rows = h.content.split(/(?=^\d+#)/m);
      expect(rows.map((row) => row.replace(/^\d+#[0-9a-f]{3}\|/, ''))).toEqual(lines.slice(0, 3));
      const anchors = rows.map((row) => row.slice(0, row.indexOf('|')));
      // The anchors hold for an upsert of the same file (same hashing on both sides).
      const copy = file(readFileSync(p));
      await expect(
        upsert(copy, { target: { kind: 'replace', start: 2, end: 2, units: 'lines' }, content: 'two', preconditions: { anchors } }),
      ).resolves.toMatchObject({ applied: true });
    });
  }

  it('exact bytes snap to code units and surrogate pairs, with reasons, and content equals iconv of the actual range', async () => {
    const variant = 'le-bom';
    const p = pathOf(variant);
    const bytes = readFileSync(p);
    // Find a surrogate pair: the low unit's offset.
    let low = -1;
    for (let i = 2; i + 1 < bytes.length; i += 2) {
      const u = bytes.readUInt16LE(i);
      if (u >= 0xdc00 && u <= 0xdfff) {
        low = i;
        break;
      }
    }
    expect(low).toBeGreaterThan(0);
    const r = await read(p, { mode: 'exact', startByte: low, endByte: low + 41 });
    expect(r.actualRange!.startByte).toBe(low - 2);
    expect(r.adjustments![0]).toMatchObject({ edge: 'start', from: low, to: low - 2 });
    expect(r.adjustments![0]!.reason).toMatch(/UTF-16/);
    expectEvenOffsets(r);
    expect(r.content).toBe(iconv('UTF-16LE', 'UTF-8', bytes.subarray(r.actualRange!.startByte, r.actualRange!.endByte)).toString());
    // The BOM is not content.
    const head = await read(p, { mode: 'exact', startByte: 0, endByte: 9 });
    expect(head.content).toBe(text.slice(0, 4)); // 4 UTF-16 units: end 9 moved to 10
    expect(head.adjustments).toEqual([
      { edge: 'end', from: 9, to: 10, reason: expect.stringMatching(/UTF-16/) },
      { edge: 'start', from: 0, to: 2, reason: 'the byte-order mark is not content' },
    ]);
  });

  it('search: the matching lines of grep over the source, with real even byte offsets', async () => {
    for (const variant of ['le-bom', 'be', 'le'] as const) {
      const p = pathOf(variant);
      const bytes = readFileSync(p);
      for (const pattern of ['ਊ', 'Ċ dot', '😀 emoji', '^\\d+5 ', 'x$']) {
        const res = await searchPath(p, { pattern, maxMatches: 10_000 });
        const re = new RegExp(pattern, 'u');
        const expected = lines.flatMap((l, i) => (re.test(l.replace(/\n$/, '')) ? [i + 1] : []));
        expect(
          res.matches.map((m) => m.line),
          `${variant} /${pattern}/`,
        ).toEqual(expected);
        for (const m of res.matches) {
          expect(m.byteOffset % 2).toBe(0);
          const line = lines[m.line - 1]!.replace(/\n$/, '');
          const hit = re.exec(line)!;
          const at = bytes.subarray(m.byteOffset, m.byteOffset + 2 * hit[0].length);
          expect(iconv(ENCODING[variant].toUpperCase(), 'UTF-8', at).toString()).toBe(hit[0]);
        }
        const counted = await searchPath(p, { pattern, countOnly: true });
        expect(counted.count).toBe(expected.length);
      }
    }
  });

  it('ill-formed UTF-16 is replaced and reported, or refused under invalid_utf8: error', async () => {
    const bytes = utf16('good line\nbad here\nlast\n', 'le-bom');
    const at = 2 + 2 * 'good line\nbad '.length;
    bytes.writeUInt16LE(0xdc00, at); // a lone low surrogate
    const p = file(bytes);
    const r = await read(p, { mode: 'full' });
    expect(r.content).toBe('good line\nbad \uFFFDere\nlast\n');
    expect(r.invalidUtf8).toEqual({ replaced: 1, firstOffset: at });
    await expect(read(p, { mode: 'lines', ranges: [{ start: 2, end: 2 }] }, { invalidUtf8: 'error' })).rejects.toMatchObject({
      code: 'encoding_mismatch',
      details: { first_invalid_offset: at, encoding: 'utf-16le' },
    });
    await expect(read(p, { mode: 'head', lines: 1 }, { invalidUtf8: 'error' })).resolves.toMatchObject({ content: 'good line\n' });
  });
});

describe('UTF-16: what addresses UTF-8 only', () => {
  it('sections, outlines, JSON paths and tokens of a UTF-16 file are encoding_mismatch, naming the encoding and what to use instead', async () => {
    const { handle } = await import('../../src-main/api/handle.ts');
    const human = { kind: 'human', name: 'test' } as const;
    const md = file(utf16('# A\n\ntext\n\n## B\n\nmore\n', 'le-bom'));
    const json = file(utf16('{"a":[1,2]}\n', 'be'));
    const asked = [
      () => handle('read', { path: md, section: 'A > B' }, human),
      () => handle('outline', { path: md }, human),
      () => handle('read', { path: json, json_path: '$.a' }, human),
      () => handle('read', { path: md, token_start: 0, token_end: 3 }, human),
      () => handle('read', { path: md, page_tokens: 100, page: 1 }, human),
    ];
    for (const [i, call] of asked.entries()) {
      await expect(call(), `call ${i}`).rejects.toMatchObject({
        code: 'encoding_mismatch',
        message: expect.stringContaining('read it by lines, bytes or pages'),
        details: { encoding: i === 2 ? 'utf-16be' : 'utf-16le' },
      });
    }
    // What the message offers works: the same file by lines.
    await expect(handle('read', { path: md, offset: 5, limit: 3 }, human)).resolves.toMatchObject({ content: '## B\n\nmore\n' });
  });
});

describe('UTF-16 upserts', () => {
  const etag = async (p: string) => (await read(p, { mode: 'head', lines: 0 })).version.etag;
  async function edit(p: string, target: UpsertRequest['target'], content = '') {
    return upsert(p, { target, content, preconditions: { ifMatch: await etag(p) } });
  }

  for (const variant of ['le-bom', 'be-bom', 'le'] as const) {
    it(`${variant}: replace, insert, delete and append write the file's own encoding; untouched bytes stay byte-exact`, async () => {
      const text = sourceText(50, 5, { crlf: variant === 'be-bom' });
      const nl = variant === 'be-bom' ? '\r\n' : '\n';
      const before = utf16(text, variant);
      const p = file(before);
      const lines = linesOf(text);
      const r = await edit(p, { kind: 'replace', start: 3, end: 4, units: 'lines' }, '新しい 😀 line\nsecond');
      expect(r.range_before.start_byte % 2).toBe(0);
      let expected = [...lines.slice(0, 2), `新しい 😀 line${nl}second${nl}`, ...lines.slice(4)].join('');
      let now = readFileSync(p);
      expect(backToUtf8(now, variant)).toBe(expected);
      expect(now.subarray(0, r.range_before.start_byte).equals(before.subarray(0, r.range_before.start_byte))).toBe(true);
      expect(now.subarray(r.range_after.end_byte).equals(before.subarray(r.range_before.end_byte))).toBe(true);
      expect(r.affected.lines).toEqual({ removed: 2, inserted: 2 });
      expect(r.preview).toContain('+新しい 😀 line');

      await edit(p, { kind: 'insert', at: 1, units: 'lines' }, 'top');
      await edit(p, { kind: 'delete', start: 10, end: 12, units: 'lines' });
      await edit(p, { kind: 'append' }, `tail ਊ${nl}`);
      const l2 = linesOf(expected);
      expected = ['top' + nl, ...l2.slice(0, 8), ...l2.slice(11), `tail ਊ${nl}`].join('');
      now = readFileSync(p);
      expect(backToUtf8(now, variant)).toBe(expected);
      if (variant.endsWith('bom')) expect([...now.subarray(0, 2)]).toEqual(variant === 'le-bom' ? [0xff, 0xfe] : [0xfe, 0xff]);
      const info = await fileInfo(p);
      expect(info).toMatchObject({ encoding: ENCODING[variant], lines: linesOf(expected).length });
      expect((await read(p, { mode: 'full' })).content).toBe(expected);
    });
  }

  it('a no-op replace (same content) leaves the file byte-exact', async () => {
    const text = sourceText(30, 6);
    const before = utf16(text, 'be-bom');
    const p = file(before);
    await edit(p, { kind: 'replace', start: 7, end: 9, units: 'lines' }, linesOf(text).slice(6, 9).join(''));
    expect(readFileSync(p).equals(before)).toBe(true);
  });

  it('byte targets must be even and outside surrogate pairs and the BOM (invalid_range); the file is unchanged', async () => {
    const before = utf16('a😀b\nline two\n', 'le-bom');
    const p = file(before);
    await expect(edit(p, { kind: 'insert', at: 5, units: 'bytes' }, 'x')).rejects.toMatchObject({
      code: 'invalid_range',
      details: { at: 5, encoding: 'utf-16le' },
    });
    await expect(edit(p, { kind: 'insert', at: 6, units: 'bytes' }, 'x')).rejects.toMatchObject({
      code: 'invalid_range',
      message: expect.stringMatching(/surrogate pair/),
    });
    await expect(edit(p, { kind: 'replace', start: 1, end: 4, units: 'bytes' }, 'x')).rejects.toMatchObject({ code: 'invalid_range' });
    expect(readFileSync(p).equals(before)).toBe(true);
    // Even, outside the pair: fine, and encoded in UTF-16LE.
    await edit(p, { kind: 'replace', start: 8, end: 10, units: 'bytes' }, 'B');
    expect(backToUtf8(readFileSync(p), 'le-bom')).toBe('a😀B\nline two\n');
  });

  it('contentBytes writes an exact inverse verbatim (what undo needs): the file is byte-exact again', async () => {
    const before = utf16('one\r\ntwo 😀\r\nthree\r\n', 'be-bom');
    const p = file(before);
    const r = await upsert(p, {
      target: { kind: 'replace', start: 2, end: 2, units: 'lines' },
      content: 'TWO\n',
      preconditions: { ifMatch: await etag(p) },
      captureBytes: true,
    });
    expect(backToUtf8(readFileSync(p), 'be-bom')).toBe('one\r\nTWO\r\nthree\r\n');
    await upsert(p, {
      target: { kind: 'replace', start: r.range_after.start_byte, end: r.range_after.end_byte, units: 'bytes' },
      content: '',
      contentBytes: r.removed!,
      normalizeNewlines: false,
      preconditions: { ifMatch: await etag(p) },
    });
    expect(readFileSync(p).equals(before)).toBe(true);
  });

  it('expected_range_sha256 is the SHA-256 of the file bytes of the range', async () => {
    const { createHash } = await import('node:crypto');
    const bytes = utf16('one\ntwo\nthree\n', 'be-bom');
    const p = file(bytes);
    const start = 2 + 2 * 'one\n'.length;
    const end = start + 2 * 'two\n'.length;
    const sha = createHash('sha256').update(bytes.subarray(start, end)).digest('hex');
    await upsert(p, { target: { kind: 'replace', start: 2, end: 2, units: 'lines' }, content: 'TWO', preconditions: { expectedRangeSha256: sha } });
    expect(backToUtf8(readFileSync(p), 'be-bom')).toBe('one\nTWO\nthree\n');
  });

  it('the index after an edit equals a full rebuild, for random edits on UTF-16 files of several 64 KiB blocks', async () => {
    const piece = fc.constantFrom('a', '中', '😀', 'Ċ', 'ਊ', '\n', '\r\n', 'x'.repeat(100), '\n\n');
    const content = fc.array(piece, { maxLength: 40 }).map((a) => a.join(''));
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 2500 }),
        content,
        fc.nat(),
        fc.nat(),
        fc.constantFrom('insert', 'replace', 'delete'),
        // BOM-less files are left out: an edit may make their head ambiguous (upserts add a note then).
        fc.constantFrom<Variant>('le-bom', 'be-bom'),
        async (count, c, s0, s1, kind, variant) => {
          const base =
            Array.from({ length: count }, (_, i) => `line ${i} ${'ਊ'.repeat(i % 53)}${i % 17 === 0 ? '😀' : ''}`).join('\n') + (count % 2 ? '\n' : '');
          const p = file(utf16(base, variant));
          const total = (await read(p, { mode: 'head', lines: 0 })).totalLines!;
          const a = total ? 1 + (s0 % total) : 1;
          const b = total ? a + (s1 % (total - a + 1)) : 1;
          const target: UpsertRequest['target'] =
            kind === 'insert' || total === 0
              ? { kind: 'insert', at: a, units: 'lines' }
              : kind === 'replace'
                ? { kind: 'replace', start: a, end: b, units: 'lines' }
                : { kind: 'delete', start: a, end: b, units: 'lines' };
          await edit(p, target, target.kind === 'delete' ? '' : c);
          const live = await openIndex(p);
          const fresh = await buildIndex(p, { threads: 0 });
          expect(live.layout).toBe(fresh.layout);
          expect(live.newlines).toBe(fresh.newlines);
          expect(live.facts).toEqual(fresh.facts);
          expect(live.lineCount).toBe(fresh.lineCount);
          expect(live.finalNewline).toBe(fresh.finalNewline);
          for (let line = 0; line <= fresh.lineCount; line += Math.max(1, Math.floor(fresh.lineCount / 50))) {
            expect(live.lineStart(line)).toBe(fresh.lineStart(line));
          }
        },
      ),
      runs(30),
    );
  });
});
