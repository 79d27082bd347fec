/**
 * `folio review list | show ID | approve ID [--content-file F] | reject ID [--reason R]
 *  | undo [FILE] | redo [FILE] | history [FILE]`, each with `--json` and
 * `--root DIR` (the workspace whose `.folio/review` state to use; default the
 * current directory, so it shares state with `folio mcp` started there).
 * The CLI is a person: actor {kind: 'human', name: 'cli'}.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { handle, type OperationName, type OpInput, type OpOutput } from '../../api/handle.ts';
import type { ReviewJournalEntry, ReviewProposal } from '../../api/schemas.ts';
import { Exit, printError, type CliIO } from './main.ts';

const HUMAN = { kind: 'human', name: 'cli' } as const;

interface Common {
  root?: string;
  json?: boolean;
}

function targetText(t: ReviewProposal['target']): string {
  if ('insert' in t) return `insert at ${t.insert.units === 'bytes' ? 'byte' : 'line'} ${t.insert.at}`;
  if ('replace' in t) return `replace ${t.replace.units ?? 'lines'} ${t.replace.start}-${t.replace.end}`;
  if ('delete' in t) return `delete ${t.delete.units ?? 'lines'} ${t.delete.start}-${t.delete.end}`;
  return 'append';
}

const who = (a: { kind: string; name: string } | null) => (a ? `${a.kind}:${a.name}` : '-');

function proposalLine(p: ReviewProposal): string {
  return `${p.id}  ${p.status.padEnd(8)}  ${p.path}  ${targetText(p.target)}  by ${who(p.actor)}  ${p.created_at}`;
}

function entryLine(e: ReviewJournalEntry): string {
  const r = e.range_after;
  const lines = r.end_line >= r.start_line ? `lines ${r.start_line}-${r.end_line}` : `at line ${r.start_line}`;
  return `#${e.seq}  ${e.id}  ${e.path}  ${lines}  decided by ${who(e.decided_by)}${e.proposal_id ? `  (proposal ${e.proposal_id})` : ''}${e.undone ? '  [undone]' : ''}`;
}

function formatShow(o: OpOutput<'review_show'>): string {
  const p = o.proposal;
  const out = [`proposal ${p.id}: ${p.status}`, `path: ${p.path}  (${targetText(p.target)})`, `proposed by ${who(p.actor)} at ${p.created_at}`];
  if (p.decided_by) out.push(`decided by ${who(p.decided_by)} at ${p.decided_at}${p.edited ? ' (edited before approving)' : ''}`);
  if (p.reason) out.push(`reason: ${p.reason}`);
  if (p.conflict) out.push(`conflict: ${String(p.conflict.code)}: ${String(p.conflict.message)}`);
  if (o.entry) out.push(`journal: ${entryLine(o.entry)}`);
  out.push(p.preview.trimEnd());
  return out.join('\n') + '\n';
}

const formatStep = (o: OpOutput<'review_undo'>) =>
  `${o.preview.trimEnd()}\n${o.action === 'undo' ? 'undone' : 'redone'}: ${o.entry.id} in ${o.entry.path}; version ${o.version_before.etag} -> ${o.version_after?.etag ?? '-'}\n` +
  (o.group ? `with its group ${o.entry.group?.id}: ${o.group.map((e) => `${e.id} in ${e.path}`).join(', ')}\n` : '');

export function registerReview(program: Command, io: CliIO): void {
  const review = program.command('review').description('The review queue of agent proposals, and the journal of applied edits (undo, redo, history).');
  const sub = (name: string, description: string) =>
    review
      .command(name)
      .description(description)
      .option('--root <dir>', 'workspace root whose .folio/review state to use (default: the current directory)')
      .option('--json', 'print the response as one JSON object');

  async function run<N extends OperationName>(f: Common, op: N, input: OpInput<N>, format: (o: OpOutput<N>) => string): Promise<void> {
    try {
      const out = await handle(op, input, HUMAN, { workspace: resolve(f.root ?? process.cwd()) });
      io.stdout.write(f.json ? JSON.stringify(out) + '\n' : format(out));
    } catch (err) {
      throw new Exit(printError(err, Boolean(f.json), io));
    }
  }
  const abs = (file: string | undefined) => (file === undefined ? undefined : resolve(file));

  sub('list', 'List proposals, oldest first.')
    .addOption(new Option('--status <status>', 'only this status').choices(['pending', 'applied', 'rejected', 'conflict']))
    .option('--path <file>', 'only proposals for this file')
    .action((f: Common & { status?: 'pending' | 'applied' | 'rejected' | 'conflict'; path?: string }) =>
      run(f, 'review_list', { status: f.status, path: abs(f.path) }, (o) =>
        o.proposals.length ? o.proposals.map(proposalLine).join('\n') + '\n' : 'no proposals\n',
      ),
    );

  sub('show', 'Show one proposal: its diff, status and decision.')
    .argument('<id>', 'proposal id')
    .action((id: string, f: Common) => run(f, 'review_show', { id }, formatShow));

  sub('approve', "Apply a pending proposal (with --content-file: your text instead of the agent's).")
    .argument('<id>', 'proposal id')
    .option('--content-file <file>', 'edit-then-approve: apply the text of this file instead')
    .action((id: string, f: Common & { contentFile?: string }) => {
      let content: string | undefined;
      if (f.contentFile !== undefined) {
        try {
          content = readFileSync(f.contentFile, 'utf8');
        } catch (err) {
          io.stderr.write(`folio: usage: cannot read --content-file ${f.contentFile}: ${(err as Error).message}\n`);
          throw new Exit(2);
        }
      }
      return run(
        f,
        'review_approve',
        { id, ...(content !== undefined ? { content } : {}) },
        (o) => `${o.preview.trimEnd()}\napproved ${o.proposal.id}: applied to ${o.proposal.path} (journal ${o.entry.id})\n`,
      );
    });

  sub('reject', 'Reject a pending proposal.')
    .argument('<id>', 'proposal id')
    .option('--reason <text>', 'why (the agent sees it)')
    .action((id: string, f: Common & { reason?: string }) =>
      run(
        f,
        'review_reject',
        { id, ...(f.reason !== undefined ? { reason: f.reason } : {}) },
        (o) => `rejected ${o.proposal.id}${o.proposal.reason ? `: ${o.proposal.reason}` : ''}\n`,
      ),
    );

  for (const action of ['undo', 'redo'] as const) {
    sub(action, `${action === 'undo' ? 'Undo' : 'Redo'} the latest ${action === 'undo' ? 'applied' : 'undone'} edit you decided (of FILE, if given).`)
      .argument('[file]', 'only edits of this file')
      .option('--include-others', 'also edits decided by other actors')
      .option('--id <journal-id>', `exactly this journal entry (see history), even if later edits are applied`)
      .action((file: string | undefined, f: Common & { includeOthers?: boolean; id?: string }) =>
        run(
          f,
          action === 'undo' ? 'review_undo' : 'review_redo',
          { path: abs(file), ...(f.id !== undefined ? { id: f.id } : {}), ...(f.includeOthers ? { include_others: true } : {}) },
          formatStep,
        ),
      );
  }

  sub('history', 'The journal of applied edits in global order (of FILE, if given).')
    .argument('[file]', 'only edits of this file')
    .action((file: string | undefined, f: Common) =>
      run(f, 'review_history', { path: abs(file) }, (o) => (o.entries.length ? o.entries.map(entryLine).join('\n') + '\n' : 'no applied edits\n')),
    );
}
