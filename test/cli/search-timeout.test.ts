/**
 * `folio search` never hangs: a nested-quantifier blow-up finishes on V8's
 * linear-time engine, a backreference blow-up ends in a `timeout` error within
 * the budget (FOLIO_SEARCH_TIMEOUT_MS), and the process exits (no worker left).
 * Each child has a hard timeout, so a regression fails instead of hanging.
 */
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir, writeLogFile } from '../fixtures/generate.ts';

const tmp = tempDir('folio-cli-search-timeout-');
afterAll(() => tmp.cleanup());
const BIN = join(process.cwd(), 'bin/folio.mjs');
const RUNAWAY = 'a'.repeat(40) + '!';
/** Generous for a loaded machine; the runaway cases take hours without the fix. */
const CHILD_TIMEOUT_MS = 45_000;

interface Run {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** `node bin/folio.mjs ARGS` with extra env, killed after CHILD_TIMEOUT_MS. */
function folio(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache'), ...env },
    timeout: CHILD_TIMEOUT_MS,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => {
    child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr, ms: performance.now() - started }));
  });
}

describe('folio search under runaway regexes', () => {
  it('answer (a+)+$ on the linear engine: no match on 40 a\'s and a "!", the same count as grep -c', async () => {
    const p = tmp.path('redos.txt');
    writeFileSync(p, `hello\n${RUNAWAY}\n${'a'.repeat(40)}\n`);
    const r = await folio(['search', p, '(a+)+$', '--json']);
    expect(r.signal, r.stderr).toBeNull();
    expect(r.status, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.matches.map((m: { line: number }) => m.line)).toEqual([3]);
    const count = await folio(['search', p, '(a+)+$', '--count', '--json']);
    const grep = Number(execFileSync('grep', ['-cE', '(a+)+$', p]).toString().trim());
    expect(grep).toBe(1);
    expect(JSON.parse(count.stdout).count).toBe(grep);
  });

  it('answer a backreference blow-up with a timeout error within the budget', async () => {
    const p = tmp.path('backref.txt');
    writeFileSync(p, `hello\n${RUNAWAY}\n`);
    const r = await folio(['search', p, '(a+)+\\1$', '--json'], { FOLIO_SEARCH_TIMEOUT_MS: '1000' });
    expect(r.signal, r.stderr).toBeNull();
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'timeout', budget_ms: 1000, bytes_scanned: 0, matches_found: 0 });
    expect(r.ms).toBeLessThan(CHILD_TIMEOUT_MS);
  });

  it('time out on a big file (> 8 MiB) and exit: no worker is left running', async () => {
    const p = tmp.path('big.log');
    writeLogFile(p, 9 * 1024 * 1024, 5);
    appendFileSync(p, `${RUNAWAY}\n`);
    // A busy worker keeps the process alive, so a clean exit means every worker stopped.
    const r = await folio(['search', p, 'ERROR|(a+)+\\1$', '--count', '--json'], { FOLIO_SEARCH_TIMEOUT_MS: '3000' });
    expect(r.signal, r.stderr).toBeNull();
    expect(r.status).toBe(1);
    const error = JSON.parse(r.stdout).error;
    expect(error).toMatchObject({ code: 'timeout', budget_ms: 3000 });
    expect(error.matches_found).toBeGreaterThan(0);
    expect(error.bytes_scanned).toBeGreaterThan(0);
  });
});
