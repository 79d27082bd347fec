import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildIndex, startBuild } from '../../src-main/engine/index/builder.ts';
import { forgetIndexes, openIndex } from '../../src-main/engine/index/store.ts';
import { BLOCK_SIZE } from '../../src-main/engine/kernels/kernels.mjs';
import type { LineIndex } from '../../src-main/engine/index/line-index.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { writeLogFile } from '../fixtures/generate.ts';
import { decoderUtf8Counts, newlineOffsets, validUpTo } from '../fixtures/oracles.ts';
import { runs } from '../fixtures/effort.ts';

const tmp = engineTempDir();

/** Every query of the index agrees with a plain scan of the whole buffer. */
function expectMatchesBuffer(index: LineIndex, buf: Buffer): void {
  const nl = newlineOffsets(buf);
  expect(index.size).toBe(buf.length);
  expect(index.newlines).toBe(nl.length);
  const finalNewline = buf.length > 0 && buf[buf.length - 1] === 10;
  expect(index.finalNewline).toBe(finalNewline);
  expect(index.lineCount).toBe(nl.length + (buf.length > 0 && !finalNewline ? 1 : 0));
  // line -> offset at every line for small files, sampled for big ones
  const step = Math.max(1, Math.floor(index.lineCount / 200));
  for (let line = 0; line < index.lineCount; line += step) {
    const start = line === 0 ? 0 : nl[line - 1]! + 1;
    expect(index.lineStart(line)).toBe(start);
    expect(index.lineEnd(line)).toBe(line < nl.length ? nl[line]! : buf.length);
  }
  expect(index.lineStart(index.lineCount)).toBe(-1);
  // offset -> line at sampled offsets including block edges
  const offsets = new Set<number>([0, buf.length]);
  for (let b = BLOCK_SIZE; b < buf.length; b += BLOCK_SIZE) [b - 1, b, b + 1].forEach((o) => o <= buf.length && offsets.add(o));
  for (let i = 0; i < 100; i++) offsets.add(Math.floor((i / 100) * buf.length));
  for (const off of offsets) {
    let line = 0;
    for (const n of nl) if (n < off) line++;
    expect(index.lineAt(off)).toBe(line);
  }
  expect(index.facts.firstInvalid).toBe(validUpTo(buf));
  expect(index.facts.utf8).toEqual(decoderUtf8Counts(buf));
}

/** Random text with long and short lines, CR, CRLF, multi-byte and (optionally) invalid bytes. */
const textBytes = (maxLines: number, allowInvalid: boolean) =>
  fc
    .array(
      fc.record({
        len: fc.oneof(fc.integer({ min: 0, max: 80 }), fc.integer({ min: 0, max: 70_000 })),
        end: fc.constantFrom('\n', '\n', '\n', '\r\n', '\r', ''),
        uni: fc.constantFrom('', 'é', '日本', '🚀'),
        bad: allowInvalid ? fc.constantFrom(null, null, null, null, 0xff, 0xc3, 0xe2) : fc.constant(null),
      }),
      { maxLength: maxLines },
    )
    .map((lines) => {
      const parts: Buffer[] = [];
      for (const l of lines) {
        parts.push(Buffer.from('x'.repeat(l.len) + l.uni));
        if (l.bad !== null) parts.push(Buffer.from([l.bad]));
        parts.push(Buffer.from(l.end));
      }
      return Buffer.concat(parts);
    });

