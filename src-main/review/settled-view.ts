/**
 * What readers (history, listing and showing proposals) see without the review
 * lock: the document with the journal intents a crash left settled in memory, by
 * the files' state, as the next locked mutation will settle them on disk
 * (intents.ts). So a listing never shows a state the file contradicts: an
 * approve killed after its write reads as applied, an undo as done. Nothing is
 * written: committing needs the lock. Only the entry and its proposal are
 * settled; the byte shifts of the file's other entries wait for the real commit
 * (they only aim undo/redo, which run locked and reconcile first).
 */
import { appliedEntryOf } from './journal-commit.ts';
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
  if (!intents.length) return { entries, proposals };
  let seq = nextSeq(store);
  for (const intent of intents) {
    if (intentSideOf(store, intent) !== 'after') continue;
    const at = nowIso();
    const version = intentVersionAfter(store, intent);
    const e = entries.find((x) => x.id === intent.entry_id);
    if (intent.action === 'apply') {
      if (e) continue;
      const entry = appliedEntryOf(appliedOf(intent, version), seq++, at);
      entries.push(entry);
      const p = proposals.find((x) => x.id === intent.proposal_id);
      if (p)
        Object.assign(p, {
          status: 'applied',
          decided_by: intent.decided_by,
          decided_at: at,
          journal_id: entry.id,
          edited_content: intent.edited_content ?? p.edited_content,
        });
    } else if (e && e.undone === (intent.action === 'redo')) {
      const s = seq++;
      e.history.push({ action: intent.action, seq: s, by: intent.by, at, version_before: intent.version_before, version_after: version });
      if (intent.action === 'undo') Object.assign(e, { undone: true, undone_seq: s, redo_payload: intent.removed, last_version: version });
      else Object.assign(e, { undone: false, applied_seq: s, redo_payload: null, last_version: version });
    }
  }
  return { entries: entries.sort((a, b) => a.seq - b.seq), proposals };
}
