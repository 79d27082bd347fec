/**
 * The one seam between a value's bytes and the engine's steps: an async byte
 * source. A step that scans a whole value (markdown outline, token maps, JSON
 * documents, quote scans, search) awaits `readAt` chunk after chunk, the same way
 * for a local file (FileSource) and a remote value (RangedSource over a backend's
 * ranged reads, with read-ahead and a bounded block cache): one forward pass, no
 * step ever re-run because bytes were missing.
 *
 * As VS Code's TextModel talks to an ITextBuffer and never to its piece tree, a
 * step sees only `size`, `version` and `readAt`: where the bytes live (a file, a
 * PostgreSQL value, an object) stays behind this interface.
 */
import { closeSync, fstatSync, readSync } from 'node:fs';

export interface ByteSource {
  /** bytes in the value */
  readonly size: number;
  /** the version these bytes are (a file's etag, a backend's version token): equal versions mean equal bytes */
  readonly version: string;
  /**
   * Bytes [offset, offset + length), clamped to size: fewer only at the end. The
   * array is the caller's (a copy, never a view of a cache block that may be reused).
   */
  readAt(offset: number, length: number): Promise<Uint8Array>;
}

/** A source a step opened and must close (a local file's fd; a mounted remote value's is a no-op). */
export interface OpenByteSource extends ByteSource {
  close(): void;
}

/** A local file, read with pread on an fd the caller opened (index/identity.ts openSource). */
export class FileSource implements OpenByteSource {
  readonly size: number;
  readonly version: string;
  constructor(
    private readonly fd: number,
    /** what `close` does with the fd (a virtual one is closed by its owner) */
    private readonly closeFd: (fd: number) => void = closeSync,
  ) {
    const st = fstatSync(fd, { bigint: true });
    this.size = Number(st.size);
    this.version = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  }

  readAt(offset: number, length: number): Promise<Uint8Array> {
    try {
      return Promise.resolve(readFileRange(this.fd, offset, Math.max(0, Math.min(length, this.size - offset))));
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  close(): void {
    this.closeFd(this.fd);
  }
}

/** pread until `length` bytes or the end of the file (a file that shrank gives fewer). */
function readFileRange(fd: number, offset: number, length: number): Uint8Array {
  const buf = Buffer.allocUnsafe(Math.max(0, length));
  let done = 0;
  while (done < buf.length) {
    const n = readSync(fd, buf, done, buf.length - done, offset + done);
    if (n <= 0) break;
    done += n;
  }
  return done === buf.length ? buf : buf.subarray(0, done);
}

/** Copy bytes [pos, pos + len) of `src` into `buf` at `off`; returns how many (fewer only at the end). */
export async function readInto(src: ByteSource, buf: Uint8Array, off: number, len: number, pos: number): Promise<number> {
  const got = await src.readAt(pos, len);
  buf.set(got, off);
  return got.length;
}
