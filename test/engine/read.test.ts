import { execFileSync, execSync } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { setIndexWaitMs } from '../../src-main/engine/read/file-facts.ts';
import { closeIndexPools } from '../../src-main/engine/index/builder.ts';
import { openIndex } from '../../src-main/engine/index/store.ts';
import { read, READ_LIMITS, type ReadRequest, type ReadResult } from '../../src-main/engine/read/read.ts';
import { lineHash } from '../../src-main/engine/text/hashline.ts';
import { PNG_1x1, writeLogFile } from '../fixtures/generate.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { runs } from '../fixtures/effort.ts';

const tmp = engineTempDir();

let n = 0;
function file(content: string | Buffer, name = `f${n++}.txt`): string {
  const p = tmp.path(name);
  writeFileSync(p, content);
  return p;
}

const sh = (cmd: string) => execSync(cmd, { encoding: 'buffer', maxBuffer: 64 << 20 }).toString('utf8');

/** Lines of a buffer as the oracle sees them: each with its terminator. */
function oracleLines(buf: Buffer): string[] {
  const out: string[] = [];
  let s = 0;
  for (let i = 0; i < buf.length; i++) {
    if (buf[i] === 10) {
      out.push(buf.subarray(s, i + 1).toString('utf8'));
      s = i + 1;
    }
  }
  if (s < buf.length) out.push(buf.subarray(s).toString('utf8'));
  return out;
}

describe('read agrees with GNU tools on a generated log', () => {
  const log = tmp.path('gnu.log');
  let lines = 0;
  beforeAll(() => {
    lines = writeLogFile(log, 2 * 1024 * 1024, 17).lines;
  });

  it('line ranges equal sed -n', async () => {
    for (const [a, b] of [
      [1, 1],
      [1, 50],
      [777, 900],
      [lines - 10, lines],
      [5000, 5001],
    ]) {
      const r = await read(log, { mode: 'lines', ranges: [{ start: a!, end: b! }] });
      expect(r.content).toBe(sh(`sed -n '${a},${b}p' ${log}`));
      expect([r.startLine, r.endLine]).toEqual([a, b]);
    }
  });

  it('several ranges come back merged and in order, each with its own content', async () => {
    const r = await read(log, {
      mode: 'lines',
      ranges: [
        { start: 40, end: 50 },
        { start: 10, end: 20 },
        { start: 45, end: 60 },
        { start: 21, end: 22 },
      ],
    });
    expect(r.ranges!.map((x) => [x.startLine, x.endLine])).toEqual([
      [10, 22],
      [40, 60],
    ]);
    expect(r.ranges![0]!.content).toBe(sh(`sed -n '10,22p' ${log}`));
    expect(r.ranges![1]!.content).toBe(sh(`sed -n '40,60p' ${log}`));
    // Each text is sent once: several ranges leave content empty, and one range has no ranges array.
    expect(r.content).toBe('');
    const one = await read(log, {
      mode: 'lines',
      ranges: [
        { start: 10, end: 20 },
        { start: 21, end: 22 },
      ],
    });
    expect(one.ranges).toBeUndefined();
    expect(one.content).toBe(sh(`sed -n '10,22p' ${log}`));
  });

  it('head and tail equal head -n and tail -n', async () => {
    for (const k of [1, 10, 333]) {
      expect((await read(log, { mode: 'head', lines: k })).content).toBe(sh(`head -n ${k} ${log}`));
      expect((await read(log, { mode: 'tail', lines: k })).content).toBe(sh(`tail -n ${k} ${log}`));
    }
  });

  it('exact byte ranges equal dd of the character-snapped range, valid for iconv', async () => {
    const buf = readFileSync(log);
    for (const [s, e] of [
      [0, 100],
      [12345, 23456],
      [buf.length - 500, buf.length],
      [1000, 1000],
    ]) {
      const r = await read(log, { mode: 'exact', startByte: s!, endByte: e! });
      const { startByte, endByte } = r.actualRange!;
      const dd = execSync(`dd if=${log} bs=1 skip=${startByte} count=${endByte - startByte} status=none`);
      expect(Buffer.from(r.content)).toEqual(dd);
      execFileSync('iconv', ['-f', 'UTF-8', '-t', 'UTF-8'], { input: dd }); // throws on invalid UTF-8
    }
  });
});

