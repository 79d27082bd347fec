/**
 * Marks that follow their lines (issue 17). Each mark keeps a fingerprint of its
 * line (byte length and a hash of its first bytes) and the file version (etag)
 * it was taken at. When the file's version differs, each mark is re-anchored:
 * kept if its line still has its fingerprint, else moved to the nearest line
 * with that fingerprint within WINDOW_LINES of where the edits above it put it.
 * A mark whose line was itself edited (or is gone) is "lost": it moves by the
 * shift of the nearest mark above it that was found (0 if none), stays inside
 * the file when it can, and takes the fingerprint of the line it lands on, so
 * the person sees it on the edited line rather than losing it.
 *
 * Works for every source of edits (agent, CLI, outside editor), as it looks only
 * at the file. Lines are read through the engine's line index (a start offset
 * per run of wanted lines, then the bytes forward), never the whole file: the
 * work is bounded by the marks' lines and SCAN_LINES_MAX window lines.
 */
import { createHash } from 'node:crypto';
import { closeFd, readAt } from '../../engine/index/byte-source.ts';
import { etagOf, openForRead } from '../../engine/index/identity.ts';
import type { LineIndex } from '../../engine/index/line-index.ts';

/** How far (in lines, each way) a mark is looked for around where it should be. */
export const WINDOW_LINES = 2_000;
/** At most this many window lines are read per re-anchoring (10,000 lost marks × ±2,000 would be 40 M). */
export const SCAN_LINES_MAX = 400_000;
/** Distinct shifts tried on all remaining marks before each one's window is scanned. */
const SHIFT_ROUNDS = 8;
const HASHED_BYTES = 4096;
const CHUNK_BYTES = 1 << 20;
/** Wanted lines this close are read in one forward pass rather than found again in the index. */
const RUN_GAP_LINES = 256;

export interface AnchoredMarks {
  lines: number[];
  prints: string[];
  /** the marks (new numbers) whose line's text was not found: they stay at their number, moved by the shift above */
  lost: number[];
}

/** The lines of one version of a file, as fingerprints. */
export interface LineSource {
  etag: string;
  total: number;
  /** fingerprints of `lineNos` (ascending, each 1..total); with `lengths`, only lines of those byte lengths */
  printsOf(lineNos: number[], lengths?: Set<number>): Map<number, string>;
}

const lengthOf = (print: string) => Number(print.slice(0, print.indexOf(':')));

/** A LineSource over a local file's complete index; null for layouts it does not fingerprint (UTF-16). */
export function lineSourceOf(index: LineIndex): LineSource | null {
  if (index.unit !== 1) return null;
  const size = index.size;
  return {
    etag: etagOf(index.identity),
    total: index.lineCount,
    printsOf(lineNos, lengths) {
      const out = new Map<number, string>();
      if (lineNos.length === 0) return out;
      const fd = openForRead(index.path);
      const buf = Buffer.allocUnsafe(CHUNK_BYTES);
      let bufStart = 0;
      let bufLen = 0;
      const fill = (at: number) => {
        bufStart = at;
        bufLen = 0;
        while (bufLen < CHUNK_BYTES && bufStart + bufLen < size) {
          const n = readAt(fd, buf, bufLen, Math.min(CHUNK_BYTES, size - bufStart) - bufLen, bufStart + bufLen);
          if (n <= 0) break;
          bufLen += n;
        }
      };
      const printOf = (start: number, end: number): string => {
        let e = end;
        if (e > start && byteAt(e - 1) === 13) e--; // a CRLF's CR is no part of the text
        const len = e - start;
        if (lengths && !lengths.has(len)) return '';
        const hashed = Math.min(len, HASHED_BYTES);
        let bytes: Buffer;
        if (start >= bufStart && start + hashed <= bufStart + bufLen) bytes = buf.subarray(start - bufStart, start - bufStart + hashed);
        else {
          bytes = Buffer.allocUnsafe(hashed);
          readAt(fd, bytes, 0, hashed, start);
        }
        return `${len}:${createHash('sha1').update(bytes).digest('base64url').slice(0, 16)}`;
      };
      const byteAt = (at: number): number => {
        if (at >= bufStart && at < bufStart + bufLen) return buf[at - bufStart]!;
        const one = Buffer.alloc(1);
        readAt(fd, one, 0, 1, at);
        return one[0]!;
      };
      try {
        let i = 0;
        while (i < lineNos.length) {
          // One run: wanted lines no more than RUN_GAP_LINES apart, read forward from the first.
          let j = i;
          while (j + 1 < lineNos.length && lineNos[j + 1]! - lineNos[j]! <= RUN_GAP_LINES) j++;
          let lineNo = lineNos[i]!;
          let pos = index.lineStart(lineNo - 1);
          fill(Math.max(0, pos));
          let k = i;
          while (pos >= 0 && pos < size && k <= j) {
            let nl = pos < bufStart + bufLen ? buf.subarray(0, bufLen).indexOf(10, pos - bufStart) : -1;
            if (nl < 0 && bufStart + bufLen < size) {
              fill(pos);
              nl = buf.subarray(0, bufLen).indexOf(10);
            }
            // A line longer than a chunk: its end from the index.
            const end = nl >= 0 ? bufStart + nl : bufStart + bufLen >= size ? size : index.lineEnd(lineNo - 1);
            if (lineNos[k] === lineNo) {
              const print = printOf(pos, end);
              if (print) out.set(lineNo, print);
              k++;
            }
            pos = end + 1;
            lineNo++;
          }
          i = j + 1;
        }
      } finally {
        closeFd(fd);
      }
      return out;
    },
  };
}

