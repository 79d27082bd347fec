/**
 * `folio open FILE|LINK [--open]`: show FILE in the Folio app of this workspace
 * (LINK: `folio://open?path=FILE&lines=A-B`, what Copy link gives in Electron,
 * lands on those lines; a bad link is a usage error naming its problem). When
 * `<cwd>/.folio/serve.json` names a server that is still running (its pid is
 * alive and its URL answers), print that server's URL with `file=` set to FILE,
 * and have the app pages already open on that server switch to FILE (app_open);
 * otherwise start `folio serve FILE` here, in this
 * process, and print its URL first, as `folio serve` does.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { EXIT_USAGE } from '../../api/error-map.ts';
import { folioLinkOf, type LineRange } from '../../api/folio-link.ts';
import { isRemoteLocator } from '../../api/input-paths.ts';
import { Exit, type CliIO } from './cli-io.ts';
import { announceServer } from './serve.ts';

/**
 * How long the running server may take to answer before it counts as gone. Its pid is
 * alive when this is asked, so a gone server refuses the connection at once; the limit
 * only bites on a server that is there but busy (a loaded machine: 1.5 s was once
 * too short, and `folio open` started a second server over the first one's workspace).
 */
const PROBE_TIMEOUT_MS = 10_000;

interface ServeState {
  url: string;
  pid: number;
  /** the person's token (app_open is the person's route; `agent_token` opens /api/mcp only) */
  token: string;
}

function serveStateOf(workspace: string): ServeState | null {
  try {
    const state = JSON.parse(readFileSync(join(workspace, '.folio', 'serve.json'), 'utf8')) as Partial<ServeState>;
    return typeof state.url === 'string' && Number.isInteger(state.pid)
      ? {
          url: state.url,
          pid: state.pid as number,
          token: typeof state.token === 'string' ? state.token : (new URL(state.url).searchParams.get('token') ?? ''),
        }
      : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/** The URL of this workspace's running server, opened on `absPath` (at `lines`), and its state; null when none runs. */
export async function runningServerOf(workspace: string, absPath: string, lines: LineRange | null = null): Promise<{ url: string; state: ServeState } | null> {
  const state = serveStateOf(workspace);
  if (!state || !isAlive(state.pid) || !(await answers(state.url))) return null;
  const url = new URL(state.url);
  url.searchParams.set('file', absPath);
  if (lines) url.searchParams.set('lines', `${lines.startLine}-${lines.endLine}`);
  return { url: url.href, state };
}

/** Ask the running server to show `absPath` in its open app windows (app_open); how many did, 0 when that fails. */
async function showInOpenWindows(state: ServeState, absPath: string, lines: LineRange | null): Promise<number> {
  try {
    const res = await fetch(new URL('/api/app_open', state.url), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${state.token}` },
      body: JSON.stringify({ path: absPath, ...(lines ? { lines: { start: lines.startLine, end: lines.endLine } } : {}) }),
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    if (!res.ok) return 0;
    const body = (await res.json()) as { windows?: unknown };
    return typeof body.windows === 'number' ? body.windows : 0;
  } catch {
    return 0;
  }
}

/** Best effort, like `folio serve --open`: no opener (a headless machine) is not an error. */
function openInBrowser(url: string): void {
  try {
    const child = spawn('xdg-open', [url], { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
  } catch {
    // ignored: the URL is printed anyway
  }
}

export function registerOpen(program: Command, io: CliIO): void {
  program
    .command('open')
    .description("Show FILE in this workspace's running Folio server (from .folio/serve.json), or serve it; prints the URL to open.")
    .argument('<file>', 'file to show, or a folio://open?path=FILE&lines=A-B link (Copy link) to show at those lines')
    .option('--open', 'open the URL in the default browser')
    .action(async (arg: string, opts: { open?: boolean }) => {
      const link = folioLinkOf(arg);
      if (link && !link.ok) {
        io.stderr.write(`folio open: ${link.problem}\n`);
        throw new Exit(EXIT_USAGE);
      }
      const file = link ? link.path : arg;
      const lines = link ? link.lines : null;
      // A locator (pg://, az://, s3://) is shown as it is; a path is made absolute for the server.
      const abs = isRemoteLocator(file) ? file : resolve(file);
      const running = await runningServerOf(process.cwd(), abs, lines);
      if (running) {
        io.stdout.write(running.url + '\n');
        // Windows already open switch to the file; with none, the printed URL (or --open) shows it.
        const windows = await showInOpenWindows(running.state, abs, lines);
        if (windows > 0) io.stderr.write(`shown in ${windows} open Folio window${windows === 1 ? '' : 's'}\n`);
        else if (opts.open) openInBrowser(running.url);
        return;
      }
      // No server: the same path as `folio serve FILE [--open]`.
      const { serve } = await import('../http/serve.ts'); // the HTTP server loads for this command only
      const server = await serve({ file, lines: lines ?? undefined, open: Boolean(opts.open) });
      announceServer(server, io);
      await new Promise<void>((resolveStop) => {
        const stop = () => void server.close().then(resolveStop);
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
    });
}