describe('read modes on edge files', () => {
  it('CRLF, blank lines and no final newline rejoin byte-exact by pages and by byte windows', async () => {
    const content = 'a\r\n\r\nb\n\n\nccc\r\nlast line without newline';
    const p = file(content);
    for (const pageChars of [1, 3, 5, 8, 100]) {
      let page = 1;
      let joined = '';
      for (;;) {
        const r = await read(p, { mode: 'page', page, pageChars });
        joined += r.content;
        if (r.nextPage === null) break;
        page = r.nextPage!;
      }
      expect(joined, `page_chars ${pageChars}`).toBe(content);
    }
  });

  it('the BOM is not content, and is reported', async () => {
    const p = file(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('x\ny\n')]));
    const r = await read(p, { mode: 'lines', ranges: [{ start: 1, end: 2 }] });
    expect(r.content).toBe('x\ny\n');
    expect(r.bom).toBe(true);
    expect((await read(p, { mode: 'page', page: 1 })).content).toBe('x\ny\n');
  });

  it('an empty file reads as empty in every mode, and line 1 is out of bounds', async () => {
    const p = file('');
    for (const req of [
      { mode: 'page', page: 1 },
      { mode: 'head', lines: 5 },
      { mode: 'tail', lines: 5 },
      { mode: 'bytes', startByte: 0 },
      { mode: 'exact', startByte: 0, endByte: 0 },
      { mode: 'full' },
    ] as ReadRequest[]) {
      const r = await read(p, req);
      expect(r.content, req.mode).toBe('');
      expect(r.totalLines).toBe(0);
    }
    await expect(read(p, { mode: 'lines', ranges: [{ start: 1, end: 1 }] })).rejects.toMatchObject({ code: 'out_of_bounds' });
  });

  it('a single 10 MB line comes back in bounded, UTF-8-safe slices that continue to its end', async () => {
    const unit = 'ab€'; // 5 bytes, a 3-byte character in every unit
    const line = unit.repeat(2_000_000);
    const p = file(line + '\nnext line\n');
    const r = await read(p, { mode: 'lines', ranges: [{ start: 1, end: 2 }] });
    expect(r.truncated).toBe(true);
    expect(r.lineCut).toMatchObject({ lineNo: 1, lineStartByte: 0, lineEndByte: 10_000_000, endsMidLine: true });
    expect(Buffer.byteLength(r.content)).toBeLessThanOrEqual(READ_LIMITS.maxWindowBytes);
    expect(r.content.isWellFormed()).toBe(true);
    // Continue with byte windows: every byte once, the line whole, then the next line.
    let joined = r.content;
    let next = r.nextStartByte!;
    let calls = 0;
    while (next !== null && calls++ < 100) {
      const w = await read(p, { mode: 'bytes', startByte: next, maxBytes: READ_LIMITS.maxWindowBytes });
      expect(w.startByte).toBe(next);
      joined += w.content;
      next = w.nextStartByte!;
    }
    expect(joined).toBe(line + '\nnext line\n');
    // Pages cut the line at the budget and continue it, page after page, to its end.
    const pg = await read(p, { mode: 'page', page: 1 });
    expect(pg).toMatchObject({ chars: READ_LIMITS.defaultPageChars, startsMidLine: false, endsMidLine: true, nextPage: 2, truncated: true });
    expect(pg.lineCut).toMatchObject({ lineNo: 1, startsMidLine: false, endsMidLine: true });
    const pg2 = await read(p, { mode: 'page', page: 2 });
    expect(pg2).toMatchObject({ startByte: pg.endByte, startLine: 1, startsMidLine: true, endsMidLine: true });
    expect(pg2.lineCut).toMatchObject({ lineNo: 1, startsMidLine: true, endsMidLine: true });
    let pages = '';
    let last: ReadResult = pg;
    for (let page = 1; page !== null; page = last.nextPage!) {
      last = await read(p, { mode: 'page', page });
      expect(last.chars).toBeLessThanOrEqual(READ_LIMITS.defaultPageChars);
      pages += last.content;
    }
    expect(pages).toBe(line + '\nnext line\n');
    expect(last).toMatchObject({ startsMidLine: true, endsMidLine: false, endLine: 2 });
  });

  it('a 0-byte exact range is empty; a 0-byte window is an invalid_range', async () => {
    const p = file('hello\nworld\n');
    const r = await read(p, { mode: 'exact', startByte: 3, endByte: 3 });
    expect(r.content).toBe('');
    expect(r.isPartial).toBe(true);
    await expect(read(p, { mode: 'bytes', startByte: 0, maxBytes: 0 })).rejects.toMatchObject({ code: 'invalid_range' });
  });

  it('exact ranges snap to character boundaries with a reason for each adjustment', async () => {
    const p = file('aé€😀z'); // a(0) é(1-2) €(3-5) 😀(6-9) z(10)
    const r = await read(p, { mode: 'exact', startByte: 2, endByte: 8 });
    expect(r.actualRange).toEqual({ startByte: 1, endByte: 10 });
    expect(r.content).toBe('é€😀');
    expect(r.adjustments!.map((a) => [a.edge, a.from, a.to])).toEqual([
      ['start', 2, 1],
      ['end', 8, 10],
    ]);
    expect(r.adjustments!.every((a) => a.reason.includes('character'))).toBe(true);
    const past = await read(p, { mode: 'exact', startByte: 0, endByte: 99 });
    expect(past.adjustments![0]).toMatchObject({ edge: 'end', from: 99, to: 11 });
    expect(past.isPartial).toBe(false);
    expect(past.percentOfFile).toBe(100);
  });

  it('multi-byte characters at every byte-window boundary never split', async () => {
    const text = Array.from({ length: 200 }, (_, i) => [...'é€😀x'].slice(0, 1 + (i % 4)).join('') + 'x'.repeat(i % 7) + '\n').join('');
    const p = file(text);
    for (const max of [1, 2, 3, 4, 5, 7, 16, 33]) {
      let next: number | null = 0;
      let joined = '';
      let guard = 0;
      while (next !== null && guard++ < 10_000) {
        const w: ReadResult = await read(p, { mode: 'bytes', startByte: next, maxBytes: max });
        expect(w.content.isWellFormed()).toBe(true);
        joined += w.content;
        next = w.nextStartByte ?? null;
      }
      expect(joined, `max_bytes ${max}`).toBe(text);
    }
  });

  it('hashlines prefix LINE#HASH| with the documented hash', async () => {
    const p = file('alpha\r\nbeta\ngamma');
    const r = await read(p, { mode: 'lines', ranges: [{ start: 1, end: 3 }] }, { hashlines: true });
    const h = (s: string) => lineHash(Buffer.from(s));
    expect(r.content).toBe(`1#${h('alpha')}|alpha\r\n2#${h('beta')}|beta\n3#${h('gamma')}|gamma`);
    expect(h('alpha')).toMatch(/^[0-9a-f]{3}$/);
    expect(h('alpha')).toBe(h('alpha\r\n'));
  });
});

