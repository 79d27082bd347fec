/**
 * Several files in one call, all or nothing: every file's upsert is checked under
 * its own lock before any file is written.
 *
 * The upserts are started one after the other in path order; each runs up to the
 * point where its preconditions passed and it is about to write (the engine's
 * onBeforeWrite), holding its file's lock, and waits there. When the last one gets
 * there, all write. If one fails before that point (a stale precondition, a quote
 * not found, a missing file), the ones waiting are told to stop, and nothing is
 * written. Locks are always taken in path order, so two groups over the same files
 * never wait on each other in a cycle.
 *
 * What this does not make atomic is a crash (or a failing disk) between the first
 * file's write and the last one's: each file is still old or new (each write is
 * atomic), and the caller's onBeforeWrite (the review journal's intent) records,
 * per file, which it is.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { FolioError, isFolioError } from '../errors.ts';
import { upsert, type UpsertRequest, type UpsertResult, type WritePlan } from './upsert.ts';

export interface GroupItem {
  path: string;
  request: UpsertRequest;
}

export interface GroupOptions {
  /** called for each file, in path order, once every file passed its checks, right before that file is written */
  onBeforeWrite?: (item: number, plan: WritePlan) => void | Promise<void>;
}

/** What the answer says of a failure in file `item`: the error, naming the file by its index. */
function failureOf(err: unknown, item: number, path: string): unknown {
  if (!isFolioError(err)) return err;
  return new FolioError(err.code, `files[${item}] (${path}): ${err.message}`, { ...err.details, file: item });
}

/** The real path of `path`, or of its folder for a file to be created (the lock order and the duplicate check use it). */
function identityOf(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync.native(abs);
  } catch {
    return abs;
  }
}

/**
 * Upsert every item, all or none (see above). The answers are in the items' order.
 * A dry run checks and previews each file on its own.
 */
export async function upsertGroup(items: GroupItem[], opts: GroupOptions = {}): Promise<UpsertResult[]> {
  if (items.length === 0) throw new FolioError('invalid_input', 'no files to edit', {});
  const ids = items.map((it) => identityOf(it.path));
  for (let i = 0; i < ids.length; i++) {
    const j = ids.indexOf(ids[i]!);
    if (j !== i) throw new FolioError('invalid_input', `files[${j}] and files[${i}] are the same file: give all its edits together`, { files: [j, i] });
  }
  if (items.some((it) => it.request.dryRun)) {
    if (!items.every((it) => it.request.dryRun)) throw new FolioError('invalid_input', 'dry_run applies to every file of the call or none', {});
    return Promise.all(items.map((it, i) => upsert(it.path, it.request).catch((err: unknown) => Promise.reject(failureOf(err, i, it.path)))));
  }

  const order = items.map((_, i) => i).sort((a, b) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0));
  let release!: () => void;
  let abort!: (err: unknown) => void;
  const go = new Promise<void>((res, rej) => {
    release = res;
    abort = rej;
  });
  go.catch(() => undefined); // a waiter that never got to wait must not leave it unhandled
  const STOP = new FolioError('cancelled', 'another file of the call failed its checks; nothing was written', {});
  const running: Promise<UpsertResult>[] = [];
  let failure: unknown = null;

  for (const i of order) {
    const item = items[i]!;
    let ready!: () => void;
    const reached = new Promise<void>((res) => (ready = res));
    const run = upsert(item.path, {
      ...item.request,
      onBeforeWrite: async (plan) => {
        ready();
        await go; // every file checked, or one failed: then this throws and this file is not written
        await opts.onBeforeWrite?.(i, plan);
        await item.request.onBeforeWrite?.(plan);
      },
    });
    running[i] = run;
    // Wait until this file holds its lock and passed its checks (or failed) before locking the next one.
    const outcome = await Promise.race([
      reached.then(() => 'ready' as const),
      run.then(
        () => 'done' as const,
        (err: unknown) => ({ err }),
      ),
    ]);
    if (outcome === 'done') continue; // an upsert that writes nothing never reaches onBeforeWrite
    if (typeof outcome === 'object') {
      failure = failureOf(outcome.err, i, item.path);
      break;
    }
  }
  if (failure !== null) abort(STOP);
  else release();

  const settled = await Promise.allSettled(order.map((i) => running[i]).filter((r) => r !== undefined));
  if (failure !== null) throw failure;
  const broken = settled.find((s) => s.status === 'rejected');
  if (broken) {
    // A write itself failed (disk full, the file swapped) after the checks: the files written are listed.
    const written = items.map((it, i) => ({ i, path: it.path })).filter(({ i }) => settled[order.indexOf(i)]?.status === 'fulfilled');
    const err = (broken as PromiseRejectedResult).reason;
    if (isFolioError(err)) {
      throw new FolioError(err.code, `${err.message}; files written before it failed: ${written.map((w) => `files[${w.i}]`).join(', ') || 'none'}`, {
        ...err.details,
        written: written.map((w) => w.i),
      });
    }
    throw err;
  }
  return items.map((_, i) => (settled[order.indexOf(i)] as PromiseFulfilledResult<UpsertResult>).value);
}
