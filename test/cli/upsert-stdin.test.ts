/** `folio upsert --content-stdin` stops reading past its limit: 1 GiB of input is a quick `too_large`, not 2 GB of memory and `internal`. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_STDIN_BYTES } from '../../src-main/doors/cli/upsert.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const BIN = join(process.cwd(), 'bin/folio.mjs');

/** `bytes` of 'a', 1 MiB at a time, made as they are read. */
function* letters(bytes: number): Generator<Buffer> {
  const chunk = Buffer.alloc(1 << 20, 0x61);
  for (let sent = 0; sent < bytes; sent += chunk.length) yield chunk;
}

/** The peak resident memory of a process so far (Linux VmHWM), in bytes; 0 once it is gone. */
function peakRssOf(pid: number): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

describe('folio upsert --content-stdin', () => {
  it('fed 1.1 GB, it answers too_large (exit 1) within seconds, with memory near the limit, and writes nothing', { timeout: 180_000 }, async () => {
    const p = tmp.path('target.txt');
    writeFileSync(p, 'one\n');
    const t0 = performance.now();
    const child = spawn(process.execPath, [BIN, 'upsert', p, '--append', '--content-stdin', '--json'], {
      env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    // The child stops reading: the writes that follow fail with EPIPE, which is expected.
    child.stdin.on('error', () => {});
    Readable.from(letters(1100 * 1024 * 1024)).pipe(child.stdin);
    let peak = 0;
    const poll = setInterval(() => (peak = Math.max(peak, peakRssOf(child.pid!))), 20);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearInterval(poll);
    const ms = performance.now() - t0;

    expect(code).toBe(1);
    expect(JSON.parse(stdout).error).toMatchObject({ code: 'too_large', maxBytes: MAX_STDIN_BYTES });
    expect(ms).toBeLessThan(30_000);
    // What was read up to the limit, plus the runtime: far from the 2 GB a whole read took.
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThan(MAX_STDIN_BYTES + 400 * 1024 * 1024);
    expect(readFileSync(p, 'utf8')).toBe('one\n');
  });
});
