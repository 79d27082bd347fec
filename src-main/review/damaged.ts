/**
 * Damaged review data, kept aside and reported, never silently skipped.
 *
 * A frame of a change log (or the snapshot) that Automerge cannot parse would
 * otherwise just not load, and the decisions it held would vanish without a word
 * (worse: Automerge's loadIncremental accepts garbage silently, and one bad chunk
 * in a batch dropped the good ones with it). The store checks each frame first;
 * one that does not parse is copied byte for byte to
 * `<root>/.folio/review/damaged/<source>@<offset>-<sha256 prefix>.bin`, with a
 * `.json` beside it saying where it came from and why, and the good frames load.
 *
 * The copy is the record that survives: compaction deletes the log, not the copy,
 * and every later process lists `damaged/` and reports it (review_list's
 * `damaged`, `folio review list` on stderr, the app's review panel) until the
 * person deletes the `.bin` (acknowledging it). The `.json` stays: while the
 * damaged log is still there (until the next compaction deletes it) every
 * process meets the same frame again, and the record says it was seen and
 * dismissed. The name is derived from where the bytes were and what they are,
 * so the processes that meet the same damaged frame write one copy, and an
 * existing copy is never overwritten.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../engine/write/atomic-write.ts';

/** Why bytes were kept aside: a whole frame that does not parse, or the bytes after the last whole frame of a log whose writer is gone. */
export type DamageKind = 'unparsable_frame' | 'torn_tail';

export interface DamagedFrame {
  /** where the bytes are kept (absolute) */
  file: string;
  /** the log or snapshot they were in, relative to the review directory (`changes/<pid>-<id>.log`, `doc`) */
  source: string;
  /** the byte offset in `source` where they started (a frame's header) */
  offset: number;
  bytes: number;
  kind: DamageKind;
  /** what Automerge said, or why a tail is not a frame */
  error: string;
  found_at: string;
}

export function damagedDirOf(reviewDir: string): string {
  return join(reviewDir, 'damaged');
}

/**
 * Keep `bytes` aside as damaged. `kept`: the copy is on disk (written now or
 * before); `acknowledged`: the person deleted the copy, nothing more to say;
 * `unwritable`: it could not be written (a read-only state directory), so the
 * caller reports it from memory.
 */
export function keepAside(
  reviewDir: string,
  what: Omit<DamagedFrame, 'file' | 'bytes' | 'found_at'>,
  bytes: Uint8Array,
): { record: DamagedFrame; state: 'kept' | 'acknowledged' | 'unwritable' } {
  const dir = damagedDirOf(reviewDir);
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const name = `${what.source.replace(/[^A-Za-z0-9._-]/g, '_')}@${what.offset}-${hash}`;
  const record: DamagedFrame = { file: join(dir, `${name}.bin`), ...what, bytes: bytes.length, found_at: new Date().toISOString() };
  const recordFile = join(dir, `${name}.json`);
  if (existsSync(recordFile)) return { record, state: existsSync(record.file) ? 'kept' : 'acknowledged' };
  try {
    mkdirSync(dir, { recursive: true });
    // The bytes first, the record last: a listed record always has its bytes.
    writeFileAtomic(record.file, bytes);
    writeFileAtomic(recordFile, Buffer.from(JSON.stringify(record, null, 2) + '\n'));
    return { record, state: 'kept' };
  } catch {
    return { record, state: 'unwritable' };
  }
}

/** Every damaged frame kept aside under `reviewDir`, oldest first; a record whose `.bin` was deleted is acknowledged and not listed. */
export function listDamaged(reviewDir: string): DamagedFrame[] {
  const dir = damagedDirOf(reviewDir);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const out: DamagedFrame[] = [];
  for (const n of names) {
    try {
      const r = JSON.parse(readFileSync(join(dir, n), 'utf8')) as DamagedFrame;
      const file = join(dir, n.replace(/\.json$/, '.bin'));
      if (existsSync(file)) out.push({ ...r, file });
    } catch {
      // a record being written, or one the person edited: the .bin is still there to find
    }
  }
  return out.sort((a, b) => a.found_at.localeCompare(b.found_at) || a.file.localeCompare(b.file));
}
