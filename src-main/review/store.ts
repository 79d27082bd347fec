/**
 * The review store of one workspace: one Automerge document holding every
 * proposal and the journal of applied edits, persisted under
 * `<root>/.folio/review/`:
 *   doc                 snapshot (Automerge save), replaced atomically on compaction
 *   changes/<id>.log    per-process change logs (see change-log.ts)
 *   blobs/<sha256>      payloads over 1 MiB (see blobs.ts)
 *   intents/<id>.json   write-ahead intents of journaled writes in flight (see intents.ts)
 *   damaged/            frames that did not parse, kept aside and reported (see damaged.ts)
 *   .doc.folio-lock     the workspace review lock (engine withFileLock on `doc`)
 *
 * Loading is snapshot + every log; `refresh()` reads only what was appended since
 * (offsets per log). Every mutation runs under the lock on a freshly refreshed
 * document (`locked`), so state checks ("is it still pending?") see every other
 * process's decisions, and two processes never both apply one proposal. The CRDT
 * merge makes the union of logs one document whatever order they are read in.
 */
import type { Doc } from '@automerge/automerge';
import { automerge } from './automerge.ts';
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdirSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { isRemoteLocator } from '../engine/backend/locator.ts';
import { writeFileAtomic } from '../engine/write/atomic-write.ts';
import { pidAlive, withFileLock } from '../engine/index/file-lock.ts';
import { appendFrame, readFrames } from './change-log.ts';
import { chunkProblemOf } from './chunk-check.ts';
import { keepAside, listDamaged, type DamagedFrame } from './damaged.ts';
import { reconcileIntents } from './intents.ts';
import type { ReviewDocShape } from './types.ts';

/** Compact logs into the snapshot once they hold this many bytes (env FOLIO_REVIEW_COMPACT_BYTES). */
const COMPACT_BYTES = Number(process.env.FOLIO_REVIEW_COMPACT_BYTES) || 8 * 1024 * 1024;
/** ... or once there are this many logs (every process that ever wrote leaves one). */
const COMPACT_LOGS = 64;

export type ChangeSource = 'local' | 'disk';
export type ChangeListener = (e: { source: ChangeSource }) => void;

/** `<root>/.folio`: the workspace state directory. */
export function stateDirOf(root: string): string {
  return join(resolve(root), '.folio');
}

function sameHeads(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((h, i) => h === b[i]);
}

/** A frame to load and where it was (for the record if it is damaged). */
interface SourcedFrame {
  bytes: Buffer;
  source: string;
  offset: number;
}

/** The pid in a log's name (`<pid>-<random>.log`, ownLogName). */
function writerPidOf(logName: string): number {
  return Number(/^(\d+)-/.exec(logName)?.[1]);
}

/** pg://, az://, s3:// (engine/backend/locator.ts): not paths, never resolved against the root. */

export class ReviewStore {
  readonly root: string;
  readonly dir: string;
  readonly docPath: string;
  readonly changesDir: string;
  readonly blobsDir: string;
  private doc: Doc<ReviewDocShape> = automerge().init<ReviewDocShape>();
  private readonly offsets = new Map<string, number>();
  private snapshotKey = '';
  private ownLog: string | null = null;
  private ownLogSize = 0;
  private readonly events = new EventEmitter();
  /** damaged frames that could not be kept aside (a read-only state directory): reported from memory */
  private readonly unsavedDamage = new Map<string, DamagedFrame>();

  constructor(root: string) {
    this.root = resolve(root);
    this.dir = join(stateDirOf(this.root), 'review');
    this.docPath = join(this.dir, 'doc');
    this.changesDir = join(this.dir, 'changes');
    this.blobsDir = join(this.dir, 'blobs');
    this.events.setMaxListeners(0);
    this.refresh();
  }

  /** The current document (read-only view; refresh first for other processes' changes). */
  get state(): Doc<ReviewDocShape> {
    return this.doc;
  }

