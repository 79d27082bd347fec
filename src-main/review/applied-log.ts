/**
 * A person's own edit from a process that exits right after (the CLI), or an
 * agent's auto edit of a file in a long-lived door (api/agent/write-tools.ts, folded
 * when the agent pauses: idle-fold.ts), journaled without loading the review
 * document. Loading Automerge and the workspace's document and committing one
 * entry cost 250-750 ms of CPU per `folio upsert`, growing with the journal
 * (docs/BENCHMARKS.md, "Whole process"); this costs an intent, the write and one
 * small file.
 *
 * Under the review lock, as a journaled write does (intents.ts):
 * 1. the intent, written by the engine's onBeforeWrite (intent-file.ts);
 * 2. the file write;
 * 3. instead of the commit: the intent with the version and range the write
 *    produced, as `<state>/review/applied/<order>-<entry>.json` (written whole,
 *    fsynced with its folder); then the intent is dropped.
 * The next process that loads the document folds the records in, oldest first,
 * before it settles intents (intents.ts, reconcileIntents): each commits exactly
 * what the normal path would have (commitIntent, which does nothing for an entry
 * already committed), and is removed. Readers see them settled in memory
 * (settled-view.ts); a watching app folds them when they appear (watch.ts).
 *
 * A crash before 3 leaves an intent, settled by the file's state as ever; after
 * 3, the record (and maybe the intent, committed once). Records are only written
 * while no intent is on disk: an intent means a writer died, and the full path
 * (journal.ts) settles it first. So every record is older than every intent, and
 * folding records before settling intents keeps the journal's order.
 */
import { randomBytes } from 'node:crypto';
import { failpoint } from '../engine/failpoint.ts';
import { accessSync, constants, mkdirSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Version } from '../engine/read/file-facts.ts';
import { writeFileAtomic } from '../engine/write/atomic-write.ts';
import { withFileLock } from '../engine/index/file-lock.ts';
import { fsyncDir } from '../engine/write/fsync-dir.ts';
import { upsert, type LineByteRange, type UpsertRequest, type UpsertResult } from '../engine/write/upsert.ts';
import { dropIntent, writeIntent, type IntentStore, type ReviewIntent } from './intent-file.ts';
import type { ReviewActor } from './types.ts';

/** An apply intent whose write is done: what its commit records. */
export type AppliedRecord = ReviewIntent & { action: 'apply'; version_after: Version; range_after: LineByteRange };

/** The review state paths of `root`, as store.ts lays them out, without loading the document. */
export function pathsOf(root: string): IntentStore & { root: string; docPath: string; changesDir: string; intentsDir: string; appliedDir: string } {
  const abs = resolve(root);
  const dir = join(abs, '.folio', 'review');
  return {
    root: abs,
    dir,
    blobsDir: join(dir, 'blobs'),
    docPath: join(dir, 'doc'),
    changesDir: join(dir, 'changes'),
    intentsDir: join(dir, 'intents'),
    appliedDir: appliedDirOf(dir),
    storedPathOf(path: string) {
      const rel = relative(abs, resolve(abs, path));
      return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : resolve(abs, path);
    },
  };
}

export function appliedDirOf(reviewDir: string): string {
  return join(reviewDir, 'applied');
}

/** The records of `reviewDir`, oldest first, with their file names (a half-written temp is not one: records are renamed into place). */
export function appliedRecordsOf(reviewDir: string): { name: string; record: AppliedRecord }[] {
  let names: string[];
  try {
    names = readdirSync(appliedDirOf(reviewDir))
      .filter((n) => /^\d{16}-.*\.json$/.test(n))
      .sort();
  } catch {
    return [];
  }
  const out: { name: string; record: AppliedRecord }[] = [];
  for (const name of names) {
    try {
      out.push({ name, record: JSON.parse(readFileSync(join(appliedDirOf(reviewDir), name), 'utf8')) as AppliedRecord });
    } catch {
      // folded meanwhile
    }
  }
  return out;
}

export function dropAppliedRecord(reviewDir: string, name: string): void {
  try {
    unlinkSync(join(appliedDirOf(reviewDir), name));
  } catch {
    // already gone
  }
}

function hasIntents(intentsDir: string): boolean {
  try {
    return readdirSync(intentsDir).some((n) => n.endsWith('.json'));
  } catch {
    return false;
  }
}

/** The next record's order: after every record there, and the clock (16 digits, so names sort). */
function nextOrder(appliedDir: string): string {
  const last = readdirSync(appliedDir)
    .filter((n) => /^\d{16}-/.test(n))
    .map((n) => Number(n.slice(0, 16)))
    .reduce((a, b) => Math.max(a, b), 0);
  return String(Math.max(Date.now() * 1000, last + 1)).padStart(16, '0');
}

/**
 * Apply a person's own edit and journal it as a record (above). Null when this
 * path cannot be taken and journal.ts must (an intent is waiting to be settled,
 * or the state is not writable: journal.ts says so in the notes).
 */
export async function applyOwnEditDeferred(
  root: string,
  actor: ReviewActor,
  path: string,
  req: Omit<UpsertRequest, 'dryRun' | 'captureBytes'>,
): Promise<{ entryId: string; upsert: UpsertResult; record: AppliedRecord } | null> {
  const at = pathsOf(root);
  try {
    for (const d of [at.changesDir, at.intentsDir, at.appliedDir]) mkdirSync(d, { recursive: true });
    accessSync(at.dir, constants.W_OK);
    accessSync(at.appliedDir, constants.W_OK);
  } catch {
    return null;
  }
  if (hasIntents(at.intentsDir)) return null;
  return withFileLock(at.docPath, async () => {
    if (hasIntents(at.intentsDir)) return null; // a writer died since: journal.ts settles it
    const entryId = `j-${randomBytes(6).toString('hex')}`; // as records.ts newId('j') (which loads the document codec)
    const what = { action: 'apply' as const, entry_id: entryId, proposal_id: null, actor, decided_by: actor, edited_content: null };
    let intent: ReviewIntent | null = null;
    const r = await upsert(resolve(at.root, path), { ...req, onBeforeWrite: (plan) => void (intent = writeIntent(at, what, plan)) });
    if (!intent) throw new Error(`journaled upsert of ${r.path} wrote no intent`);
    failpoint('review.before-commit');
    const record: AppliedRecord = { ...(intent as ReviewIntent & { action: 'apply' }), version_after: r.version_after!, range_after: r.range_after };
    writeFileAtomic(join(at.appliedDir, `${nextOrder(at.appliedDir)}-${what.entry_id}.json`), Buffer.from(JSON.stringify(record)));
    fsyncDir(at.appliedDir);
    failpoint('review.committed');
    dropIntent(at, intent);
    return { entryId: what.entry_id, upsert: r, record };
  });
}
