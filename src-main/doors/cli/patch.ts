/**
 * `folio patch [FILE] < PATCH`: apply a patch as agents write them (a Codex
 * "*** Begin Patch" envelope, SEARCH/REPLACE blocks, a unified diff) from standard
 * input or --patch-file, every file or none. FILE names the file of SEARCH/REPLACE
 * blocks that name none. Prints each file's diff, or the error naming the hunk.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { handle, type OpOutput } from '../../api/quick-handle.ts';
import type { PatchInput } from '../../api/schemas/patch.ts';
import { Exit, printError, type CliIO } from './cli-io.ts';
import { formatOne } from './edit.ts';
import { readStdin } from './upsert.ts';

const HUMAN = { kind: 'human', name: 'cli' } as const;

interface Flags {
  patchFile?: string;
  dryRun?: boolean;
  root?: string;
  json?: boolean;
}

/** Each file's diff and counts, then each delete's or move's preview, then the journal group. */
function formatPatch(r: OpOutput<'patch'>): string {
  const files = (r.files ?? []).map((f) => `${f.path}:\n${formatOne(f)}`);
  const shown = new Set(r.files?.[0]?.notes ?? []);
  const ops = (r.file_ops ?? []).map(
    (o) => `${o.preview.trimEnd()}\n${o.applied ? '' : 'dry run: '}${o.op === 'move' ? `moved ${o.path} -> ${o.to}` : `deleted ${o.path}`}\n`,
  );
  const group = r.group_id ? [`group: ${r.group_id} (${files.length + ops.length} changes, undone together)\n`] : [];
  return [...files, ...ops, ...group, ...r.notes.filter((n) => !shown.has(n)).map((n) => `note: ${n}\n`)].join('');
}

export function registerPatch(program: Command, io: CliIO): void {
  program
    .command('patch')
    .description(
      'Apply a patch from standard input (or --patch-file): a Codex "*** Begin Patch" envelope, SEARCH/REPLACE blocks or a unified diff, ' +
        'over one or several files, all or none. Each hunk must match once; paths are relative to the current directory.',
    )
    .argument('[file]', 'the file of SEARCH/REPLACE blocks that name none')
    .option('--patch-file <f>', 'read the patch from this file instead of standard input')
    .option('--dry-run', 'show the diffs, write nothing')
    .option('--root <dir>', 'workspace root whose .folio/review journal records the edit (default: the current directory)')
    .option('--json', 'print the response as one JSON object')
    .action(async (file: string | undefined, f: Flags) => {
      try {
        const patch = f.patchFile ? readFileSync(f.patchFile, 'utf8') : await readStdin();
        const input: PatchInput = { patch, ...(file ? { path: file } : {}), ...(f.dryRun ? { dry_run: true } : {}) };
        const r = await handle('patch', input, HUMAN, { workspace: resolve(f.root ?? process.cwd()), deferJournal: true });
        io.stdout.write(f.json ? JSON.stringify(r) + '\n' : formatPatch(r));
      } catch (err) {
        throw new Exit(printError(err, Boolean(f.json), io));
      }
    });
}
