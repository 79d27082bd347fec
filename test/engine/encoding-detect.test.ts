/**
 * The encoding verdict follows the evidence of the whole file, counted by the
 * index pass, and is checked against independent tools: Python's UTF-8 decoder
 * (errors="replace") for the counts and the decoded text, iconv for legacy text,
 * grep for search counts, tr for NUL bytes. Generated mixes: ASCII and UTF-8 text
 * with a binary blob anywhere (never a legacy encoding: UTF-8 when valid
 * multi-byte characters outnumber ill-formed sequences), Latin-1 text, Shift_JIS text.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { fileInfo } from '../../src-main/engine/read/file-info.ts';
import { read } from '../../src-main/engine/read/read.ts';
import { searchPath } from '../../src-main/engine/search/search-path.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { prng } from '../fixtures/generate.ts';
import { PythonOracle } from '../fixtures/python-oracle.ts';
import { textBytes } from '../wasm/arbitraries.ts';
import { runs } from '../fixtures/effort.ts';

const tmp = engineTempDir();
let n = 0;
function file(bytes: Uint8Array): string {
  const p = tmp.path(`enc-${n++}.txt`);
  writeFileSync(p, bytes);
  return p;
}

/** Python's UTF-8 decoder, the reference: one interpreter for the file (test/fixtures/python-oracle.ts). */
const py3 = new PythonOracle();
afterAll(() => py3.close());
const python = (bytes: Uint8Array) => py3.utf8(bytes);

/** Lines of `path` holding `needle`, as `grep -a -c -F` counts them (bytes, no decoding). */
function grepCount(path: string, needle: string): number {
  const r = spawnSync('grep', ['-a', '-c', '-F', needle, path], { encoding: 'utf8' });
  return Number(r.stdout.trim());
}

function iconv(to: string, text: string): Buffer {
  return execFileSync('iconv', ['-f', 'UTF-8', '-t', to], { input: text });
}

const IDENTS = ['alloc', 'buffer', 'config', 'driver', 'entry', 'flush', 'guard', 'handle', 'index', 'journal'];
const UTF8_EXTRAS = ['// 中文注释: 读取文件', '/* café crème */', 'Grüße aus Köln', '日本語のコメント', '// é', 'emoji 🚀 done'];

/** Source-code-like UTF-8 text of about `bytes` bytes, with multi-byte lines at `rate` (0..1). */
function sourceText(seed: number, bytes: number, rate: number): string {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const out: string[] = [];
  let size = 0;
  while (size < bytes) {
    const line = rand() < rate ? `\t${pick(UTF8_EXTRAS)}` : `\t${pick(IDENTS)}_${pick(IDENTS)}(${pick(IDENTS)}, ${Math.floor(rand() * 4096)});`;
    out.push(line + '\n');
    size += Buffer.byteLength(line) + 1;
  }
  return out.join('');
}

/** A binary blob like an embedded GIF: its header (NUL bytes in the screen descriptor), then random bytes. */
function gifBlob(seed: number, bytes: number): Buffer {
  const rand = prng(seed);
  const body = Buffer.from(Array.from({ length: bytes }, () => Math.floor(rand() * 256)));
  return Buffer.concat([Buffer.from('GIF89a'), Buffer.from([0x0a, 0x00, 0x0a, 0x00, 0xf7, 0x00, 0x00]), body]);
}

const HEAD = 64 * 1024;

