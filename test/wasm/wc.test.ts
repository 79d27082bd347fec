import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, readSync, closeSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BLOCK_SIZE, CHUNK_SIZE } from '../../src-main/engine/kernels/kernels.mjs';
import * as ref from './reference.ts';
import { kernelFixture, logText } from './arbitraries.ts';

const { kernels } = kernelFixture();
let dir: string;

/** Scan a file the way the index does: 256 KiB reads straight into the input window. */
function scanFile(path: string) {
  const fd = openSync(path, 'r');
  const counts: number[] = [];
  const utf8 = kernels.utf8Stream();
  let newlines = 0;
  let crlf = 0;
  let prevIsCR = false;
  try {
    for (let pos = 0; ;) {
      const got = readSync(fd, kernels.input, 0, CHUNK_SIZE, pos);
      if (got === 0) break;
      const out = new Uint32Array(CHUNK_SIZE / BLOCK_SIZE);
      newlines += kernels.countNewlinesPerBlock(got, out, 0);
      counts.push(...out.subarray(0, Math.ceil(got / BLOCK_SIZE)));
      crlf += kernels.countNewlineStyle(0, got, prevIsCR).crlf;
      prevIsCR = kernels.input[got - 1] === 13;
      utf8.feed(got);
      pos += got;
    }
  } finally {
    closeSync(fd);
  }
  return { newlines, counts, crlf, firstInvalid: utf8.finish() };
}

function wcLines(path: string): number {
  const r = spawnSync('wc', ['-l', path], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return Number(r.stdout.trim().split(/\s+/)[0]);
}

const MiB = 1024 * 1024;
const files: Record<string, () => Uint8Array> = {
  'lf-final-newline.log': () => {
    const b = logText(3 * MiB, 1);
    b[b.length - 1] = 10;
    return b;
  },
  'no-final-newline.log': () => {
    const b = logText(2 * MiB + 12345, 2);
    b[b.length - 1] = 0x2e;
    return b;
  },
  'crlf.log': () => logText(2 * MiB + 1, 3, { crlf: true }),
  'multibyte.txt': () => logText(4 * MiB - 7, 4, { multibyteEvery: 2 }),
  'newlines-only.txt': () => new Uint8Array(MiB + 3).fill(10),
  'one-long-line.txt': () => new Uint8Array(3 * MiB).fill(0x61),
  'empty.txt': () => new Uint8Array(0),
};

describe('kernels on real files, checked against real tools', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'folio-kernels-'));
    for (const [name, make] of Object.entries(files)) writeFileSync(join(dir, name), make());
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const name of Object.keys(files)) {
    it(`newline total of ${name} equals \`wc -l\`, and per-block counts and UTF-8 validity equal the reference`, () => {
      const path = join(dir, name);
      const bytes = readFileSync(path);
      const scan = scanFile(path);
      expect(scan.newlines).toBe(wcLines(path));
      expect(scan.counts).toEqual(ref.countNewlinesPerBlock(bytes, bytes.length, BLOCK_SIZE));
      expect(scan.crlf).toBe(ref.countNewlineStyle(bytes, 0, bytes.length, false).crlf);
      expect(scan.firstInvalid === -1).toBe(isUtf8(bytes));
    });
  }
});
