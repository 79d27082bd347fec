/**
 * A file's text as decoded lines, streamed in batches (one read of `chunkBytes` at a
 * time, never the whole file): for the scans that compare a quote with lines rather
 * than bytes (near-miss.ts, loose-match.ts). A line never comes cut: the bytes after
 * a window's last newline are carried into the next batch. A CR of a CRLF ending is
 * removed; no line follows a final newline. Local files and mounted remote values
 * alike (quote-scan.ts openHandle).
 */
import type { TextCodec } from '../text/codec.ts';
import { openHandle } from './quote-scan.ts';

export interface LineBatch {
  /** complete lines, in file order */
  lines: string[];
  /** bytes of the file consumed so far (from 0, the start of the file) */
  pos: number;
  /** the last batch */
  atEnd: boolean;
}

/** Decoded lines of bytes [fromByte, size) of `path`; the caller may stop early (break) and the file is closed. */
export async function* lineBatches(path: string, codec: TextCodec, fromByte: number, size: number, chunkBytes: number): AsyncGenerator<LineBatch> {
  const fh = await openHandle(path);
  let pos = fromByte;
  try {
    const buf = Buffer.allocUnsafe(chunkBytes);
    /** the decoded start of a line longer than a chunk */
    let carry = '';
    while (pos < size) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(chunkBytes, size - pos), pos);
      if (bytesRead <= 0) break;
      let take = bytesRead;
      const atEnd = pos + bytesRead >= size;
      if (!atEnd) {
        const nl = codec.lastIndexOfNewline(buf, bytesRead);
        take = nl >= 0 ? nl + codec.unit : codec.snapBack(path, pos, pos + bytesRead) - pos;
        if (take <= 0) take = bytesRead; // cannot happen for a sane codec; never loop forever
      }
      const text = carry + codec.decode(buf.subarray(0, take), pos, 'replace').text;
      pos += take;
      const parts = text.split('\n');
      carry = atEnd ? '' : parts.pop()!;
      const lines = parts.map((p) => (p.endsWith('\r') ? p.slice(0, -1) : p));
      if (atEnd && lines.length > 0 && lines[lines.length - 1] === '' && text.endsWith('\n')) lines.pop(); // no line after a final newline
      yield { lines, pos, atEnd };
    }
  } finally {
    await fh.close();
  }
}
