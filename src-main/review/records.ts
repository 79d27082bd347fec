/** Reading and writing proposals and journal entries of a store's document. */
import { randomBytes } from 'node:crypto';
import { FolioError } from '../engine/errors.ts';
import { fromDoc, toDoc } from './doc-codec.ts';
import type { ReviewStore } from './store.ts';
import type { JournalEntry, Proposal, ReviewActor, ReviewDocShape } from './types.ts';

export function newId(prefix: 'p' | 'j' | 'g'): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}

export function nowIso(): string {
  return new Date().toISOString();
}

export function sameActor(a: ReviewActor, b: ReviewActor): boolean {
  return a.kind === b.kind && a.name === b.name;
}

export function allProposals(store: ReviewStore): Proposal[] {
  const map = store.state.proposals ?? {};
  return Object.keys(map).map((id) => fromDoc<Proposal>(map[id]));
}

export function allEntries(store: ReviewStore): JournalEntry[] {
  const map = store.state.journal ?? {};
  return Object.keys(map)
    .map((id) => fromDoc<JournalEntry>(map[id]))
    .sort((a, b) => a.seq - b.seq);
}

/**
 * The record stored under `id`, or undefined. Own keys only: ids come from callers
 * (`__proto__`, `constructor`, `toString` …), and a plain lookup on the document's
 * maps would answer with Object.prototype's members instead of "no such record".
 */
function ownRecord(map: Record<string, unknown> | undefined, id: string): unknown {
  return map !== undefined && Object.hasOwn(map, id) ? map[id] : undefined;
}

export function proposalOf(store: ReviewStore, id: string): Proposal {
  const rec = ownRecord(store.state.proposals, id);
  if (rec === undefined) throw new FolioError('not_found', `no proposal ${id} in this workspace`, { proposal_id: id, root: store.root });
  return fromDoc<Proposal>(rec);
}

export function entryOf(store: ReviewStore, id: string): JournalEntry | null {
  const rec = ownRecord(store.state.journal, id);
  return rec === undefined ? null : fromDoc<JournalEntry>(rec);
}

/** The next global sequence number (decisions and undo order are global across files). */
export function nextSeq(store: ReviewStore): number {
  return Number(store.state.next_seq ?? 1);
}

/** Set fields of a record inside a `commit` change. */
export function assignFields(d: ReviewDocShape, table: 'proposals' | 'journal', id: string, fields: Record<string, unknown>): void {
  const rec = d[table]![id] as Record<string, unknown>;
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) rec[k] = toDoc(v);
}
