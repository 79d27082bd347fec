/**
 * Legacy-encoded files made with the real `iconv` binary from realistic UTF-8 text
 * (a few KB, so the detector has enough to go on): the encoding is detected and
 * reported with a confidence, reads and search decode it, upserts are refused.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fileInfo } from '../../src-main/engine/read/file-info.ts';
import { read } from '../../src-main/engine/read/read.ts';
import { searchPath } from '../../src-main/engine/search/search-path.ts';
import { upsert } from '../../src-main/engine/write/upsert.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';

const tmp = engineTempDir();

function iconv(from: string, to: string, input: Buffer | string): Buffer {
  return execFileSync('iconv', ['-f', from, '-t', to], { input });
}

const FRENCH = [
  'Le café est une boisson préparée à partir des grains torréfiés du caféier.',
  "Élève déjà reçu à l'université, le garçon naïf rêvait d'être pâtissier à Besançon.",
  'Où que tu ailles, la forêt sera là ; les hêtres, les chênes et les frênes aussi.',
  'Noël approche : les enfants préparent des crêpes et décorent le sapin près de la fenêtre.',
  // Characters only windows-1252 has (0x80-0x9F): without them it is indistinguishable from ISO-8859-1.
  'L’été coûte 5 € de plus… dit-il, le cœur léger ; « Œuvre » n’est pas “œuvre”.',
];
const JAPANESE = [
  '日本語のテキストです。これは文字コードの検出のための文章です。',
  '東京は日本の首都であり、世界でも有数の大都市です。',
  '吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。',
  '春はあけぼの。やうやう白くなりゆく山ぎは、すこしあかりて、紫だちたる雲のほそくたなびきたる。',
];
const RUSSIAN = [
  'Москва - столица России, город федерального значения и крупнейший город страны.',
  'Съешь же ещё этих мягких французских булок, да выпей чаю.',
  'В лесу родилась ёлочка, в лесу она росла; зимой и летом стройная, зелёная была.',
  'Все счастливые семьи похожи друг на друга, каждая несчастливая семья несчастлива по-своему.',
];

/** About `lines` numbered lines cycling through `sentences`. */
function textOf(sentences: string[], lines: number): string {
  return Array.from({ length: lines }, (_, i) => `${i + 1}. ${sentences[i % sentences.length]}\n`).join('');
}

const CASES = [
  { encoding: 'windows-1252', iconvName: 'WINDOWS-1252', text: textOf(FRENCH, 60), word: 'pâtissier' },
  { encoding: 'shift_jis', iconvName: 'SHIFT_JIS', text: textOf(JAPANESE, 60), word: '首都' },
  { encoding: 'koi8-r', iconvName: 'KOI8-R', text: textOf(RUSSIAN, 60), word: 'ёлочка' },
];

let n = 0;
function file(bytes: Buffer): string {
  const p = tmp.path(`l${n++}.txt`);
  writeFileSync(p, bytes);
  return p;
}