/** Fingerprints of `lines` (ascending) in `src`; '' past its end. */
export function printsAt(src: LineSource, lines: number[]): string[] {
  const got = src.printsOf(uniqueSorted(lines.filter((n) => n <= src.total)));
  return lines.map((n) => got.get(n) ?? '');
}

function uniqueSorted(ns: number[]): number[] {
  return [...new Set(ns)].sort((a, b) => a - b);
}

/**
 * Re-anchor marks taken at another version (`prints` are their fingerprints
 * then, same order as `lines`, ascending) on `src`. Old entries without
 * fingerprints are fingerprinted where they are.
 */
export function reanchorMarks(lines: number[], prints: string[] | undefined, src: LineSource): AnchoredMarks {
  if (!prints || prints.length !== lines.length) return { lines, prints: printsAt(src, lines), lost: [] };
  const count = lines.length;
  const at: (number | null)[] = new Array(count).fill(null);
  const taken = new Set<number>();
  const tryShift = (shift: number, which: number[]) => {
    const want = which.map((i) => lines[i]! + shift).filter((n) => n >= 1 && n <= src.total);
    const got = src.printsOf(uniqueSorted(want));
    for (const i of which) {
      const n = lines[i]! + shift;
      if (prints[i] && got.get(n) === prints[i] && !taken.has(n)) {
        at[i] = n;
        taken.add(n);
      }
    }
  };
  const remaining = () => at.flatMap((n, i) => (n === null && prints[i] ? [i] : []));
  // Unmoved marks, then the shifts found by scanning the first remaining mark's window.
  tryShift(0, remaining());
  let scanned = 0;
  for (let round = 0; round < SHIFT_ROUNDS; round++) {
    const left = remaining();
    if (left.length === 0) break;
    const first = left[0]!;
    const found = nearestIn(src, lines[first]!, prints[first]!, taken);
    scanned += 2 * WINDOW_LINES + 1;
    if (found === null) {
      at[first] = -1; // not found: settled below as lost
      continue;
    }
    tryShift(found - lines[first]!, left);
    if (at[first] === null) {
      at[first] = found;
      taken.add(found);
    }
  }
  // The rest: each one's own window while the budget lasts.
  for (const i of remaining()) {
    if (scanned + 2 * WINDOW_LINES + 1 > SCAN_LINES_MAX) break;
    scanned += 2 * WINDOW_LINES + 1;
    const found = nearestIn(src, lines[i]!, prints[i]!, taken);
    if (found !== null) {
      at[i] = found;
      taken.add(found);
    }
  }
  // Lost marks move by the shift of the nearest found mark above them.
  let shift = 0;
  const lostIdx = new Set<number>();
  for (let i = 0; i < count; i++) {
    const n = at[i]!;
    if (n !== null && n > 0) {
      shift = n - lines[i]!;
      continue;
    }
    const moved = lines[i]! + shift;
    const inside = moved >= 1 && moved <= src.total ? moved : lines[i]!;
    at[i] = taken.has(inside) ? lines[i]! : inside;
    lostIdx.add(i);
  }
  // Two marks on one line become one; ascending again.
  const byLine = new Map<number, { print: string; lost: boolean }>();
  for (let i = 0; i < count; i++) if (!byLine.has(at[i]!)) byLine.set(at[i]!, { print: prints[i]!, lost: lostIdx.has(i) });
  const sorted = [...byLine.keys()].sort((a, b) => a - b);
  const lostLines = sorted.filter((n) => byLine.get(n)!.lost);
  // A lost mark takes its new line's fingerprint: the person now sees it on that text.
  const lostPrints = printsAt(src, lostLines);
  lostLines.forEach((n, i) => (byLine.get(n)!.print = lostPrints[i]!));
  return { lines: sorted, prints: sorted.map((n) => byLine.get(n)!.print), lost: lostLines };
}

/** The line nearest `lineNo` (ties: the later one) within the window whose fingerprint is `print`, not yet taken. */
function nearestIn(src: LineSource, lineNo: number, print: string, taken: Set<number>): number | null {
  const lo = Math.max(1, lineNo - WINDOW_LINES);
  const hi = Math.min(src.total, lineNo + WINDOW_LINES);
  if (lo > hi) return null;
  const want = Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
  const got = src.printsOf(want, new Set([lengthOf(print)]));
  let best: number | null = null;
  for (const [n, p] of got) {
    if (p !== print || taken.has(n)) continue;
    const d = Math.abs(n - lineNo);
    if (best === null || d < Math.abs(best - lineNo) || (d === Math.abs(best - lineNo) && n > best)) best = n;
  }
  return best;
}