  /**
   * A path as the document stores it: relative to the root when inside it, else
   * absolute. Relative inputs are relative to the root, as the views print them.
   */
  storedPathOf(path: string): string {
    if (isRemoteLocator(path)) return path; // a remote locator is stored as it is
    const abs = resolve(this.root, path);
    const rel = relative(this.root, abs);
    return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : abs;
  }

  absPathOf(stored: string): string {
    if (isRemoteLocator(stored)) return stored;
    return resolve(this.root, stored);
  }

  /** Load what was saved since the last refresh (snapshot and logs); true if the document changed. */
  refresh(): boolean {
    const before = automerge().getHeads(this.doc);
    const frames: SourcedFrame[] = [];
    let names: string[] = [];
    try {
      names = readdirSync(this.changesDir).filter((n) => n.endsWith('.log'));
    } catch {
      // no state yet
    }
    for (const name of names) {
      const source = `changes/${name}`;
      const got = readFrames(join(this.changesDir, name), this.offsets.get(name) ?? 0);
      for (const f of got.frames) frames.push({ bytes: f.bytes, source, offset: f.offset });
      // Bytes after the last whole frame are a frame being appended while the
      // writer lives; once it is gone nothing will complete them. They stay
      // unread (the offset does not pass them): a writer this host cannot see
      // (another machine sharing the folder) may yet complete them, and then
      // they load like any frame.
      if (got.tail.length > 0 && name !== this.ownLog && !pidAlive(writerPidOf(name))) {
        this.noteDamage(
          keepAside(
            this.dir,
            { source, offset: got.offset, kind: 'torn_tail', error: `${got.tail.length} bytes after the last whole frame, and the log's writer is gone` },
            got.tail,
          ),
        );
      }
      this.offsets.set(name, got.offset);
    }
    const live = new Set(names);
    for (const name of [...this.offsets.keys()]) if (!live.has(name)) this.offsets.delete(name);
    // The snapshot after the logs: a compaction between the two has put into the
    // new snapshot whatever the deleted logs held.
    const snapshot = this.changedSnapshot();
    if (snapshot) frames.push({ bytes: snapshot, source: 'doc', offset: 0 });
    if (frames.length) this.load(frames);
    const changed = !sameHeads(before, automerge().getHeads(this.doc));
    if (changed) this.events.emit('change', { source: 'disk' });
    return changed;
  }

  /** The damaged frames kept aside (damaged.ts) and not yet removed by the person, oldest first. */
  damaged(): DamagedFrame[] {
    const onDisk = listDamaged(this.dir);
    const listed = new Set(onDisk.map((d) => d.file));
    return [...onDisk, ...[...this.unsavedDamage.values()].filter((d) => !listed.has(d.file))];
  }

  private noteDamage(kept: ReturnType<typeof keepAside>): void {
    if (kept.state === 'unwritable') this.unsavedDamage.set(kept.record.file, kept.record);
  }

  private changedSnapshot(): Buffer | null {
    let key: string;
    try {
      const st = statSync(this.docPath, { bigint: true });
      key = `${st.ino}:${st.size}:${st.mtimeNs}`;
    } catch {
      return null;
    }
    if (key === this.snapshotKey) return null;
    try {
      const bytes = readFileSync(this.docPath);
      this.snapshotKey = key;
      return bytes;
    } catch {
      return null; // replaced between stat and read: the next refresh reads the new one
    }
  }

  /**
   * Load the frames that are whole; keep the others aside (damaged.ts). Each is
   * checked on its own first (chunk-check.ts): loadIncremental itself accepts a
   * damaged chunk without a word, and with it drops the good chunks loaded
   * together with it.
   */
  private load(frames: SourcedFrame[]): void {
    const good: Buffer[] = [];
    // A snapshot read into an empty document is parsed once: the check is the load.
    let base = automerge().getHeads(this.doc).length === 0 ? null : this.doc;
    const parse = (bytes: Uint8Array) => void automerge().load(bytes, { allowMissingChanges: true });
    for (const f of frames) {
      let problem: string | null = null;
      if (f.source === 'doc' && base === null) {
        try {
          base = automerge().load<ReviewDocShape>(f.bytes, { allowMissingChanges: true });
        } catch (err) {
          problem = (err as Error).message;
        }
      } else {
        problem = chunkProblemOf(f.bytes, parse);
        if (problem === null) good.push(f.bytes);
      }
      if (problem !== null) this.noteDamage(keepAside(this.dir, { source: f.source, offset: f.offset, kind: 'unparsable_frame', error: problem }, f.bytes));
    }
    const from = base ?? this.doc;
    this.doc = good.length ? automerge().loadIncremental(from, Buffer.concat(good)) : from;
  }