describe('LineIndex answers like a plain scan', () => {
  it('on random files, in-thread and with the worker pool', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(textBytes(40, true), fc.constantFrom(0, 2), async (buf, threads) => {
        const file = tmp.path(`rand-${n++}.txt`);
        writeFileSync(file, buf);
        const index = await buildIndex(file, { threads, smallFileBytes: 0 });
        expectMatchesBuffer(index, buf);
      }),
      runs(40),
    );
  });

  it('on hand-made edge files: empty, one newline, no final newline, CRLF, lone CR, BOM', async () => {
    const cases: Record<string, string | Buffer> = {
      empty: '',
      newline: '\n',
      noFinal: 'a\nb',
      crlf: 'a\r\nb\r\n',
      loneCr: 'a\rb\r',
      mixed: 'a\r\nb\nc\r',
      bom: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('x\ny\n')]),
      blanks: '\n\n\n',
    };
    const styles: Record<string, string> = { empty: 'none', newline: 'lf', noFinal: 'lf', crlf: 'crlf', loneCr: 'cr', mixed: 'mixed', bom: 'lf', blanks: 'lf' };
    for (const [name, content] of Object.entries(cases)) {
      const file = tmp.path(`edge-${name}`);
      writeFileSync(file, content);
      const index = await buildIndex(file);
      expectMatchesBuffer(index, readFileSync(file));
      expect(index.newlineStyle, name).toBe(styles[name]);
      expect(index.bom, name).toBe(name === 'bom');
    }
  });

  it('stitches UTF-8 validation across worker splits: a character or an error straddling the split at every offset', async () => {
    // Two workers split a 4-block file at block 2. Put a 4-byte character (valid) or a
    // broken sequence so it straddles byte 2*BLOCK_SIZE at every possible offset.
    const split = 2 * BLOCK_SIZE;
    const seqs = [
      Buffer.from('🚀'), // valid, 4 bytes
      Buffer.from('日'), // valid, 3 bytes
      Buffer.from([0xf0, 0x9f, 0x9a]), // truncated 4-byte
      Buffer.from([0xe6, 0x97]), // truncated 3-byte
      Buffer.from([0x80, 0x80]), // stray continuations
      Buffer.from([0xed, 0xa0, 0x80]), // surrogate
    ];
    let i = 0;
    for (const seq of seqs) {
      for (let shift = 0; shift <= seq.length; shift++) {
        const buf = Buffer.alloc(4 * BLOCK_SIZE, 'a');
        for (let line = 100; line < buf.length; line += 101) buf[line] = 10;
        seq.copy(buf, split - shift);
        const file = tmp.path(`split-${i++}.txt`);
        writeFileSync(file, buf);
        const index = await buildIndex(file, { threads: 2, smallFileBytes: 0 });
        expect(index.facts.firstInvalid, `seq ${seq.toString('hex')} shift ${shift}`).toBe(validUpTo(buf));
        expect(index.facts.utf8, `seq ${seq.toString('hex')} shift ${shift}`).toEqual(decoderUtf8Counts(buf));
        expect(index.newlines).toBe(newlineOffsets(buf).length);
      }
    }
  });

  it('line count equals `wc -l` on a generated log', async () => {
    const file = tmp.path('log.txt');
    writeLogFile(file, 24 * 1024 * 1024, 7);
    const wc = Number(execFileSync('wc', ['-l', file], { encoding: 'utf8' }).trim().split(/\s+/)[0]);
    const pooled = await buildIndex(file, { threads: 2, smallFileBytes: 0 });
    const single = await buildIndex(file, { threads: 1, smallFileBytes: 0 });
    expect(pooled.newlines).toBe(wc);
    expect(single.newlines).toBe(wc);
    expect(pooled.facts.firstInvalid).toBeNull();
    expectMatchesBuffer(pooled, readFileSync(file));
  });
});

describe('LineIndex memory, progress, partial answers and cancellation', () => {
  it('keeps at most 64 KiB of index per GiB of file', async () => {
    const file = tmp.path('sparse-1g.bin');
    writeFileSync(file, '');
    truncateSync(file, 1024 ** 3 + 12345);
    const index = await buildIndex(file, { threads: 2 });
    expect(index.blocks).toBe(Math.ceil((1024 ** 3 + 12345) / BLOCK_SIZE));
    expect(index.memoryBytes).toBeLessThanOrEqual((64 * 1024 * index.size) / 1024 ** 3);
    expect(index.memoryBytes).toBeGreaterThan(0);
  });

  it('reports progress up to the total and answers queries on the head before the build ends', async () => {
    const file = tmp.path('big-log.txt');
    const { lines } = writeLogFile(file, 96 * 1024 * 1024, 3);
    const buf = readFileSync(file);
    const nl = newlineOffsets(buf);
    const seen: number[] = [];
    const build = startBuild(file, { threads: 2, smallFileBytes: 0, onProgress: (p) => seen.push(p.bytesDone), progressIntervalMs: 5 });
    // Query line 10 and a line deep in the file at once: served by on-demand scanning.
    expect(build.index.complete).toBe(false);
    expect(build.index.lineStart(10)).toBe(nl[9]! + 1);
    expect(build.index.lineStart(lines - 5)).toBe(nl[lines - 6]! + 1);
    const index = await build.done;
    expect(index.complete).toBe(true);
    expect(index.newlines).toBe(nl.length);
    expect(seen.at(-1)).toBe(buf.length);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThanOrEqual(seen[i - 1]!);
  });

  it('can be cancelled: the build rejects with code cancelled', async () => {
    const file = tmp.path('sparse-cancel.bin');
    writeFileSync(file, '');
    truncateSync(file, 2 * 1024 ** 3);
    const ac = new AbortController();
    const build = startBuild(file, { threads: 2, signal: ac.signal });
    ac.abort();
    await expect(build.done).rejects.toMatchObject({ code: 'cancelled' });
  });
});

