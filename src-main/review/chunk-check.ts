/**
 * Whether a saved Automerge chunk sequence is whole, without loading it.
 *
 * Automerge's binary format (automerge.org/automerge-binary-format-spec, "Chunk
 * container") frames every chunk as magic bytes 85 6f 4a 83, a 4-byte checksum,
 * a type byte, a uLEB128 length and the contents; the checksum is the first 4
 * bytes of SHA-256 over type, length and contents. Checking that is a hash over
 * the bytes (native, fast), where parsing each frame with Automerge.load on top
 * of loading it doubled the cost of a refresh. Deflated change chunks (type 2)
 * are checksummed over their inflated form: those, and any type this does not
 * know, are checked by parsing (`parse`).
 */
import { createHash } from 'node:crypto';

const MAGIC = [0x85, 0x6f, 0x4a, 0x83];
/** document, change */
const CHECKSUMMED_TYPES = new Set([0, 1]);

/** Why `bytes` is not a sequence of whole chunks, or null when it is. */
export function chunkProblemOf(bytes: Uint8Array, parse: (bytes: Uint8Array) => void): string | null {
  if (bytes.length === 0) return 'an empty frame';
  let pos = 0;
  while (pos < bytes.length) {
    if (bytes.length - pos < 10 || MAGIC.some((m, i) => bytes[pos + i] !== m)) return `no chunk header at byte ${pos}`;
    let at = pos + 9;
    let len = 0;
    for (let shift = 0; ; shift += 7) {
      if (at >= bytes.length || shift > 35) return `a cut chunk length at byte ${pos}`;
      const b = bytes[at++]!;
      len += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) break;
    }
    if (at + len > bytes.length) return `a chunk of ${len} bytes at byte ${pos} is cut at ${bytes.length - at}`;
    const type = bytes[pos + 8]!;
    if (CHECKSUMMED_TYPES.has(type)) {
      const sum = createHash('sha256')
        .update(bytes.subarray(pos + 8, at + len))
        .digest();
      for (let i = 0; i < 4; i++) if (sum[i] !== bytes[pos + 4 + i]) return `the checksum of the chunk at byte ${pos} does not match`;
    } else {
      try {
        parse(bytes);
      } catch (err) {
        return (err as Error).message;
      }
      return null;
    }
    pos = at + len;
  }
  return null;
}
