/**
 * `folio search BIG X | head`: when the reader of stdout goes away, the CLI exits
 * quietly (status 141, like `yes | head`; no EPIPE stack trace) and promptly, so no
 * worker is left scanning. A real pipe: the test reads the child's stdout and closes
 * its end early.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, writeLogFile } from '../fixtures/generate.ts';
import { budgetMs } from '../fixtures/load.ts';

const tmp = tempDir('folio-cli-broken-pipe-');
afterAll(() => tmp.cleanup());
const BIN = join(process.cwd(), 'bin/folio.mjs');
const BIG = tmp.path('big.log');
/** Generous for a loaded 2-core machine; a process stuck on a broken pipe never ends. */
const CHILD_TIMEOUT_MS = 30_000;

beforeAll(() => {
  writeLogFile(BIG, 24 * 1024 * 1024, 3); // over the 8 MiB in-thread limit: the search runs in workers
});

interface Run {
  status: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** From closing our end of the pipe to the child's exit. */
  msAfterClose: number;
}

/** `folio ARGS` whose stdout we close after `closeAfterBytes` bytes (0: at once, before any output). */
function folioClosedEarly(args: string[], closeAfterBytes: number): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') },
    timeout: CHILD_TIMEOUT_MS,
  });
  let stderr = '';
  let seen = 0;
  let closedAt = performance.now();
  const closeReader = () => {
    closedAt = performance.now();
    child.stdout.destroy();
  };
  if (closeAfterBytes === 0) closeReader();
  else
    child.stdout.on('data', (d: Buffer) => {
      seen += d.length;
      if (seen >= closeAfterBytes && !child.stdout.destroyed) closeReader();
    });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => {
    child.on('close', (status, signal) => resolve({ status, signal, stderr, msAfterClose: performance.now() - closedAt }));
  });
}

function expectQuietExit(r: Run): void {
  expect(r.signal, r.stderr).toBeNull();
  expect([0, 141], r.stderr).toContain(r.status);
  expect(r.stderr).not.toMatch(/EPIPE|Error|\n\s+at /);
}

describe('folio search | head', () => {
  it('exit quietly and at once when the reader closes after the first lines', async () => {
    // 10,000 matching lines (~1.3 MB) fill the pipe many times over; `head` leaves after a few.
    const r = await folioClosedEarly(['search', BIG, 'ERROR', '--max', '10000'], 200);
    expectQuietExit(r);
    expect(r.msAfterClose).toBeLessThan(budgetMs(5_000));
  });

  it('exit quietly when the reader is gone before the answer is written', async () => {
    const r = await folioClosedEarly(['search', BIG, 'timeout|ERROR', '--count', '--json'], 0);
    expectQuietExit(r);
  });

  it('exit quietly when the reader of a read goes away', async () => {
    const r = await folioClosedEarly(['read', BIG, '--lines', '1-20000'], 100);
    expectQuietExit(r);
  });
});
