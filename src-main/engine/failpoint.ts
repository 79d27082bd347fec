/**
 * Fault points for the crash tests (etcd's gofail, SQLite's test hooks): a call
 * `failpoint('write.renamed')` at a phase of a write path does nothing, unless
 * FOLIO_FAILPOINT names that point when the process starts. Then the process
 * SIGKILLs itself right there, a real kill -9 at that exact moment, after saying
 * `failpoint NAME` on stderr (a pipe is written synchronously, so the parent sees
 * it). `NAME@N` kills at the Nth time the point is reached (1-based; default 1).
 *
 * Why: the crash tests used to kill children at random moments and hope to land in
 * each phase; a short phase (the temp file's window, 1 kill of 49) was hit by
 * luck. With a point per phase each is killed on purpose, with one child, and a
 * test asserts that each point it owns was reached (FAILPOINTS lists them all;
 * test/engine/failpoints.test.ts fails on a point no crash test kills at).
 *
 * Cost when unset: one compare with a constant undefined. The variable is read
 * once, at load: a failpoint cannot be armed later from inside the process.
 */
import { writeSync } from 'node:fs';

/** Every fault point, by write path and phase (in the order a write reaches them). */
export const FAILPOINTS = [
  // the file lock (index/file-lock.ts)
  'lock.private-written', // the private file is written, not yet linked to the lock name
  'lock.taken', // the lock is ours, nothing written yet
  'lock.breaker-taken', // breaking a dead writer's lock: the breaker file is ours, the old lock still there
  // a rewrite (write/atomic-write.ts rewriteRange)
  'write.temp-created', // the temp file exists, empty
  'write.temp-partial', // the temp file holds the first chunk of the new bytes
  'write.temp-synced', // the temp file is whole and fsynced, not yet renamed
  'write.renamed', // renamed over the file, the directory not yet fsynced
  'write.done', // the write is done, the lock not yet released
  // an append (write/atomic-write.ts appendBytes)
  'append.intent-written', // the intent (size before) is durable, nothing appended
  'append.half-copied', // half of the bytes appended (a torn append)
  'append.copied', // all bytes appended and fsynced, the intent still there
  // the review journal (review/intents.ts, journal-commit.ts)
  'review.intent-written', // the intent is durable, the file not yet written
  'review.before-commit', // the file is written, the journal not yet committed
  'review.committed', // the journal is committed, the intent not yet dropped
  // a whole-file operation (write/file-ops.ts), its intent written ahead (review/file-op-journal.ts)
  'fileop.unlinked', // a delete: the name unlinked and its folder fsynced, the journal not yet committed
  'fileop.linked', // a move: the new name linked and its folder fsynced, the old name still there
  'fileop.moved', // a move: the old name unlinked too, the journal not yet committed
  'fileop.restore-linked', // a restore (undo of a delete): the name linked to the whole temp file, the temp name still there
  'fileop.restored', // a restore: the temp name unlinked and the folder fsynced, the journal not yet committed
  // a decompressed copy of a compressed log (read/decompressed.ts)
  'decompress.temp-partial', // the temp file holds the first decompressed bytes
  'decompress.temp-synced', // the temp file is whole and fsynced, not yet renamed to the entry
] as const;

export type FailpointName = (typeof FAILPOINTS)[number];

/** The armed point and the hit that kills, from FOLIO_FAILPOINT at load. */
const ARMED = parse(process.env.FOLIO_FAILPOINT);
let hits = 0;

function parse(spec: string | undefined): { name: string; nth: number } | undefined {
  if (!spec) return undefined;
  const at = spec.lastIndexOf('@');
  const name = at < 0 ? spec : spec.slice(0, at);
  const nth = at < 0 ? 1 : Number(spec.slice(at + 1));
  if (!(FAILPOINTS as readonly string[]).includes(name) || !Number.isInteger(nth) || nth < 1) {
    throw new Error(`FOLIO_FAILPOINT=${spec}: not one of ${FAILPOINTS.join(', ')} (optionally @N, N >= 1)`);
  }
  return { name, nth };
}

/** True if FOLIO_FAILPOINT names `name` (a path that must split a step to reach its point asks first). */
export function failpointArmed(name: FailpointName): boolean {
  return ARMED !== undefined && ARMED.name === name;
}

/** SIGKILL this process here if FOLIO_FAILPOINT names this point (and this is its Nth hit). */
export function failpoint(name: FailpointName): void {
  if (ARMED === undefined || ARMED.name !== name || ++hits < ARMED.nth) return;
  writeSync(2, `failpoint ${name}\n`);
  process.kill(process.pid, 'SIGKILL');
}
