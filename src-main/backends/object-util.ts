/**
 * Small helpers the object-store backends (azure-blob.ts, s3-object.ts) share.
 */
import { FolioError } from '../engine/errors.ts';

export function checkRange(start: number, end: number, locator: string): void {
  if (!Number.isInteger(start) || start < 0 || !(Number.isInteger(end) || end === Infinity) || end < 0) {
    throw new FolioError('invalid_range', `bad byte range [${start}, ${end}) on ${locator}`, { start, end });
  }
}

/** [from, to) cut into pieces of at most `max` bytes */
export function split(from: number, to: number, max: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let at = from; at < to; at += max) out.push([at, Math.min(to, at + max)]);
  return out;
}

/** An ETag as a path segment: quotes dropped, anything else unusual escaped. */
export function tokenSegment(token: string): string {
  return encodeURIComponent(token.replace(/^W\//, '').replaceAll('"', ''));
}

/** Runs the tasks with at most `width` at once; the first failure wins, the rest still settle. */
export async function runLimited(tasks: Array<() => Promise<unknown>>, width: number): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < tasks.length && !failure) {
      const task = tasks[next++]!;
      try {
        await task();
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, tasks.length) }, worker));
  if (failure) throw failure.err;
}

export function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
