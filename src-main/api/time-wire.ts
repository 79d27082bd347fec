/** time_seek and histogram on the wire: the engine's answers in snake_case, with path and version. */
import { FolioError, isFolioError } from '../engine/errors.ts';
import { binaryFileError, factsOf } from '../engine/read/file-facts.ts';
import { openIndex } from '../engine/index/store.ts';
import type { HistogramOutput, HistogramInput, TimeSeekInput, TimeSeekOutput } from './schemas/time.ts';
import type { OutlineOutput } from './schemas/outline.ts';
import type { z } from 'zod';
import type { CallContext } from './call-context.ts';

const iso = (ms: number) => new Date(ms).toISOString();

async function openStamped(path: string, ctx: CallContext) {
  const facts = await factsOf(path);
  if (facts.verdict.isBinary) throw binaryFileError(facts);
  const index = await openIndex(path, { signal: ctx.signal, onProgress: ctx.onProgress });
  if (!index.complete) throw new FolioError('invalid_input', `the line index of ${path} is not complete`, { path });
  return { facts, index };
}

export async function timeSeekWire(input: z.infer<typeof TimeSeekInput>, ctx: CallContext): Promise<z.infer<typeof TimeSeekOutput>> {
  const { facts, index } = await openStamped(input.path, ctx);
  const { timeSeek } = await import('../engine/search/time-seek.ts');
  const r = timeSeek(index, input.time, facts.encoding);
  return {
    path: facts.identity.path,
    version: facts.version,
    format: r.format,
    target: iso(r.targetMs),
    line: r.lineNo,
    byte_offset: r.byteOffset,
    time: iso(r.timeMs),
    probes: r.probes,
    elapsed_ms: r.elapsedMs,
  };
}

export async function histogramWire(input: z.infer<typeof HistogramInput>, ctx: CallContext): Promise<z.infer<typeof HistogramOutput>> {
  const { facts, index } = await openStamped(input.path, ctx);
  const { histogramFile } = await import('../engine/search/histogram.ts');
  const r = await histogramFile(index, {
    encoding: facts.encoding,
    ...(input.max_buckets !== undefined ? { maxBuckets: input.max_buckets } : {}),
    ...(input.bucket_ms !== undefined ? { bucketMs: input.bucket_ms } : {}),
    ...(input.start_byte !== undefined ? { startByte: input.start_byte } : {}),
    ...(input.end_byte !== undefined ? { endByte: input.end_byte } : {}),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}),
  });
  return {
    path: facts.identity.path,
    version: facts.version,
    format: r.format,
    first_time: iso(r.firstMs),
    last_time: iso(r.lastMs),
    origin_ms: r.originMs,
    bucket_ms: r.bucketMs,
    buckets: r.buckets,
    unstamped: r.unstamped,
    outside: r.outside,
    lines: r.lines,
    order_break: r.orderBreak
      ? { line: r.orderBreak.lineNo, byte_offset: r.orderBreak.byte, time_before: iso(r.orderBreak.timeBeforeMs), time: iso(r.orderBreak.timeMs) }
      : null,
    scanned: { start_byte: r.scanned.startByte, end_byte: r.scanned.endByte },
    elapsed_ms: r.elapsedMs,
  };
}

/** Buckets a log's outline has at most: a glance an agent reads before it reads by time. */
const OUTLINE_BUCKETS = 24;

/**
 * The outline of a stamped file that is not markdown: its histogram in OUTLINE_BUCKETS
 * buckets, each with its start time (what read {time} takes) and its counts in
 * `levels` order. null when its first lines carry no time stamps (then it is
 * outlined as markdown).
 */
export async function logOutlineOf(path: string, t0: number): Promise<z.infer<typeof OutlineOutput> | null> {
  // Its first bytes first, as they are: most files outlined are no logs, and a histogram waits for the whole index.
  if (!(await stampedHead(path))) return null;
  let h: z.infer<typeof HistogramOutput>;
  try {
    h = await histogramWire({ path, max_buckets: OUTLINE_BUCKETS }, {});
  } catch (err) {
    // A file whose stamps are not ASCII (UTF-16) is outlined as markdown, as before logs had outlines.
    if (isFolioError(err) && (err.code === 'no_timestamps' || err.code === 'encoding_mismatch')) return null;
    throw err;
  }
  const levels = ['error', 'warn', 'info', 'debug', 'other'] as const;
  return {
    path: h.path,
    version: h.version,
    total_lines: h.lines,
    front_matter: null,
    headings: [],
    log: {
      format: h.format,
      first_time: h.first_time,
      last_time: h.last_time,
      bucket_ms: h.bucket_ms,
      levels: [...levels],
      buckets: h.buckets.map((b, i) => ({ time: iso(h.origin_ms + i * h.bucket_ms), counts: levels.map((l) => b[l]) })),
      lines: h.lines,
      out_of_order_at_line: h.order_break?.line ?? null,
    },
    elapsed_ms: performance.now() - t0,
  };
}

/** Whether the first lines of `path` carry time stamps, from its first bytes as they are (time-probe.ts). */
async function stampedHead(path: string): Promise<boolean> {
  const [{ timeSchemeOf }, { openSync, closeSync, fstatSync }] = await Promise.all([import('../engine/search/time-probe.ts'), import('node:fs')]);
  const fd = openSync(path, 'r');
  try {
    timeSchemeOf(fd, path, fstatSync(fd).size, 'utf-8');
    return true;
  } catch (err) {
    if (isFolioError(err) && err.code === 'no_timestamps') return false;
    throw err;
  } finally {
    closeSync(fd);
  }
}