describe('fast-check: every mode on random files', () => {
  // Text: other control characters could spell a binary magic number, and the file would (rightly) be refused as binary_file.
  const textOnly = (s: string) => [...s].filter((c) => c === '\t' || c === '\r' || c === '\n' || (c >= ' ' && c !== '\x7f')).join('');
  const chunk = fc.oneof(
    fc.constantFrom('\n', '\r\n', '', 'é', '€', '😀', 'x', ' ', '\t'),
    fc.string({ maxLength: 30 }).map(textOnly),
    fc.string({ unit: 'grapheme', maxLength: 8 }).map(textOnly),
  );
  const contents = fc.array(chunk, { maxLength: 120 }).map((parts) => parts.join(''));

  it('pages and byte windows rejoin the file; line ranges, head and tail equal the oracle; output is well-formed', async () => {
    await fc.assert(
      fc.asyncProperty(
        contents,
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 30 }),
        async (content, budget, a, len, k) => {
          const p = file(content);
          const buf = readFileSync(p);
          const lines = oracleLines(buf);
          // pages
          let joined = '';
          for (let page = 1; ; page++) {
            const r = await read(p, { mode: 'page', page, pageChars: budget });
            expect(r.content.isWellFormed()).toBe(true);
            joined += r.content;
            if (r.nextPage === null) break;
          }
          expect(joined).toBe(content);
          // byte windows
          joined = '';
          let next: number | null = 0;
          let lastEnd = 0;
          while (next !== null) {
            const w: ReadResult = await read(p, { mode: 'bytes', startByte: next, maxBytes: budget });
            expect(w.startByte).toBe(lastEnd);
            lastEnd = w.endByte;
            joined += w.content;
            next = w.nextStartByte ?? null;
          }
          expect(joined).toBe(content);
          // line ranges
          if (a <= lines.length) {
            const r = await read(p, { mode: 'lines', ranges: [{ start: a, end: a + len - 1 }] });
            expect(r.content).toBe(lines.slice(a - 1, a + len - 1).join(''));
          } else {
            await expect(read(p, { mode: 'lines', ranges: [{ start: a, end: a + len - 1 }] })).rejects.toMatchObject({ code: 'out_of_bounds' });
          }
          expect((await read(p, { mode: 'full' })).content).toBe(content);
          expect((await read(p, { mode: 'head', lines: k })).content).toBe(lines.slice(0, k).join(''));
          expect((await read(p, { mode: 'tail', lines: k })).content).toBe(k === 0 ? '' : lines.slice(-k).join(''));
          // exact bytes: covers the request, starts and ends on characters
          const s = Math.min(a, buf.length);
          const e = Math.min(buf.length, s + len);
          const x = await read(p, { mode: 'exact', startByte: s, endByte: e });
          expect(x.actualRange!.startByte).toBeLessThanOrEqual(s);
          expect(x.actualRange!.endByte).toBeGreaterThanOrEqual(e);
          expect(Buffer.from(x.content)).toEqual(buf.subarray(x.actualRange!.startByte, x.actualRange!.endByte));
        },
      ),
      runs(60),
    );
  });
});

