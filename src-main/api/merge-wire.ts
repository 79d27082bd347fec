/**
 * merge on the wire (engine/search/merge.ts): a window of the merged view with its
 * cursor, and, for the CLI, the whole merged view streamed in chunks (raw lines,
 * tagged lines or JSON Lines) so it never sits in memory as one answer.
 */
import type { z } from 'zod';
import { FolioError } from '../engine/errors.ts';
import { binaryFileError, factsOf } from '../engine/read/file-facts.ts';
import { openIndex } from '../engine/index/store.ts';
import type { Merge, MergedLine, MergeOptions } from '../engine/search/merge.ts';
import type { MergeInput, MergeOutput } from './schemas/merge.ts';
import type { CallContext } from './call-context.ts';
import { checkInputPaths } from './input-paths.ts';
import { withHomeExpanded } from './home-path.ts';

const DEFAULT_LINES = 200;

const iso = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString() : null);

async function indexOf(path: string, ctx: CallContext) {
  const index = await openIndex(path, { signal: ctx.signal, onProgress: ctx.onProgress });
  if (!index.complete) throw new FolioError('invalid_input', `the line index of ${path} is not complete`, { path });
  return index;
}

export async function mergeWire(input: z.infer<typeof MergeInput>, ctx: CallContext): Promise<z.infer<typeof MergeOutput>> {
  const t0 = performance.now();
  const facts = await Promise.all(input.paths.map((p) => factsOf(p, { hash: false })));
  for (const f of facts) if (f.verdict.isBinary) throw binaryFileError(f);
  const { openMerge } = await import('../engine/search/merge.ts');
  const merge = await openMerge(input.paths, {
    ...times(input),
    ...(input.cursor !== undefined ? { cursor: input.cursor } : {}),
    ...matchOf(input),
    encodings: facts.map((f) => f.encoding),
    indexOf: (path) => indexOf(path, ctx),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  try {
    const want = input.lines ?? DEFAULT_LINES;
    const lines: z.infer<typeof MergeOutput>['lines'] = [];
    const next = nextOf(merge);
    for (let m = await next(); m && lines.length < want; m = lines.length < want ? await next() : null) {
      lines.push({ file: m.fileIdx, path: input.paths[m.fileIdx]!, line: m.lineNo, time: iso(m.timeMs), text: m.buf.toString('utf8', m.start, m.contentEnd) });
    }
    return {
      files: merge.files.map((f, i) => ({ path: facts[i]!.identity.path, version: facts[i]!.version, format: f.format })),
      lines,
      next_cursor: merge.cursor(),
      end_cursor: merge.endCursor(),
      bytes_read: merge.bytesRead,
      elapsed_ms: performance.now() - t0,
    };
  } finally {
    merge.close();
  }
}

function times(input: { from?: string | number | undefined; to?: string | number | undefined }): Pick<MergeOptions, 'from' | 'to'> {
  return { ...(input.from !== undefined ? { from: input.from } : {}), ...(input.to !== undefined ? { to: input.to } : {}) };
}

function matchOf(input: { match?: string | undefined; match_flags?: string | undefined }): Pick<MergeOptions, 'match' | 'matchFlags'> {
  return { ...(input.match !== undefined ? { match: input.match } : {}), ...(input.match_flags !== undefined ? { matchFlags: input.match_flags } : {}) };
}

/** The merge's next line: nextMatch when it has a match (the regex runs in workers), else next. */
function nextOf(merge: Merge): () => MergedLine | null | Promise<MergedLine | null> {
  return merge.filtered ? () => merge.nextMatch() : () => merge.next();
}

export type MergeStyle = 'raw' | 'tag' | 'json';

export interface MergeStreamInput {
  paths: string[];
  from?: string | undefined;
  to?: string | undefined;
  match?: string | undefined;
  match_flags?: string | undefined;
}

/** Bytes gathered before each write. */
const CHUNK_BYTES = 1 << 20;

/**
 * The whole merged view, written in chunks of about CHUNK_BYTES (`write` may
 * return a promise: the next chunk waits for it, so a slow reader holds the merge
 * back and memory stays bounded). `raw` writes each line's bytes as they are, with
 * a newline added after a file's last line when it has none (as sort does); `tag`
 * puts `path:` before each; `json` writes one JSON object per line.
 */
export async function mergeStream(input: MergeStreamInput, style: MergeStyle, write: (chunk: Buffer) => Promise<void> | void): Promise<void> {
  checkInputPaths('merge', { paths: input.paths });
  const { mergeFilesOf } = await import('../engine/search/merge-files.ts');
  const paths = mergeFilesOf(input.paths.map((p) => withHomeExpanded({ path: p }).path));
  const { openMerge } = await import('../engine/search/merge.ts');
  const merge = await openMerge(paths, { ...times(input), ...matchOf(input), indexOf: (path) => indexOf(path, {}) });
  try {
    await streamLines(merge, paths, style, write);
  } finally {
    merge.close();
  }
}

async function streamLines(merge: Merge, names: string[], style: MergeStyle, write: (chunk: Buffer) => Promise<void> | void): Promise<void> {
  if (style === 'json') return streamJson(merge, names, write);
  const tags = style === 'tag' ? names.map((name) => Buffer.from(`${name}:`)) : null;
  let out = Buffer.allocUnsafe(CHUNK_BYTES);
  let n = 0;
  // A run of lines adjacent in one read buffer (one file's lines in a row) is copied at once, when it ends:
  // a copy per line would cost more than the merge (merge.ts: the bytes handed out stay as they are).
  let runBuf: Buffer | null = null;
  let runStart = 0;
  let runEnd = 0;
  const endRun = () => {
    // set() of a subarray: Buffer#copy costs about twice as much per call for lines this short (Node 20).
    if (runBuf) out.set(runBuf.subarray(runStart, runEnd), n);
    n += runEnd - runStart;
    runBuf = null;
    runStart = runEnd = 0;
  };
  const next = nextOf(merge);
  for (let r = next(), m = r instanceof Promise ? await r : r; m; r = next(), m = r instanceof Promise ? await r : r) {
    const tag = tags?.[m.fileIdx];
    const newline = m.end === m.contentEnd || m.buf[m.end - 1] !== 10;
    const need = (tag?.length ?? 0) + (m.end - m.start) + (newline ? 1 : 0);
    if (n + (runEnd - runStart) + need > out.length) {
      endRun();
      if (n > 0) await write(out.subarray(0, n));
      out = Buffer.allocUnsafe(CHUNK_BYTES); // a fresh one: the stream may still hold the one written
      n = 0;
      if (need > out.length) {
        // A line longer than a chunk: written on its own.
        await write(Buffer.concat([tag ?? EMPTY, m.buf.subarray(m.start, m.end), newline ? NEWLINE : EMPTY]));
        continue;
      }
    }
    if (!tag && !newline && m.buf === runBuf && m.start === runEnd) {
      runEnd = m.end;
      continue;
    }
    endRun();
    if (tag) n += tag.copy(out, n);
    if (newline) {
      out.set(m.buf.subarray(m.start, m.end), n);
      n += m.end - m.start;
      out[n++] = 10;
    } else {
      [runBuf, runStart, runEnd] = [m.buf, m.start, m.end];
    }
  }
  endRun();
  if (n > 0) await write(out.subarray(0, n));
}

async function streamJson(merge: Merge, names: string[], write: (chunk: Buffer) => Promise<void> | void): Promise<void> {
  let rows: string[] = [];
  let chars = 0;
  const next = nextOf(merge);
  for (let m = await next(); m; m = await next()) {
    const row = jsonRow(m, names);
    rows.push(row);
    chars += row.length;
    if (chars >= CHUNK_BYTES) {
      await write(Buffer.from(rows.join('')));
      rows = [];
      chars = 0;
    }
  }
  if (rows.length > 0) await write(Buffer.from(rows.join('')));
}

function jsonRow(m: MergedLine, names: string[]): string {
  const text = m.buf.toString('utf8', m.start, m.contentEnd);
  return JSON.stringify({ file: m.fileIdx, path: names[m.fileIdx], line: m.lineNo, time: iso(m.timeMs), text }) + '\n';
}

const NEWLINE = Buffer.from('\n');
const EMPTY = Buffer.alloc(0);