describe('legacy encodings', () => {
  for (const c of CASES) {
    describe(c.encoding, () => {
      const bytes = iconv('UTF-8', c.iconvName, c.text);
      const lines = c.text.match(/[^\n]*\n/g)!;
      let p = '';
      const path = () => (p ||= file(bytes));

      it('is detected and reported with a confidence, by file_info and by reads', async () => {
        const info = await fileInfo(path());
        expect(info.encoding).toBe(c.encoding);
        expect(info.encodingConfidence).toBeGreaterThan(0);
        expect(info.encodingConfidence).toBeLessThanOrEqual(1);
        expect(info).toMatchObject({ lines: lines.length, utf8: { valid: false }, binary: { isBinary: false } });
        const r = await read(path(), { mode: 'head', lines: 1 });
        expect(r).toMatchObject({ encoding: c.encoding, encodingConfidence: info.encodingConfidence });
        expect(r.invalidUtf8).toBeUndefined();
      });

      it('reads decode it: full, line ranges, byte windows and pages equal the UTF-8 source', async () => {
        expect((await read(path(), { mode: 'full' })).content).toBe(c.text);
        const r = await read(path(), { mode: 'lines', ranges: [{ start: 10, end: 12 }] });
        expect(r.content).toBe(lines.slice(9, 12).join(''));
        expect(r.startByte).toBe(iconv('UTF-8', c.iconvName, lines.slice(0, 9).join('')).length);
        let at = 0;
        let joined = '';
        for (;;) {
          const w = await read(path(), { mode: 'bytes', startByte: at, maxBytes: 300 });
          joined += w.content;
          if (w.nextStartByte == null) break;
          at = w.nextStartByte;
        }
        expect(joined).toBe(c.text);
        let pages = '';
        for (let page = 1; ; page++) {
          const pg = await read(path(), { mode: 'page', page, pageChars: 500 });
          pages += pg.content;
          if (!pg.nextPage) break;
        }
        expect(pages).toBe(c.text);
        expect((await read(path(), { mode: 'tail', lines: 2 })).content).toBe(lines.slice(-2).join(''));
      });

      it('search decodes lines and reports real byte offsets', async () => {
        const res = await searchPath(path(), { pattern: c.word, maxMatches: 1000 });
        const expected = lines.flatMap((l, i) => (l.includes(c.word) ? [i + 1] : []));
        expect(res.matches.map((m) => m.line)).toEqual(expected);
        const m = res.matches[0]!;
        const encodedWord = iconv('UTF-8', c.iconvName, c.word);
        expect(bytes.subarray(m.byteOffset, m.byteOffset + encodedWord.length).equals(encodedWord)).toBe(true);
      });

      it('upserts are refused with encoding_mismatch naming the encoding and what to do; the file is unchanged', async () => {
        const q = file(bytes);
        const { version } = await read(q, { mode: 'head', lines: 0 });
        for (const target of [{ kind: 'append' } as const, { kind: 'replace', start: 1, end: 1, units: 'lines' } as const]) {
          await expect(upsert(q, { target, content: 'x', preconditions: { ifMatch: version.etag } })).rejects.toMatchObject({
            code: 'encoding_mismatch',
            details: { encoding: c.encoding, hint: expect.stringContaining(`iconv -f ${c.encoding} -t UTF-8`) },
          });
        }
        expect(readFileSync(q).equals(bytes)).toBe(true);
      });
    });
  }

  it('exact bytes in Shift_JIS snap to character boundaries found by decoding from the line start', async () => {
    const text = textOf(JAPANESE, 60);
    const bytes = iconv('UTF-8', 'SHIFT_JIS', text);
    const p = file(bytes);
    const lineStart = iconv('UTF-8', 'SHIFT_JIS', text.split('\n').slice(0, 4).join('\n') + '\n').length;
    const prefix = iconv('UTF-8', 'SHIFT_JIS', '5. 日本').length; // "5. " is 3 bytes, each kanji 2
    const r = await read(p, { mode: 'exact', startByte: lineStart + prefix - 1, endByte: lineStart + prefix + 3 });
    expect(r.actualRange).toEqual({ startByte: lineStart + prefix - 2, endByte: lineStart + prefix + 4 });
    expect(r.content).toBe('本語の');
    expect(r.adjustments!.map((a) => a.edge)).toEqual(['start', 'end']);
  });

  it('a file that is mostly UTF-8 with a few invalid bytes stays utf-8, with the invalid_utf8 report', async () => {
    const good = Buffer.from(textOf(FRENCH, 40), 'utf8');
    const bad = Buffer.concat([good.subarray(0, 500), Buffer.from([0xff, 0xfe]), good.subarray(500)]);
    const p = file(bad);
    expect((await fileInfo(p)).encoding).toBe('utf-8');
    const r = await read(p, { mode: 'full' });
    expect(r.encoding).toBe('utf-8');
    expect(r.invalidUtf8).toMatchObject({ firstOffset: 500, replaced: 2 });
    const { version } = r;
    await expect(upsert(p, { target: { kind: 'append' }, content: 'x', preconditions: { ifMatch: version.etag } })).rejects.toMatchObject({
      code: 'encoding_mismatch',
      details: { encoding: 'utf-8', first_invalid_offset: 500 },
    });
  });

  it('too little evidence is reported as unknown, not guessed', async () => {
    const p = file(Buffer.from('caf\xe9\n', 'latin1'));
    expect((await fileInfo(p)).encoding).toBe('unknown');
  });
});