describe('read errors are typed', () => {
  it('not_found, invalid_range, out_of_bounds, too_large, beyond_end', async () => {
    await expect(read(tmp.path('nope'), { mode: 'head', lines: 1 })).rejects.toMatchObject({ code: 'not_found' });
    const p = file('one\ntwo\n');
    await expect(read(p, { mode: 'exact', startByte: 5, endByte: 2 })).rejects.toMatchObject({
      code: 'invalid_range',
      details: { start_byte: 5, end_byte: 2 },
    });
    await expect(read(p, { mode: 'exact', startByte: -1, endByte: 2 })).rejects.toMatchObject({ code: 'invalid_range' });
    await expect(read(p, { mode: 'lines', ranges: [{ start: 0, end: 1 }] })).rejects.toMatchObject({ code: 'invalid_range' });
    await expect(read(p, { mode: 'lines', ranges: [{ start: 3, end: 2 }] })).rejects.toMatchObject({ code: 'invalid_range' });
    await expect(read(p, { mode: 'lines', ranges: [{ start: 3, end: 4 }] })).rejects.toMatchObject({ code: 'out_of_bounds', details: { total_lines: 2 } });
    await expect(read(p, { mode: 'bytes', startByte: 99 })).rejects.toMatchObject({ code: 'out_of_bounds' });
    await expect(read(p, { mode: 'page', page: 2 })).rejects.toMatchObject({ code: 'beyond_end', details: { last_page: 1 } });
    const big = tmp.path('big.log');
    writeLogFile(big, READ_LIMITS.maxFullBytes + 1000, 3);
    await expect(read(big, { mode: 'full' })).rejects.toMatchObject({ code: 'too_large' });
    // A budget over the cap: pages hold at most the cap in bytes (whole lines).
    let lastPage = 1;
    for (;;) {
      const r = await read(big, { mode: 'page', page: lastPage, pageChars: 1_000_000 });
      expect(Buffer.byteLength(r.content)).toBeLessThanOrEqual(READ_LIMITS.maxWindowBytes);
      if (r.nextPage === null) break;
      lastPage = r.nextPage!;
    }
    expect(lastPage).toBeGreaterThanOrEqual(Math.ceil((READ_LIMITS.maxFullBytes + 1000) / READ_LIMITS.maxWindowBytes));
    await expect(read(big, { mode: 'page', page: lastPage + 1, pageChars: 1_000_000 })).rejects.toMatchObject({
      code: 'beyond_end',
      details: { last_page: lastPage },
    });
  });

  it('an end past the last line is clamped, with a note', async () => {
    const p = file('one\ntwo\n');
    const r = await read(p, { mode: 'lines', ranges: [{ start: 2, end: 9 }] });
    expect(r.content).toBe('two\n');
    expect(r.endLine).toBe(2);
    expect(r.notes.join()).toMatch(/range 2-9 clamped to the last line, 2/);
  });

  it('binary_file names the detected type; allow_binary reads anyway', async () => {
    const p = file(PNG_1x1, 'pic.png');
    await expect(read(p, { mode: 'head', lines: 1 })).rejects.toMatchObject({ code: 'binary_file', details: { type: 'image/png' } });
    expect((await read(p, { mode: 'exact', startByte: 1, endByte: 4 }, { allowBinary: true })).content).toBe('PNG');
  });

  it('invalid UTF-8: replaced and reported by default, encoding_mismatch when asked', async () => {
    const p = file(Buffer.concat([Buffer.from('ok\nbad '), Buffer.from([0xff, 0xfe]), Buffer.from(' here\n')]));
    const r = await read(p, { mode: 'lines', ranges: [{ start: 2, end: 2 }] });
    expect(r.content).toBe('bad \uFFFD\uFFFD here\n');
    expect(r.invalidUtf8).toEqual({ replaced: 2, firstOffset: 7 });
    await expect(read(p, { mode: 'head', lines: 2 }, { invalidUtf8: 'error' })).rejects.toMatchObject({
      code: 'encoding_mismatch',
      details: { first_invalid_offset: 7 },
    });
    // With hashlines, each line is decoded from its own offset: the report still names byte 7.
    const h = await read(p, { mode: 'lines', ranges: [{ start: 1, end: 2 }] }, { hashlines: true });
    expect(h.invalidUtf8).toEqual({ replaced: 2, firstOffset: 7 });
    // A real U+FFFD in the file is not counted as a replacement.
    const q = file('real \uFFFD here\n');
    expect((await read(q, { mode: 'head', lines: 1 })).invalidUtf8).toBeUndefined();
  });

  it('UTF-16 files are decoded, without their BOM (test/engine/utf16.test.ts has the rest)', async () => {
    const p = file(Buffer.from([0xff, 0xfe, 0x68, 0x00, 0x0a, 0x00]));
    await expect(read(p, { mode: 'head', lines: 1 })).resolves.toMatchObject({ encoding: 'utf-16le', bom: true, content: 'h\n', endByte: 6 });
  });
});

