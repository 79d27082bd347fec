/** `folio serve` as a real child process: the first stdout line is the URL. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { stopChild } from '../test/fixtures/server-plumbing.ts';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The CLI entry, absolute so that any working directory works. */
export const BIN = join(REPO_ROOT, 'bin', 'folio.mjs');
/** Where served apps keep per-user state (recent files) unless a test gives its own: never the real ~/.config. */
export const E2E_CONFIG_DIR = join(REPO_ROOT, 'test-results', 'e2e-config');

export interface FolioServe {
  url: URL;
  token: string;
  origin: string;
  /** the server's process (bin/folio.mjs serves in-process) */
  pid: number;
  stderr(): string;
  stop(): Promise<void>;
}

export interface ServeOptions {
  /** the working directory, which is the workspace served (default: the repository) */
  cwd?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
}

export function startFolioServe(args: string[], opts: ServeOptions = {}): Promise<FolioServe> {
  return startServingFolio(['serve', ...args, '--port', '0'], opts);
}

/** Any `folio` command that ends up serving (`serve`, `open` with no server running): the first stdout line is the URL. */
export async function startServingFolio(argv: string[], opts: ServeOptions = {}): Promise<FolioServe> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const child = spawn(process.execPath, [BIN, ...argv], {
    cwd: opts.cwd ?? REPO_ROOT,
    env: { FOLIO_CONFIG_DIR: E2E_CONFIG_DIR, ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const firstLine = await firstLineOf(child, timeoutMs).catch((err: Error) => {
    child.kill('SIGKILL');
    throw new Error(`${err.message}\nstderr:\n${stderr}`);
  });
  const url = new URL(firstLine);
  return {
    url,
    token: url.searchParams.get('token') ?? '',
    origin: url.origin,
    pid: child.pid!,
    stderr: () => stderr,
    stop: () => stopChild(child),
  };
}

function firstLineOf(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => reject(new Error(`folio printed no URL within ${timeoutMs} ms`)), timeoutMs);
    lines.once('line', (line) => {
      clearTimeout(timer);
      lines.close();
      resolve(line.trim());
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`folio exited with ${code} before printing a URL`));
    });
  });
}

/** Runs `folio serve ARGS` expecting it to fail; returns its exit code and stderr. */
export async function runFolioServeExpectingFailure(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, stderr };
}
