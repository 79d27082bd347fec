/**
 * `folio rm FILE (--if-match ETAG | --sha256 H) [--dry-run] [--root DIR] [--json]`
 * `folio mv FROM TO (--if-match ETAG | --sha256 H) [--dry-run] [--root DIR] [--json]`
 * A person's own delete or move: applied at once, only if FILE is still the version
 * named, journaled in the workspace at --root (default: the current directory) so
 * `folio review undo` takes it back. mv never replaces a file; missing folders of TO
 * are created.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { handle } from '../../api/quick-handle.ts';
import type { FileOpOutput } from '../../api/schemas.ts';
import { Exit, printError, type CliIO } from './cli-io.ts';

const HUMAN = { kind: 'human', name: 'cli' } as const;

interface Flags {
  ifMatch?: string;
  sha256?: string;
  dryRun?: boolean;
  root?: string;
  json?: boolean;
}

function formatFileOp(r: FileOpOutput): string {
  const what = r.op === 'move' ? `moved ${r.path} -> ${r.to}` : `deleted ${r.path}`;
  return (
    [
      r.dry_run ? r.preview.trimEnd() : null,
      r.applied ? what : `dry run (nothing changed): would have ${what}`,
      `version: ${r.version_before.etag}${r.version_after ? ` -> ${r.version_after.etag}` : ''}`,
      ...r.notes.map((n) => `note: ${n}`),
    ]
      .filter((l) => l !== null)
      .join('\n') + '\n'
  );
}

function withGuards(cmd: Command): Command {
  return cmd
    .option('--if-match <etag>', 'precondition: the etag of your read (folio info FILE shows it)')
    .option('--sha256 <hash>', 'precondition: SHA-256 of the whole file')
    .option('--dry-run', 'check and show what would happen, change nothing')
    .option('--root <dir>', 'workspace root whose .folio/review journal records it (default: the current directory)')
    .option('--json', 'print the response as one JSON object');
}

async function run(io: CliIO, f: Flags, call: () => Promise<FileOpOutput>): Promise<void> {
  try {
    const r = await call();
    io.stdout.write(f.json ? JSON.stringify(r) + '\n' : formatFileOp(r));
  } catch (err) {
    throw new Exit(printError(err, Boolean(f.json), io));
  }
}

const guardsOf = (f: Flags) => ({
  ...(f.ifMatch ? { if_match: f.ifMatch } : {}),
  ...(f.sha256 ? { expected_sha256: f.sha256 } : {}),
  ...(f.dryRun ? { dry_run: true } : {}),
});

export function registerFileOps(program: Command, io: CliIO): void {
  withGuards(
    program
      .command('rm')
      .description('Delete FILE, only if it is still the version you name; journaled (folio review undo brings it back).')
      .argument('<file>', 'file to delete'),
  ).action((file: string, f: Flags) =>
    run(io, f, () => handle('delete_file', { path: file, ...guardsOf(f) }, HUMAN, { workspace: resolve(f.root ?? process.cwd()) })),
  );
  withGuards(
    program
      .command('mv')
      .description('Move FROM to TO (which must not exist), only if FROM is still the version you name; journaled (folio review undo moves it back).')
      .argument('<from>', 'file to move')
      .argument('<to>', 'its new name'),
  ).action((from: string, to: string, f: Flags) =>
    run(io, f, () => handle('move_file', { path: from, to, ...guardsOf(f) }, HUMAN, { workspace: resolve(f.root ?? process.cwd()) })),
  );
}