describe('reads during indexing', () => {
  it('a big file being indexed answers at once, with indexing progress instead of total lines', async () => {
    const p = tmp.path('indexing.log');
    writeLogFile(p, 24 * 1024 * 1024, 21);
    await closeIndexPools(); // a cold pool: workers have to start before any progress
    setIndexWaitMs(0);
    try {
      const r = await read(p, { mode: 'head', lines: 3 });
      expect(r.totalLines).toBeNull();
      expect(r.newlineStyle).toBeNull();
      expect(r.indexing).toMatchObject({ totalBytes: r.version.size });
      expect(r.indexing!.bytesDone).toBeLessThan(r.version.size);
      expect(r.content).toBe(sh(`head -n 3 ${p}`));
      const mid = await read(p, { mode: 'lines', ranges: [{ start: 100_000, end: 100_001 }] });
      expect(mid.content).toBe(sh(`sed -n '100000,100001p' ${p}`));
    } finally {
      setIndexWaitMs(30);
    }
    await openIndex(p); // the build finishes
    const later = await read(p, { mode: 'head', lines: 1 });
    expect(later.totalLines).toBe(Number(sh(`wc -l < ${p}`).trim()));
  });
});

describe('follow and versions', () => {
  it('after an append, reads see the new lines and a new version', async () => {
    const p = file('a\nb\n');
    const before = await read(p, { mode: 'tail', lines: 1 });
    appendFileSync(p, 'c\n');
    const after = await read(p, { mode: 'tail', lines: 1 });
    expect(after.content).toBe('c\n');
    expect(after.totalLines).toBe(3);
    expect(after.version.etag).not.toBe(before.version.etag);
  });

  it('every answer carries path, version (with sha256 of small files), encoding and newline style', async () => {
    const p = file('x\r\ny\r\n');
    const r = await read(p, { mode: 'head', lines: 1 });
    expect(r).toMatchObject({ path: p, encoding: 'utf-8', newlineStyle: 'crlf', totalLines: 2, indexing: null });
    expect(r.version.sha256).toBe(execSync(`sha256sum ${p}`).toString().split(' ')[0]);
  });
});
