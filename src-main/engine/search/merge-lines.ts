/**
 * The pieces of a merge of logs (merge.ts) that read one file: a forward line
 * reader over a file descriptor that holds one chunk at a time (so a multi-GB log
 * costs a chunk of memory, 1 MiB at most, a longer line what it needs up to MAX_LINE_BYTES),
 * and the cursor token that says where each file of a merged view goes on.
 */
import { readSync } from 'node:fs';
import { FolioError } from '../errors.ts';

/** The first read of a file (refill() doubles the buffer it starts with). */
const FIRST_CHUNK_BYTES = 64 * 1024;
const CHUNK_BYTES = 1 << 20;
/** A line longer than this is refused (too_large) rather than held whole. */
export const MAX_LINE_BYTES = 64 << 20;

/**
 * Reads the lines of [startByte, size) in order. After next() returns true, the
 * line is buf[lineStart, lineEnd) with its terminator (none at the end of a file
 * without a final newline) and buf[lineStart, contentEnd) without it (LF or CRLF);
 * lineByte and lineNo are its file offset and 1-based number. The bytes of a line
 * handed out stay as they are (refill() reads into a new buffer).
 */
export class LineReader {
  buf: Buffer = Buffer.allocUnsafe(FIRST_CHUNK_BYTES / 2);
  lineStart = 0;
  lineEnd = 0;
  contentEnd = 0;
  lineByte = 0;
  lineNo = 0;
  /** bytes read from the file so far */
  bytesRead = 0;
  /** buf[off, len) is read but not yet handed out; it starts at file offset `byte` */
  private off = 0;
  private len = 0;
  /** file offset of buf[len] */
  private filePos: number;
  /** file offset and 1-based number of the next line */
  byte: number;
  nextLineNo: number;

  constructor(
    private readonly fd: number,
    private readonly size: number,
    private readonly path: string,
    startByte: number,
    startLineNo: number,
  ) {
    this.filePos = startByte;
    this.byte = startByte;
    this.nextLineNo = startLineNo;
  }

  next(): boolean {
    if (this.byte >= this.size) return false;
    let nl = this.off < this.len ? this.buf.indexOf(10, this.off) : -1;
    while (nl < 0 || nl >= this.len) {
      if (this.filePos >= this.size) {
        nl = -1;
        break;
      }
      const searched = this.len - this.off;
      this.refill();
      nl = this.buf.indexOf(10, this.off + searched);
    }
    const end = nl < 0 ? this.len : nl + 1;
    this.lineStart = this.off;
    this.lineEnd = end;
    let content = nl < 0 ? end : nl;
    if (content > this.off && this.buf[content - 1] === 13) content--;
    this.contentEnd = content;
    this.lineByte = this.byte;
    this.lineNo = this.nextLineNo++;
    this.byte += end - this.off;
    this.off = end;
    return true;
  }

  /**
   * Read on into a new buffer that starts with the unread tail: the old one is never
   * written again, so the views handed out stay valid (a caller may gather several
   * lines in one copy). Chunks grow from FIRST_CHUNK_BYTES to CHUNK_BYTES, so a
   * small window reads little; a line longer than the buffer doubles it.
   */
  private refill(): void {
    const tail = this.len - this.off;
    let size = Math.min(CHUNK_BYTES, this.buf.length * 2);
    if (tail >= size) {
      if (this.buf.length >= MAX_LINE_BYTES) {
        throw new FolioError('too_large', `a line of ${this.path} at byte ${this.byte} is longer than ${MAX_LINE_BYTES} bytes`, {
          path: this.path,
          byte_offset: this.byte,
          max_bytes: MAX_LINE_BYTES,
        });
      }
      size = this.buf.length * 2;
    }
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, this.off, this.len);
    this.buf = next;
    this.off = 0;
    this.len = tail;
    const want = Math.min(next.length - tail, this.size - this.filePos);
    const n = readSync(this.fd, next, tail, want, this.filePos);
    if (n <= 0) {
      // The file shrank under us: end here, as if it were shorter.
      this.filePos = this.size;
      return;
    }
    this.len += n;
    this.filePos += n;
    this.bytesRead += n;
  }
}

/** Where one file of a merge goes on: its next line's byte and number, and the time an unstamped line there takes (NaN: none yet). */
export interface FilePosition {
  byte: number;
  lineNo: number;
  carryMs: number;
  /** which file the bytes before `byte` were (merge.ts fingerprintOf): a cursor into a file rotated or rewritten since is refused */
  mark?: string;
}

/** null: the file has nothing more to give (its end, or past `to`). */
export type MergePosition = (FilePosition | null)[];

const CURSOR_VERSION = 1;

/** An opaque token for a merge position (base64url of a small JSON array). */
export function encodeCursor(position: MergePosition): string {
  const files = position.map((p) => (p ? [p.byte, p.lineNo, Number.isNaN(p.carryMs) ? null : p.carryMs, ...(p.mark ? [p.mark] : [])] : null));
  return Buffer.from(JSON.stringify([CURSOR_VERSION, files])).toString('base64url');
}

/** The position a cursor token names, for `fileCount` files; invalid_input when it is no cursor of a merge of that many files. */
export function decodeCursor(token: string, fileCount: number): MergePosition {
  const bad = (why: string) => new FolioError('invalid_input', `not a merge cursor: ${why}`, { field: 'cursor', reason: why });
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw bad('unreadable token');
  }
  if (!Array.isArray(parsed) || parsed[0] !== CURSOR_VERSION || !Array.isArray(parsed[1])) throw bad('unreadable token');
  const files = parsed[1] as unknown[];
  if (files.length !== fileCount) throw bad(`it is for ${files.length} files, not ${fileCount}`);
  return files.map((f) => {
    if (f === null) return null;
    if (!Array.isArray(f) || f.length < 3 || f.length > 4) throw bad('unreadable token');
    const [byte, lineNo, carry, mark] = f as unknown[];
    if (mark !== undefined && typeof mark !== 'string') throw bad('unreadable token');
    if (!Number.isSafeInteger(byte) || (byte as number) < 0 || !Number.isSafeInteger(lineNo) || (lineNo as number) < 1) throw bad('unreadable token');
    if (carry !== null && typeof carry !== 'number') throw bad('unreadable token');
    return { byte: byte as number, lineNo: lineNo as number, carryMs: carry === null ? NaN : carry, ...(mark !== undefined ? { mark } : {}) };
  });
}
