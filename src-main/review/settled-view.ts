/**
 * What readers (history, listing and showing proposals) see without the review
 * lock: the document with the journal intents a crash left settled in memory, by
 * the files' state, as the next locked mutation will settle them on disk
 * (intents.ts). So a listing never shows a state the file contradicts: an
 * approve killed after its write reads as applied, an undo as done. Nothing is
 * written: committing needs the lock. Only the entry and its proposal are
 * settled; the byte shifts of the file's other entries wait for the real commit
 * (they only aim undo/redo, which run locked and reconcile first). Edits journaled
 * as records (applied-log.ts) are settled the same way, before the intents.
 */
import { appliedRecordsOf } from './applied-log.ts';
import { appliedEntryOf, appliedFieldsOf } from './journal-commit.ts';
import { appliedOf, intentSideOf, intentsOf, intentVersionAfter } from './intents.ts';
import { allEntries, allProposals, nextSeq, nowIso } from './records.ts';
import type { ReviewStore } from './store.ts';
import type { JournalEntry, Proposal } from './types.ts';

export interface SettledView {
  entries: JournalEntry[];
  proposals: Proposal[];
}

/** The store's entries and proposals with every finished-but-uncommitted write settled. */
export function settledView(store: ReviewStore): SettledView {
  store.refresh();
  const entries = allEntries(store);
  const proposals = allProposals(store);
  const intents = intentsOf(store);
  const records = appliedRecordsOf(store.dir);
  if (!intents.length && !records.length) return { entries, proposals };
  let seq = nextSeq(store);
  // Writes journaled as records (applied-log.ts): done whatever the file holds now; older than any intent.
  for (const { record } of records) {
    if (entries.some((x) => x.id === record.entry_id)) continue;
    entries.push(appliedEntryOf(appliedOf(record, record.version_after, record.range_after), seq++, nowIso()));
  }
  for (const intent of intents) {
    if (intentSideOf(store, intent) !== 'after') continue;
    const at = nowIso();
    const version = intentVersionAfter(store, intent);
    const e = entries.find((x) => x.id === intent.entry_id);
    if (intent.action === 'apply') {
      if (e) continue;
      const entry = appliedEntryOf(appliedOf(intent, version), seq++, at);
      entries.push(entry);
      // The proposal, or every proposal of a batch, as the commit will record it.
      for (const m of [...(intent.proposal_id !== null ? [{ id: intent.proposal_id, hunks: intent.proposal_hunks }] : []), ...(intent.batch ?? [])]) {
        const p = proposals.find((x) => x.id === m.id);
        if (!p) continue;
        const fields = appliedFieldsOf(store, m.id, m.hunks, { decidedBy: intent.decided_by, editedContent: intent.edited_content }, entry.id, at);
        Object.assign(p, { ...fields, edited_content: fields.edited_content ?? p.edited_content });
      }
    } else if (e && e.undone === (intent.action === 'redo')) {
      const s = seq++;
      e.history.push({ action: intent.action, seq: s, by: intent.by, at, version_before: intent.version_before, version_after: version });
      if (intent.action === 'undo') Object.assign(e, { undone: true, undone_seq: s, redo_payload: intent.removed, last_version: version });
      else Object.assign(e, { undone: false, applied_seq: s, redo_payload: null, last_version: version });
    }
  }
  return { entries: entries.sort((a, b) => a.seq - b.seq), proposals };
}