describe('encoding verdict from whole-file evidence', () => {
  it('ASCII and UTF-8 text with a binary blob anywhere: UTF-8 when valid multi-byte characters outnumber ill-formed sequences, never a legacy encoding; counts, reads and search agree with Python and grep', async () => {
    const mix = fc.record({
      seed: fc.integer({ min: 1, max: 1 << 30 }),
      textBytes: fc.integer({ min: 2_000, max: 200_000 }),
      rate: fc.constantFrom(0, 0.002, 0.02, 0.2),
      blobBytes: fc.integer({ min: 0, max: 20_000 }),
      at: fc.double({ min: 0, max: 1, noNaN: true }),
    });
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(mix, async ({ seed, textBytes, rate, blobBytes, at }) => {
        const text = Buffer.from(sourceText(seed, textBytes, rate));
        // Between two lines, as a concatenation of files would have it.
        const nl = text.indexOf(10, Math.floor(at * text.length));
        const cut = nl < 0 ? text.length : nl + 1;
        const bytes = Buffer.concat([text.subarray(0, cut), gifBlob(seed, blobBytes), Buffer.from('\n'), text.subarray(cut)]);
        const p = file(bytes);
        const py = await python(bytes);
        const info = await fileInfo(p);
        expect(info.utf8).toEqual({ valid: py.first === null, firstInvalidOffset: py.first, invalidSequences: py.invalid, multibyteChars: py.multibyte });
        const headNul = bytes.subarray(0, HEAD).filter((b) => b === 0).length;
        if (headNul > 0) {
          expect(info.encoding).toBe('binary');
          const where = bytes.length > HEAD ? `the first ${HEAD} of its ${bytes.length} bytes` : `its ${bytes.length} bytes`;
          expect(info.binary.reason).toContain(`${headNul} NUL byte(s) in ${where}`);
          seen.add('binary');
          return;
        }
        const expected = py.multibyte > py.invalid ? 'utf-8' : 'unknown';
        seen.add(expected);
        expect(info.encoding).toBe(expected);
        // Decoded as UTF-8 either way: the bad bytes replaced and reported, as Python replaces them.
        const r = await read(p, { mode: 'full' });
        expect(r.content).toBe(py.text);
        expect(r.invalidUtf8).toEqual(py.first === null ? undefined : { replaced: py.invalid, firstOffset: py.first });
        for (const needle of ['中文', 'é', 'alloc']) {
          const s = await searchPath(p, { pattern: needle, countOnly: true });
          expect(s.count, needle).toBe(grepCount(p, needle));
          expect(s.encoding).toBe(expected);
          expect(s.invalidUtf8).toEqual(py.first === null ? undefined : { invalidSequences: py.invalid, firstOffset: py.first });
        }
      }),
      runs(40, { seed: 1616 }),
    );
    // The generator reaches every verdict (else the property says little).
    expect([...seen].sort()).toEqual(['binary', 'unknown', 'utf-8']);
  });

  it('Latin-1 text made by iconv is a Western legacy encoding and reads back as the source text', async () => {
    const words = [
      'café',
      'crème',
      'brûlée',
      'élève',
      'garçon',
      'naïf',
      'Straße',
      'Grüße',
      'Köln',
      'über',
      'année',
      'forêt',
      'the',
      'und',
      'le',
      'la',
      'de',
      'et',
    ];
    const lines = fc.array(fc.array(fc.constantFrom(...words), { minLength: 3, maxLength: 14 }), { minLength: 20, maxLength: 300 });
    await fc.assert(
      fc.asyncProperty(lines, async (ls) => {
        const text = ls.map((w, i) => `${i + 1}. ${w.join(' ')}.\n`).join('');
        const bytes = iconv('LATIN1', text);
        const p = file(bytes);
        const py = await python(bytes);
        const info = await fileInfo(p);
        expect(info.utf8).toMatchObject({ valid: false, invalidSequences: py.invalid, multibyteChars: py.multibyte });
        expect(['iso-8859-1', 'windows-1252', 'iso-8859-15']).toContain(info.encoding);
        const r = await read(p, { mode: 'full' });
        expect(r.content).toBe(text);
        expect(r.invalidUtf8).toBeUndefined();
      }),
      runs(25, { seed: 1617 }),
    );
  });

  it('Shift_JIS text made by iconv is shift_jis (its accidental UTF-8 sequences notwithstanding) and reads back as the source text', async () => {
    const phrases = [
      '日本語',
      'のテキスト',
      'です。',
      '東京は',
      '首都',
      'であり、',
      '吾輩は猫である。',
      '名前はまだ無い。',
      'カタカナ',
      'ひらがな',
      '漢字',
      '春はあけぼの。',
    ];
    const lines = fc.array(fc.array(fc.constantFrom(...phrases), { minLength: 2, maxLength: 12 }), { minLength: 20, maxLength: 300 });
    await fc.assert(
      fc.asyncProperty(lines, async (ls) => {
        const text = ls.map((w, i) => `${i + 1}: ${w.join('')}\n`).join('');
        const bytes = iconv('SHIFT_JIS', text);
        const p = file(bytes);
        const py = await python(bytes);
        const info = await fileInfo(p);
        expect(info.utf8).toMatchObject({ valid: false, invalidSequences: py.invalid, multibyteChars: py.multibyte });
        expect(info.encoding).toBe('shift_jis');
        expect((await read(p, { mode: 'full' })).content).toBe(text);
      }),
      runs(25, { seed: 1618 }),
    );
  });

  it('random invalid files: never a legacy encoding when valid multi-byte characters (U+FFFD written in the file too) outnumber ill-formed sequences, nor with more than 1 per 2', async () => {
    // Words in UTF-8, U+FFFD written as UTF-8 (a valid character, not an error), Latin-1 words, random text pieces.
    const token = fc.oneof(
      fc.constantFrom('café ', 'naïve ', 'Grüße ', '中文 ', 'the ', 'and ', 'log ', '\n').map((t) => Buffer.from(t)),
      fc.constantFrom('\uFFFD', '\uFFFD\uFFFD ').map((t) => Buffer.from(t)),
      fc.constantFrom('café ', 'naïve ', 'Grüße ', 'à ', 'crème ').map((t) => Buffer.from(t, 'latin1')),
    );
    const tokens = fc.array(token, { minLength: 20, maxLength: 600 }).map((ts) => Buffer.concat(ts));
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.oneof(tokens, textBytes(400)), async (bytes) => {
        const p = file(Buffer.concat([Buffer.from('# random\n'), bytes]));
        const info = await fileInfo(p);
        if (info.utf8.valid || info.encoding === 'binary') return;
        const py = await python(readFileSync(p));
        expect(info.utf8).toMatchObject({ invalidSequences: py.invalid, multibyteChars: py.multibyte });
        seen.add(py.multibyte > py.invalid ? 'more valid' : 'more invalid');
        if (py.multibyte > py.invalid) expect(info.encoding).toBe('utf-8');
        else if (info.encoding !== 'unknown') expect(py.multibyte * 2).toBeLessThanOrEqual(py.invalid);
      }),
      runs(150, { seed: 1619 }),
    );
    expect([...seen].sort()).toEqual(['more invalid', 'more valid']);
  });

  it('a short file with a few UTF-8 characters and one invalid sequence is UTF-8, and reads report the bad byte', async () => {
    const bytes = Buffer.concat([Buffer.from('Zażółć gęślą jaźń\n'), Buffer.from([0xff]), Buffer.from('\n')]);
    const p = file(bytes);
    const py = await python(bytes);
    expect(py).toMatchObject({ invalid: 1, first: bytes.indexOf(0xff) });
    expect((await fileInfo(p)).encoding).toBe('utf-8');
    const r = await read(p, { mode: 'full' });
    expect(r).toMatchObject({ encoding: 'utf-8', content: py.text, invalidUtf8: { replaced: 1, firstOffset: py.first } });
  });

  it('a UTF-8 byte-order mark declares UTF-8: Latin-1 bytes after it are reported as invalid, not read as a legacy encoding', async () => {
    const body = Buffer.from(Array.from({ length: 40 }, (_, i) => `\xffword ${i} caf\xe9 cr\xe8me\n`).join(''), 'latin1');
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]);
    const p = file(bytes);
    const py = await python(bytes.subarray(3));
    expect(py.invalid).toBe(120);
    expect((await fileInfo(p)).encoding).toBe('utf-8');
    const r = await read(p, { mode: 'full' });
    expect(r).toMatchObject({ encoding: 'utf-8', bom: true, content: py.text, invalidUtf8: { replaced: 120, firstOffset: 3 } });
  });

  it('a few Latin-1 bytes are too little evidence: unknown, read as UTF-8 with the report', async () => {
    const bytes = Buffer.from('caf\xe9 cr\xe8me\n', 'latin1');
    const p = file(bytes);
    expect((await fileInfo(p)).encoding).toBe('unknown');
    expect((await read(p, { mode: 'full' })).invalidUtf8).toEqual({ replaced: 2, firstOffset: 3 });
  });

  it('binary.reason is true of a text file with NUL bytes past its head: it says only the head was sniffed', async () => {
    const text = Buffer.from(sourceText(5, 200_000, 0.05));
    const bytes = Buffer.concat([text.subarray(0, 150_000), gifBlob(6, 3000), text.subarray(150_000)]);
    const p = file(bytes);
    const nul = (b: Buffer) => Number(execFileSync('sh', ['-c', `tr -cd '\\000' | wc -c`], { input: b }).toString().trim());
    expect(nul(bytes)).toBeGreaterThan(0);
    expect(nul(bytes.subarray(0, HEAD))).toBe(0);
    const info = await fileInfo(p);
    expect(info.binary).toMatchObject({
      isBinary: false,
      reason: `text: no NUL byte and 0 control byte(s) in the first ${HEAD} of its ${bytes.length} bytes (only the head is sniffed)`,
    });
  });
});
