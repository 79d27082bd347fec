/**
 * `folio review list | show ID | approve ID [--content-file F] [--hunks 1,3] [--current]
 *  | approve --path F | --actor A | reject ID [--reason R] [--hunks 2] | reject --path F | --actor A
 *  | undo [FILE] | redo [FILE] | history [FILE]`, each with `--json` and
 * `--root DIR` (the workspace whose `.folio/review` state to use; default the
 * current directory, so it shares state with `folio mcp` started there).
 * The CLI is a person: actor {kind: 'human', name: 'cli'}.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { handle, type OperationName, type OpInput, type OpOutput } from '../../api/quick-handle.ts';
import type { DamagedReviewFrame, ReviewJournalEntry, ReviewProposal } from '../../api/schemas.ts';
import { Exit, printError, type CliIO } from './cli-io.ts';

const HUMAN = { kind: 'human', name: 'cli' } as const;

interface Common {
  root?: string;
  json?: boolean;
}

const who = (a: { kind: string; name: string } | null) => (a ? `${a.kind}:${a.name}` : '-');

function proposalLine(p: ReviewProposal): string {
  return `${p.id}  ${p.status.padEnd(8)}  ${p.path}  ${p.change.label}  by ${who(p.actor)}  ${p.created_at}`;
}

/** Each decision unit of a proposal decided hunk by hunk: "hunk 2: lines 10–12, 40  pending" (the numbers --hunks takes). */
function hunkLines(p: ReviewProposal): string[] {
  if (!p.change.per_hunk) return [];
  const units = new Map<number, { places: string[]; status: string }>();
  for (const h of p.change.hunks) {
    const last = h.start_line + Math.max(h.old_count, 1) - 1;
    const u = units.get(h.index) ?? { places: [], status: h.status };
    u.places.push(last === h.start_line ? `${h.start_line}` : `${h.start_line}–${last}`);
    units.set(h.index, u);
  }
  return [...units.entries()].map(
    ([i, u]) => `hunk ${i}: line${u.places.length > 1 || u.places[0]!.includes('–') ? 's' : ''} ${u.places.join(', ')}  ${u.status}`,
  );
}

function entryLine(e: ReviewJournalEntry): string {
  const r = e.range_after;
  const lines = r.end_line >= r.start_line ? `lines ${r.start_line}-${r.end_line}` : `at line ${r.start_line}`;
  return `#${e.seq}  ${e.id}  ${e.path}  ${lines}  decided by ${who(e.decided_by)}${e.proposal_id ? `  (proposal ${e.proposal_id})` : ''}${e.undone ? '  [undone]' : ''}`;
}

/** The warning for review data that did not load (review/damaged.ts): what, where it was, where it is kept. */
function damagedWarning(d: DamagedReviewFrame): string {
  const what = d.kind === 'torn_tail' ? 'an unfinished frame of a writer that is gone' : 'a frame that does not parse';
  return (
    `folio: warning: damaged review data: ${what} (${d.bytes} bytes at byte ${d.offset} of .folio/review/${d.source}) did not load; ` +
    `decisions it held may be missing. Kept aside in ${d.file} (delete that file to dismiss this).\n`
  );
}

function formatShow(o: OpOutput<'review_show'>): string {
  const p = o.proposal;
  const out = [`proposal ${p.id}: ${p.status}`, `path: ${p.path}  (${p.change.label})`, `proposed by ${who(p.actor)} at ${p.created_at}`];
  if (p.decided_by) out.push(`decided by ${who(p.decided_by)} at ${p.decided_at}${p.edited ? ' (edited before approving)' : ''}`);
  if (p.reason) out.push(`reason: ${p.reason}`);
  if (p.conflict) out.push(`conflict: ${String(p.conflict.code)}: ${String(p.conflict.message)}`);
  out.push(...hunkLines(p));
  if (o.entry) out.push(`journal: ${entryLine(o.entry)}`);
  out.push(p.preview.trimEnd());
  return out.join('\n') + '\n';
}

interface BatchFlags {
  path?: string;
  actor?: string;
  all?: boolean;
}

function formatBatch(o: OpOutput<'review_batch'>): string {
  const out: string[] = [];
  if (o.decision === 'approve') {
    const files = o.entries.map((e) => `${e.path} (journal ${e.id})`).join(', ');
    out.push(
      o.applied.length
        ? `approved ${o.applied.length} proposal(s) in ${o.entries.length} write(s): ${files}; group ${o.group_id}: review undo takes it back whole`
        : 'approved nothing',
    );
    for (const p of o.applied) out.push(`  applied   ${p.id}  ${p.path}  ${p.change.label}`);
  } else {
    out.push(`rejected ${o.rejected.length} proposal(s)`);
    for (const p of o.rejected) out.push(`  rejected  ${p.id}  ${p.path}  ${p.change.label}${p.reason ? `: ${p.reason}` : ''}`);
  }
  for (const p of o.conflicts) out.push(`  conflict  ${p.id}  ${p.path}: ${String(p.conflict?.message ?? '')}`);
  for (const s of o.skipped) out.push(`  skipped   ${s.proposal.id}  ${s.proposal.path}: ${s.reason}`);
  return out.join('\n') + '\n';
}

