/**
 * Writes that never leave a torn file:
 * - rewriteRange streams prefix + content + suffix into a temp file in the same
 *   directory, fsyncs it, renames it over the original (atomic on POSIX), and
 *   fsyncs the directory. The file is never loaded whole. Mode and ownership are
 *   kept. On any failure the temp file is removed and the original is untouched;
 *   temp files left by a crash are removed by the next write (under the lock).
 * - appendBytes writes with O_APPEND and fsyncs: no rewrite; an append that spans
 *   pages is all-or-nothing through an intent file (append-intent.ts).
 *
 * The copy goes through the WASM kernels' input window, so the new file's line
 * index (newlines per 64 KiB block, CR/CRLF, UTF-8 or UTF-16 validity) is computed
 * in the same pass that writes it: no second read. The new file's text layout is
 * decided from its first chunk, exactly as a fresh build decides it from its head,
 * so the index equals a rebuild even when an edit changes a BOM-less UTF-16 head. Blocks cannot simply be shifted after an
 * edit: the index's grid is fixed at 64 KiB (that is what keeps it at 4 bytes per
 * block), and a shift by any other amount changes every later block's contents.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { BlockTable, blockCount } from '../index/block-table.ts';
import { appendMayTear, dropAppendIntent, writeAppendIntent } from './append-intent.ts';
import { breakerPathOf, lockPathOf, ownerDead } from '../index/file-lock.ts';
import { fromFsError } from '../errors.ts';
import { failpoint, failpointArmed } from '../failpoint.ts';
import { edgeHashes, statRegularFile, type FileIdentity } from '../index/identity.ts';
import { BLOCK_SIZE, CHUNK_SIZE, textKernels, type TextKernels, type Utf8CountingStream, type Utf8Stream } from '../kernels/kernels.mjs';
import { LineIndex } from '../index/line-index.ts';
import { localKernels } from '../kernels/local-kernels.ts';
import { layoutOf, LAYOUT_SAMPLE_BYTES } from '../index/layout.ts';
import { fsyncDir } from './fsync-dir.ts';
import { adoptPin, type PinnedFile } from '../index/pinned-file.ts';

const TMP_MARK = '.folio-tmp-';

function tempPrefix(path: string): string {
  return join(dirname(path), `.${basename(path)}${TMP_MARK}`);
}

/** A private temp name beside `path` that removeStaleTemps clears after a crash (file-ops.ts restores through one). */
export function tempPathFor(path: string): string {
  return `${tempPrefix(path)}${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
}

function pidDead(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Remove temp files a crashed writer left for `path`: its write temps, the private
 * files a dead process made while taking the lock, and a dead breaker's file. Call
 * under the lock.
 */
export function removeStaleTemps(path: string): string[] {
  const dir = dirname(path);
  const prefix = `.${basename(path)}${TMP_MARK}`;
  const lockLitter = new RegExp(`^\\.${basename(path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.folio-lock(?:\\.break)?\\.(\\d+)-\\w+$`);
  const breaker = breakerPathOf(lockPathOf(path));
  const removed: string[] = [];
  // A breaker that died mid-break: nobody else may be breaking while we hold the lock.
  if (ownerDead(breaker)) {
    try {
      unlinkSync(breaker);
      removed.push(basename(breaker));
    } catch {
      // gone already
    }
  }
  for (const name of readdirSync(dir)) {
    const litter = lockLitter.exec(name);
    if (name.startsWith(prefix) || (litter && pidDead(Number(litter[1])))) {
      try {
        unlinkSync(join(dir, name));
        removed.push(name);
      } catch {
        // gone already
      }
    }
  }
  return removed;
}

type Source = { fd: number; from: number; to: number } | { buf: Uint8Array; from: number; to: number };

/**
 * Replace bytes [start, end) of the file `old` with `content`. `path` is the
 * file's name in its (opened) directory: the temp file is made and renamed there
 * (write-target.ts); `from` is where its current bytes are read (its pin). Returns
 * the new file's identity and its complete line index, read through `pin`: the new
 * file, pinned (release it when done; null where there are no pins).
 */
export function rewriteRange(
  path: string,
  from: string,
  old: FileIdentity,
  start: number,
  end: number,
  content: Uint8Array,
): { identity: FileIdentity; index: LineIndex; pin: PinnedFile | null } {
  const tmp = `${tempPrefix(path)}${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  const src = openSync(from, 'r');
  let out: number | undefined;
  try {
    out = openSync(tmp, 'wx', old.mode & 0o7777);
    failpoint('write.temp-created');
    const sources: Source[] = [
      { fd: src, from: 0, to: start },
      { buf: content, from: 0, to: content.length },
      { fd: src, from: end, to: old.size },
    ];
    const newSize = start + content.length + (old.size - end);
    const k = localKernels();
    const input = k.input;
    const blocks = blockCount(newSize);
    const counts = new Uint32Array(blocks);
    let tk: TextKernels | undefined;
    let validator: Utf8Stream | undefined;
    let utf8: Utf8CountingStream | undefined; // the same validator, in the UTF-8 layout
    let newlines = 0;
    let cr = 0;
    let crlf = 0;
    let prevIsCR = false;
    let firstInvalid = -1;
    let pos = 0;
    let si = 0;
    const firstBytes: number[] = [];
    let lastUnit = -1;
    while (pos < newSize) {
      // Fill a whole chunk (grid-aligned, as the per-block counts need) from the sources.
      let got = 0;
      while (got < CHUNK_SIZE && si < sources.length) {
        const s = sources[si]!;
        const n = Math.min(CHUNK_SIZE - got, s.to - s.from);
        if (n <= 0) {
          si++;
          continue;
        }
        if ('buf' in s) {
          input.set(s.buf.subarray(s.from, s.from + n), got);
        } else {
          const r = readSync(s.fd, input, got, n, s.from);
          if (r !== n) throw new Error(`short read of ${path}: the file changed during the write`);
        }
        s.from += n;
        got += n;
      }
      if (!tk) {
        tk = textKernels(k, layoutOf(input.subarray(0, Math.min(got, LAYOUT_SAMPLE_BYTES))));
        validator = tk.layout === 'utf-8' ? (utf8 = k.utf8Stream()) : tk.validator();
      }
      const lines = tk.scanLines(got, counts, pos / BLOCK_SIZE, prevIsCR);
      newlines += lines.newlines;
      cr += lines.cr;
      crlf += lines.crlf;
      const lastAt = got - tk.unit - (got % tk.unit);
      prevIsCR = lastAt >= 0 && tk.unitAt(input, lastAt) === 13;
      if (firstBytes.length < 3) for (let i = 0; i < got && firstBytes.length < 3; i++) firstBytes.push(input[i]!);
      lastUnit = got % tk.unit === 0 && lastAt >= 0 ? tk.unitAt(input, lastAt) : -1;
      if (firstInvalid < 0 || utf8) firstInvalid = validator!.feed(got); // UTF-8 counts go on past errors
      let written = 0;
      while (written < got) written += writeSync(out, input, written, got - written);
      pos += got;
      if (pos < newSize) failpoint('write.temp-partial');
    }
    if ((firstInvalid < 0 || utf8) && validator) firstInvalid = validator.finish();
    fchmodSync(out, old.mode & 0o7777);
    try {
      fchownSync(out, old.uid, old.gid);
    } catch {
      // Not permitted for a non-root writer of someone else's file: keeps our ownership.
    }
    fsyncSync(out);
    failpoint('write.temp-synced');
    renameSync(tmp, path);
    failpoint('write.renamed');
    fsyncDir(dirname(path));
    failpoint('write.done');
    // The new file, by its own fd: whatever is renamed over its name now, the index describes what was written.
    const pin = adoptPin(out);
    out = undefined;
    const identity = statRegularFile(pin?.path ?? path);
    const { head, tail } = edgeHashes(identity.path, identity.size);
    const index = new LineIndex({
      identity,
      head,
      tail,
      table: BlockTable.fromCounts(counts, blocks),
      indexedBytes: identity.size,
      newlines,
      facts: {
        cr,
        crlf,
        firstInvalid: firstInvalid >= 0 ? firstInvalid : null,
        pendingUtf8: 0,
        utf8: utf8 ? utf8.counts() : tk ? null : { invalid: 0, multibyte: 0 },
      },
      lastUnit,
      firstBytes,
      layout: tk?.layout ?? 'utf-8',
    });
    return { identity, index, pin };
  } catch (err) {
    if (out !== undefined) closeSync(out);
    try {
      unlinkSync(tmp);
    } catch {
      // never created, or already renamed
    }
    throw fromFsError(err, path);
  } finally {
    closeSync(src);
  }
}

/**
 * Append `content` with O_APPEND and fsync it, all or nothing (append-intent.ts):
 * an append that spans pages records the size first, so a kill mid-append is
 * truncated away by the next writer. `path` is the file's name in its (opened)
 * directory, where the intent goes; `file` is what is opened for appending (its
 * pin, so the bytes go to the file that was checked). Call under the file lock.
 */
export function appendBytes(path: string, file: string, content: Uint8Array): void {
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_APPEND);
  } catch (err) {
    throw fromFsError(err, path);
  }
  let intent = false;
  try {
    const sizeBefore = fstatSync(fd).size;
    if (appendMayTear(sizeBefore, content.length)) {
      writeAppendIntent(path, sizeBefore, content);
      intent = true;
      failpoint('append.intent-written');
    }
    try {
      let written = 0;
      // A torn append, on purpose: the kernel can stop between pages (append-intent.ts).
      if (failpointArmed('append.half-copied')) written = writeSync(fd, content, 0, content.length >> 1);
      failpoint('append.half-copied');
      while (written < content.length) written += writeSync(fd, content, written, content.length - written);
      fsyncSync(fd);
      failpoint('append.copied');
    } catch (err) {
      // A failed append (ENOSPC, EIO) is taken back now, not left for the next writer.
      if (intent) ftruncateSync(fd, sizeBefore);
      throw fromFsError(err, path);
    }
    if (intent) dropAppendIntent(path);
  } finally {
    closeSync(fd);
  }
}

/** Write a small file whole and atomically: temp file, fsync, rename (state files, blobs). */
export function writeFileAtomic(path: string, bytes: Uint8Array, mode = 0o644): void {
  const tmp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  const fd = openSync(tmp, 'w', mode);
  try {
    for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}
