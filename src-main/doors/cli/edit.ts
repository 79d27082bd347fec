/**
 * `folio edit FILE --old TEXT --new TEXT`: edit by quoting, as agents do with the
 * edit tool. --old/--new pairs repeat for several edits in one call (all or none);
 * the quotes are the precondition. Prints the diff, or the error that says how to
 * fix a quote (the nearest near-miss, or the lines of each candidate).
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { handle, type OpOutput } from '../../api/quick-handle.ts';
import type { EditInput } from '../../api/schemas.ts';
import { Exit, printError, type CliIO } from './cli-io.ts';

const HUMAN = { kind: 'human', name: 'cli' } as const;

interface Flags {
  old?: string[];
  new?: string[];
  replaceAll?: boolean;
  ifMatch?: string;
  dryRun?: boolean;
  root?: string;
  json?: boolean;
}

const collect = (v: string, prev: string[] = []) => [...prev, v];

export function formatEdit(r: OpOutput<'edit'>): string {
  if (r.files)
    return r.files.map((f) => `${f.path}:\n${formatOne(f)}`).join('') + (r.group_id ? `group: ${r.group_id} (${r.files.length} files, undone together)\n` : '');
  return formatOne(r);
}

export function formatOne(r: Omit<OpOutput<'edit'>, 'files'>): string {
  const a = r.affected;
  const verb = r.applied ? 'applied' : 'dry run (nothing written)';
  return (
    [
      r.preview.trimEnd(),
      `${verb}: ${r.hunks?.length ?? 1} edit(s); ${a.lines.removed} line(s) removed, ${a.lines.inserted} inserted (${a.bytes.removed} -> ${a.bytes.inserted} bytes)`,
      `version: ${r.version_before.etag}${r.version_after ? ` -> ${r.version_after.etag}` : ''}`,
      ...r.notes.map((n) => `note: ${n}`),
    ].join('\n') + '\n'
  );
}

export function registerEdit(program: Command, io: CliIO): void {
  program
    .command('edit')
    .description(
      'Replace quoted text in FILE: each --old must occur once (or, with --replace-all, at least once); several pairs apply together or not at all. ' +
        'Several files: the pairs apply to each, every file or none.',
    )
    .argument('<files...>', 'file(s) to edit')
    .option('--old <text>', 'text to replace, exactly as in the file (repeat with --new for several edits)', collect)
    .option('--new <text>', 'its replacement (one per --old)', collect)
    .option('--replace-all', 'replace every occurrence of each --old')
    .option('--if-match <etag>', 'also require this version (the quotes are the precondition already)')
    .option('--dry-run', 'show the diff, write nothing')
    .option('--root <dir>', 'workspace root whose .folio/review journal records the edit (default: the current directory)')
    .option('--json', 'print the response as one JSON object')
    .action(async (files: string[], f: Flags) => {
      const olds = f.old ?? [];
      const news = f.new ?? [];
      if (olds.length === 0 || olds.length !== news.length) {
        io.stderr.write('folio: usage: give --old TEXT --new TEXT, one --new for each --old\n');
        throw new Exit(2);
      }
      if (files.length > 1 && f.ifMatch) {
        io.stderr.write('folio: usage: --if-match names one version: give it with one file\n');
        throw new Exit(2);
      }
      const pairs = olds.map((o, i) => ({ old_text: o, new_text: news[i]!, ...(f.replaceAll ? { replace_all: true } : {}) }));
      const input: EditInput = {
        ...(files.length === 1 ? { path: files[0]!, edits: pairs } : { edits: files.flatMap((path) => pairs.map((p) => ({ path, ...p }))) }),
        ...(f.ifMatch ? { if_match: f.ifMatch } : {}),
        ...(f.dryRun ? { dry_run: true } : {}),
      };
      try {
        const r = await handle('edit', input, HUMAN, { workspace: resolve(f.root ?? process.cwd()), deferJournal: true });
        io.stdout.write(f.json ? JSON.stringify(r) + '\n' : formatEdit(r));
      } catch (err) {
        throw new Exit(printError(err, Boolean(f.json), io));
      }
    });
}