const formatStep = (o: OpOutput<'review_undo'>) =>
  `${o.preview.trimEnd()}\n${o.action === 'undo' ? 'undone' : 'redone'}: ${o.entry.id} in ${o.entry.path}; version ${o.version_before.etag} -> ${o.version_after?.etag ?? '-'}\n` +
  (o.group ? `with its group ${o.entry.group?.id}: ${o.group.map((e) => `${e.id} in ${e.path}`).join(', ')}\n` : '');

/** What every `folio review` subcommand shares: its declaration with --root and --json, and its run. */
interface ReviewCli {
  io: CliIO;
  sub(name: string, description: string): Command;
  run<N extends OperationName>(f: Common, op: N, input: OpInput<N>, format: (o: OpOutput<N>) => string, warnings?: (o: OpOutput<N>) => string[]): Promise<void>;
}

const absOf = (file: string | undefined) => (file === undefined ? undefined : resolve(file));

export function registerReview(program: Command, io: CliIO): void {
  const review = program.command('review').description('The review queue of agent proposals, and the journal of applied edits (undo, redo, history).');
  const sub = (name: string, description: string) =>
    review
      .command(name)
      .description(description)
      .option('--root <dir>', 'workspace root whose .folio/review state to use (default: the current directory)')
      .option('--json', 'print the response as one JSON object');

  /** `warnings` go to stderr whatever the format: a person piping --json must still see them. */
  async function run<N extends OperationName>(
    f: Common,
    op: N,
    input: OpInput<N>,
    format: (o: OpOutput<N>) => string,
    warnings: (o: OpOutput<N>) => string[] = () => [],
  ): Promise<void> {
    try {
      const out = await handle(op, input, HUMAN, { workspace: resolve(f.root ?? process.cwd()) });
      for (const w of warnings(out)) io.stderr.write(w);
      io.stdout.write(f.json ? JSON.stringify(out) + '\n' : format(out));
    } catch (err) {
      throw new Exit(printError(err, Boolean(f.json), io));
    }
  }
  const cli: ReviewCli = { io, sub, run };
  registerQueue(cli);
  registerDecisions(cli);
  registerJournal(cli);
}

/** list and show: the proposals waiting, and one of them. */
function registerQueue({ sub, run }: ReviewCli): void {
  sub('list', 'List proposals, oldest first.')
    .addOption(new Option('--status <status>', 'only this status').choices(['pending', 'applied', 'rejected', 'conflict']))
    .option('--path <file>', 'only proposals for this file')
    .action((f: Common & { status?: 'pending' | 'applied' | 'rejected' | 'conflict'; path?: string }) =>
      run(
        f,
        'review_list',
        { status: f.status, path: absOf(f.path) },
        (o) => (o.proposals.length ? o.proposals.map(proposalLine).join('\n') + '\n' : 'no proposals\n'),
        (o) => o.damaged.map(damagedWarning),
      ),
    );

  sub('show', 'Show one proposal: its diff, status and decision.')
    .argument('<id>', 'proposal id')
    .action((id: string, f: Common) => run(f, 'review_show', { id }, formatShow));
}

/** `--hunks 1,3` as 1-based hunk numbers (as proposal_status and review show number them); a usage error otherwise. */
function hunksOf(io: CliIO, list: string | undefined): number[] | undefined {
  if (list === undefined) return undefined;
  const parts = list.split(',').map((x) => x.trim());
  if (parts.some((x) => !/^[1-9]\d*$/.test(x))) {
    io.stderr.write(`folio: usage: --hunks takes hunk numbers from 1, separated by commas (e.g. 1,3), not ${JSON.stringify(list)}\n`);
    throw new Exit(2);
  }
  return parts.map(Number);
}

/** ID, or a batch filter (--path / --actor / --all), never both nor neither: a usage error otherwise (the api refuses --all with a filter). */
function idOrBatch(
  io: CliIO,
  id: string | undefined,
  f: BatchFlags,
  decision: 'approve' | 'reject',
): { id: string } | { path?: string; actor?: string; all?: true } {
  const batch = f.path !== undefined || f.actor !== undefined || f.all === true;
  if (id !== undefined && !batch) return { id };
  if (id === undefined && batch) {
    const only = ['hunks', 'contentFile', 'current'].find((k) => (f as Record<string, unknown>)[k] !== undefined);
    if (only) {
      io.stderr.write(`folio: usage: --${only === 'contentFile' ? 'content-file' : only} decides one proposal: give its ID, not --path/--actor\n`);
      throw new Exit(2);
    }
    return {
      ...(f.path !== undefined ? { path: absOf(f.path) } : {}),
      ...(f.actor !== undefined ? { actor: f.actor } : {}),
      ...(f.all ? { all: true as const } : {}),
    };
  }
  io.stderr.write(`folio: usage: review ${decision} takes a proposal ID, or --path FILE / --actor NAME / --all for a batch (not both)\n`);
  throw new Exit(2);
}