  /**
   * Run `fn` holding the workspace review lock, on a document refreshed from disk
   * and reconciled with the files: journal intents a crash left are settled first
   * (intents.ts), so no mutation starts from a state the files contradict.
   */
  async locked<T>(fn: () => Promise<T> | T): Promise<T> {
    mkdirSync(this.changesDir, { recursive: true });
    return withFileLock(this.docPath, async () => {
      this.refresh();
      await reconcileIntents(this);
      const out = await fn();
      this.compactIfDue();
      return out;
    });
  }

  /** Change the document and append the change to this process's log. Only inside `locked`. */
  commit(change: (d: ReviewDocShape) => void): void {
    const heads = automerge().getHeads(this.doc);
    this.doc = automerge().change(this.doc, (d) => {
      d.proposals ??= {};
      d.journal ??= {};
      change(d);
    });
    const chunk = automerge().saveSince(this.doc, heads);
    if (chunk.length === 0) return;
    const name = this.ownLogName();
    this.ownLogSize = appendFrame(join(this.changesDir, name), chunk);
    this.offsets.set(name, this.ownLogSize);
    this.events.emit('change', { source: 'local' });
  }

  /**
   * This process's log, or a new one if it was compacted away or does not end
   * where our last append did (a failed write must not misalign later frames).
   */
  private ownLogName(): string {
    if (this.ownLog) {
      let size = -1;
      try {
        size = statSync(join(this.changesDir, this.ownLog)).size;
      } catch {
        // compacted away
      }
      if (size === this.ownLogSize) return this.ownLog;
    }
    this.ownLog = `${process.pid}-${randomBytes(6).toString('hex')}.log`;
    this.ownLogSize = 0;
    return this.ownLog;
  }

  private compactIfDue(): void {
    let bytes = 0;
    for (const v of this.offsets.values()) bytes += v;
    if (bytes >= COMPACT_BYTES || this.offsets.size >= COMPACT_LOGS) this.compactLocked();
  }

  /** Fold every log into the snapshot. Only under the lock (writes need it too). */
  compactLocked(): void {
    const bytes = automerge().save(this.doc);
    mkdirSync(this.dir, { recursive: true });
    writeFileAtomic(this.docPath, bytes);
    const st = statSync(this.docPath, { bigint: true });
    this.snapshotKey = `${st.ino}:${st.size}:${st.mtimeNs}`;
    for (const name of [...this.offsets.keys()]) {
      try {
        unlinkSync(join(this.changesDir, name));
      } catch {
        // already gone
      }
    }
    this.offsets.clear();
    this.ownLog = null;
    this.ownLogSize = 0;
  }

  /** Compact now, under the lock. */
  async compact(): Promise<void> {
    await this.locked(() => this.compactLocked());
  }

  /** Listen to changes of the document, local or loaded from disk; returns the unsubscribe. */
  onChange(listener: ChangeListener): () => void {
    this.events.on('change', listener);
    return () => this.events.off('change', listener);
  }
}

const stores = new Map<string, ReviewStore>();

/** The store of the workspace at `root`, shared within this process. */
export function storeOf(root: string): ReviewStore {
  const abs = resolve(root);
  let s = stores.get(abs);
  if (!s) {
    s = new ReviewStore(abs);
    stores.set(abs, s);
  }
  return s;
}

/** Forget the in-process stores (as a restart would): the next storeOf loads from disk. */
export function forgetStores(): void {
  stores.clear();
}
