/**
 * The changed files of the session, as the changed-files list shows them: one row
 * per file with a pending (or conflicted) proposal, in F7's file order, saying
 * what the change is (the change model's kind and label), how many hunks wait,
 * and which agents proposed them; and the agents, each with what waits of theirs.
 */
import type { ReviewProposal } from '../../src-main/api/schemas.ts';

export interface ChangedFileRow {
  path: string;
  /** what happens to the file: "edit", "create", "delete", "move" (several: joined) */
  kind: string;
  /** the proposals' labels, e.g. "quote edit, 3 hunks, lines 12–14, 40, 88–90" */
  labels: string[];
  /** hunks still to decide (a proposal decided whole counts 1) */
  pendingHunks: number;
  conflicts: number;
  /** agents' names, in the order they first proposed */
  agents: string[];
}

export interface AgentRow {
  /** "kind:name": what review_batch's actor filter takes */
  actor: string;
  name: string;
  pending: number;
}

/** Hunks of `p` still to decide: its pending hunks, or 1 for a proposal without line hunks (a move, an empty create). */
export function pendingHunksOf(p: ReviewProposal): number {
  if (p.status !== 'pending') return 0;
  const change = p.change as ReviewProposal['change'] | undefined;
  if (change) return Math.max(1, change.hunks.filter((h) => h.status === 'pending').length);
  // A server older than the change model: its edits, less those decided.
  const edits = (p.targets ?? p.quoted ?? [p.target]).length;
  const hunks = edits - (p.hunks?.filter((h) => h.status !== 'pending').length ?? 0);
  return Math.max(1, hunks);
}

/** What the proposal does to its file, in words (the change model's label; the file op or "edit" from an older server). */
function labelOf(p: ReviewProposal): { kind: string; label: string } {
  const change = p.change as ReviewProposal['change'] | undefined;
  if (change) return { kind: change.kind, label: change.label };
  const kind = p.file_op ?? 'edit';
  return { kind, label: p.file_op === 'move' && p.to ? `move ${p.path} → ${p.to}` : kind };
}

const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** One row per file with a pending or conflicted proposal, in path order (F7's). */
export function changedFilesOf(queue: ReviewProposal[]): ChangedFileRow[] {
  const rows = new Map<string, ChangedFileRow>();
  for (const p of queue) {
    if (p.status !== 'pending' && p.status !== 'conflict') continue;
    const row = rows.get(p.path) ?? { path: p.path, kind: '', labels: [], pendingHunks: 0, conflicts: 0, agents: [] };
    const { kind, label } = labelOf(p);
    const kinds = row.kind ? row.kind.split(', ') : [];
    if (!kinds.includes(kind)) row.kind = [...kinds, kind].join(', ');
    row.labels.push(p.status === 'conflict' ? `${label} (conflict)` : label);
    row.pendingHunks += pendingHunksOf(p);
    if (p.status === 'conflict') row.conflicts++;
    if (!row.agents.includes(p.actor.name)) row.agents.push(p.actor.name);
    rows.set(p.path, row);
  }
  return [...rows.values()].sort((a, b) => byPath(a.path, b.path));
}

/** The agents with pending proposals, in the order they first proposed, each with its pending proposals' count. */
export function agentsOf(queue: ReviewProposal[]): AgentRow[] {
  const out = new Map<string, AgentRow>();
  for (const p of queue) {
    if (p.status !== 'pending') continue;
    const actor = `${p.actor.kind}:${p.actor.name}`;
    const row = out.get(actor) ?? { actor, name: p.actor.name, pending: 0 };
    row.pending++;
    out.set(actor, row);
  }
  return [...out.values()];
}