const hunksText = (p: ReviewProposal) => (p.hunks ? `  hunks: ${p.hunks.map((h) => `${h.index} ${h.status}`).join(', ')}` : '');

/** approve and reject: one proposal (or some of its hunks), or a batch. */
function registerDecisions({ io, sub, run }: ReviewCli): void {
  sub('approve', "Apply a pending proposal (with --content-file: your text instead of the agent's), or every pending one of a file or agent.")
    .argument('[id]', 'proposal id (or --path / --actor for a batch)')
    .option('--content-file <file>', 'edit-then-approve: apply the text of this file instead')
    .option('--hunks <list>', 'only these edits of a proposal with several, 1-based as `review show` lists them (e.g. 1,3); the rest stay pending')
    .option('--current', "apply to the current file: check only the proposal's own lines (also retries a conflict)")
    .option('--path <file>', 'batch: every pending proposal of this file, in one write')
    .option('--actor <name>', 'batch: every pending proposal of this agent (name, or kind:name), one write per file')
    .option('--all', 'batch: every pending proposal of the session (deletes and moves too), one journal group')
    .action((id: string | undefined, f: Common & BatchFlags & { contentFile?: string; hunks?: string; current?: boolean }) => {
      const which = idOrBatch(io, id, f, 'approve');
      if (!('id' in which)) return run(f, 'review_batch', { decision: 'approve', ...which }, formatBatch);
      let content: string | undefined;
      if (f.contentFile !== undefined) {
        try {
          content = readFileSync(f.contentFile, 'utf8');
        } catch (err) {
          io.stderr.write(`folio: usage: cannot read --content-file ${f.contentFile}: ${(err as Error).message}\n`);
          throw new Exit(2);
        }
      }
      const hunks = hunksOf(io, f.hunks);
      return run(
        f,
        'review_approve',
        { id: which.id, ...(content !== undefined ? { content } : {}), ...(hunks ? { hunks } : {}), ...(f.current ? { current: true } : {}) },
        (o) =>
          `${o.preview.trimEnd()}\napproved ${hunks ? `hunks ${hunks.join(',')} of ` : ''}${o.proposal.id}: applied to ${o.proposal.path} (journal ${o.entry.id})` +
          `${o.proposal.status === 'pending' ? '; the rest stay pending' : ''}${hunksText(o.proposal)}\n`,
      );
    });

  sub('reject', 'Reject a pending proposal (or dismiss a conflict), or every one of a file or agent.')
    .argument('[id]', 'proposal id (or --path / --actor for a batch)')
    .option('--reason <text>', 'why (the agent sees it)')
    .option('--hunks <list>', 'only these edits of a proposal with several, 1-based (e.g. 2)')
    .option('--path <file>', 'batch: every pending or conflicted proposal of this file')
    .option('--actor <name>', 'batch: every pending or conflicted proposal of this agent (name, or kind:name)')
    .option('--all', 'batch: every pending or conflicted proposal of the session')
    .action((id: string | undefined, f: Common & BatchFlags & { reason?: string; hunks?: string }) => {
      const which = idOrBatch(io, id, f, 'reject');
      const reason = f.reason !== undefined ? { reason: f.reason } : {};
      if (!('id' in which)) return run(f, 'review_batch', { decision: 'reject', ...which, ...reason }, formatBatch);
      const hunks = hunksOf(io, f.hunks);
      return run(
        f,
        'review_reject',
        { id: which.id, ...reason, ...(hunks ? { hunks } : {}) },
        (o) =>
          `rejected ${hunks ? `hunks ${hunks.join(',')} of ` : ''}${o.proposal.id}${o.proposal.reason ? `: ${o.proposal.reason}` : ''}` +
          `${o.proposal.status === 'pending' ? ' (the rest stay pending)' : ''}${hunksText(o.proposal)}\n`,
      );
    });
}

/** undo, redo and history: the journal of applied edits. */
function registerJournal({ sub, run }: ReviewCli): void {
  for (const action of ['undo', 'redo'] as const) {
    sub(action, `${action === 'undo' ? 'Undo' : 'Redo'} the latest ${action === 'undo' ? 'applied' : 'undone'} edit you decided (of FILE, if given).`)
      .argument('[file]', 'only edits of this file')
      .option('--include-others', 'also edits decided by other actors')
      .option('--id <journal-id>', `exactly this journal entry (see history), even if later edits are applied`)
      .action((file: string | undefined, f: Common & { includeOthers?: boolean; id?: string }) =>
        run(
          f,
          action === 'undo' ? 'review_undo' : 'review_redo',
          { path: absOf(file), ...(f.id !== undefined ? { id: f.id } : {}), ...(f.includeOthers ? { include_others: true } : {}) },
          formatStep,
        ),
      );
  }

  sub('history', 'The journal of applied edits in global order (of FILE, if given).')
    .argument('[file]', 'only edits of this file')
    .action((file: string | undefined, f: Common) =>
      run(f, 'review_history', { path: absOf(file) }, (o) => (o.entries.length ? o.entries.map(entryLine).join('\n') + '\n' : 'no applied edits\n')),
    );
}