describe('LineIndex on growing and changing files', () => {
  it('extend() indexes only appended bytes and equals a full rebuild', async () => {
    const file = tmp.path('grow.log');
    writeLogFile(file, 3 * BLOCK_SIZE + 777, 11);
    const index = await buildIndex(file);
    const cut = (hex: string) => Buffer.from(hex, 'hex');
    // Appends that complete a character cut by the old end, break it, or follow an invalid byte.
    for (const extra of [
      'one more line\n',
      'partial line without newline',
      ' finished\n',
      'ü\r\n'.repeat(40_000),
      cut('e697'),
      cut('a50a'),
      cut('f09f'),
      cut('41'),
      cut('ff'),
      cut('c3'),
      cut('a9'),
      cut('0a'),
    ]) {
      appendFileSync(file, extra);
      expect(index.extend()).toBe('extended');
      const fresh = await buildIndex(file);
      expect(index.newlines).toBe(fresh.newlines);
      expect(index.facts).toEqual(fresh.facts);
      expectMatchesBuffer(index, readFileSync(file));
    }
    expect(index.extend()).toBe('same');
  });

  it('extend() asks for a rebuild when the file shrank or its head changed', async () => {
    const file = tmp.path('shrink.log');
    writeLogFile(file, 200_000, 5);
    const index = await buildIndex(file);
    truncateSync(file, 100_000);
    expect(index.extend()).toBe('rebuild');

    const index2 = await buildIndex(file);
    const buf = readFileSync(file);
    buf[0] = buf[0] === 0x41 ? 0x42 : 0x41;
    writeFileSync(file, Buffer.concat([buf, Buffer.from('appended\n')]));
    expect(index2.extend()).toBe('rebuild');
  });

  it('openIndex() after an append serves the new lines (follow)', async () => {
    const file = tmp.path('follow.log');
    writeFileSync(file, 'a\nb\n');
    expect((await openIndex(file)).lineCount).toBe(2);
    appendFileSync(file, 'c\n');
    const index = await openIndex(file);
    expect(index.lineCount).toBe(3);
    expect(index.lineStart(2)).toBe(4);
  });
});

describe('persisted index cache', () => {
  it('reopens from cache with the same answers, and never uses a stale entry', async () => {
    const file = tmp.path('cached.log');
    writeLogFile(file, 3 * 1024 * 1024, 9);
    const first = await openIndex(file);
    expect(first.fromCache).toBe(false);
    forgetIndexes();
    const again = await openIndex(file);
    expect(again.fromCache).toBe(true);
    expectMatchesBuffer(again, readFileSync(file));

    // Same size, head changed, mtime restored: the edge hashes catch it.
    const st = statSync(file);
    const buf = readFileSync(file);
    buf.write('X', 0);
    buf.write('\n', 10);
    writeFileSync(file, buf);
    utimesSync(file, st.atime, st.mtime);
    forgetIndexes();
    const changed = await openIndex(file);
    expect(changed.fromCache).toBe(false);
    expectMatchesBuffer(changed, buf);

    // Grown: the cached index is extended, not rebuilt.
    appendFileSync(file, 'tail line\n');
    forgetIndexes();
    const grown = await openIndex(file);
    expect(grown.fromCache).toBe(true);
    expectMatchesBuffer(grown, readFileSync(file));
  });
});

describe('typed errors', () => {
  it('not_found, is_directory, not_regular_file (FIFO and device, without hanging)', async () => {
    await expect(buildIndex(tmp.path('missing'))).rejects.toMatchObject({ code: 'not_found' });
    expect(() => startBuild(tmp.path('missing'))).toThrow(expect.objectContaining({ code: 'not_found' }));
    mkdirSync(tmp.path('a-dir'));
    expect(() => startBuild(tmp.path('a-dir'))).toThrow(expect.objectContaining({ code: 'is_directory' }));
    execFileSync('mkfifo', [tmp.path('a-fifo')]);
    expect(() => startBuild(tmp.path('a-fifo'))).toThrow(expect.objectContaining({ code: 'not_regular_file' }));
    expect(() => startBuild('/dev/null')).toThrow(expect.objectContaining({ code: 'not_regular_file' }));
  });
});
