/**
 * Compressed logs (.gz, .zst, .bz2) read like plain files: the one place where a
 * read-only operation's local paths that are compressed (by magic bytes:
 * engine/read/compression.ts) become their plain files in Folio's cache
 * (engine/read/decompressed.ts), and where the answer (or the error) names the
 * original path again. handle.ts runOp and quick-handle.ts both run operations
 * through it. Writes are not mapped: the engine refuses them (a compressed file
 * is binary to the write path; the error says it is compressed).
 *
 * The app's first page does not wait for the whole decompression: a head window
 * (start_byte 0 + max_bytes) while the job runs is read from a small separate
 * inflate of the first bytes, with `indexing` the job's progress and total_lines
 * null, as a remote value's head is (remote-ops.ts readRemoteHead).
 */
import { resolve as resolvePath } from 'node:path';
import { FolioError } from '../engine/errors.ts';
import { compressionOf, type Compression } from '../engine/read/compression.ts';
import type { CallContext } from './call-context.ts';
import { isRemoteLocator } from './input-paths.ts';
import { isHeadWindow } from './runs.ts';
import type { ReadInput } from './schemas.ts';

/** Operations that only read their files: they run on the plain file. */
const READ_ONLY = new Set(['file_info', 'read', 'outline', 'search', 'time_seek', 'histogram', 'merge', 'query']);
/** Head windows up to this many bytes are served from a separate inflate of the first bytes while the job runs. */
const HEAD_MAX_BYTES = 8 * 1024 * 1024;
/** Decompressed past the window, so the window ends on a whole line. */
const HEAD_SLACK_BYTES = 64 * 1024;

type Renames = [from: string, to: string][];

export function decompressedNote(format: Compression): string {
  return `decompressed from ${format} into Folio's cache: lines and bytes are of the decompressed text`;
}

interface PathInput {
  path?: unknown;
  paths?: unknown;
}

function localPathsOf(input: PathInput): string[] {
  const all = typeof input.path === 'string' ? [input.path] : Array.isArray(input.paths) ? input.paths.filter((p): p is string => typeof p === 'string') : [];
  return all.filter((p) => !isRemoteLocator(p));
}

/**
 * Run the operation `name` with `input` through `run`: unchanged unless it is a
 * read-only operation on a compressed local file; then on the plain file, its
 * answer naming the original path.
 */
export async function onPlainPaths<T>(name: string, input: T, ctx: CallContext, run: (input: T) => Promise<unknown>): Promise<unknown> {
  if (!READ_ONLY.has(name)) return run(input);
  const found = localPathsOf(input as PathInput).flatMap((p) => {
    const format = compressionOf(p);
    return format ? [{ path: p, format }] : [];
  });
  if (found.length === 0) return run(input);
  const cache = await import('../engine/read/decompressed.ts');
  const fields = input as Record<string, unknown>;
  const headBytes = name === 'read' && isHeadWindow(fields as ReadInput) ? (fields.max_bytes as number) : null;
  if (headBytes !== null && headBytes <= HEAD_MAX_BYTES && !cache.cachedEntryOf(found[0]!.path)) {
    const { path, format } = found[0]!;
    const progress = cache.startDecompressing(path, format);
    const head = await cache.headFileOf(path, format, headBytes + HEAD_SLACK_BYTES);
    const now = cache.decompressingNow(path) ?? progress;
    const answer = (await renamedRun({ ...fields, path: head } as T, [[head, resolvePath(path)]], run)) as Record<string, unknown>;
    return {
      ...answer,
      total_lines: null,
      indexing: { bytes_done: now.bytesDone, total_bytes: now.totalBytes, stage: 'decompressing' },
      notes: [...((answer.notes as string[] | undefined) ?? []), decompressedNote(format)],
    };
  }
  const renames: Renames = [];
  const plainOf = new Map<string, string>();
  let compressedBytes = 0;
  for (const { path, format } of found) {
    const d = await cache.decompressed(path, format, {
      ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    plainOf.set(path, d.path);
    compressedBytes ||= d.compressedBytes;
    renames.push([d.path, resolvePath(path)]);
  }
  const plain = {
    ...fields,
    ...(typeof fields.path === 'string' && plainOf.has(fields.path) ? { path: plainOf.get(fields.path) } : {}),
    ...(Array.isArray(fields.paths) ? { paths: fields.paths.map((p: unknown) => (typeof p === 'string' ? (plainOf.get(p) ?? p) : p)) } : {}),
  } as T;
  const answer = (await renamedRun(plain, renames, run)) as Record<string, unknown>;
  const first = found[0]!;
  if (name === 'file_info') {
    // The compressed file's own etag: what delete_file and move_file of it check.
    const { etagOf, statRegularFile } = await import('../engine/index/identity.ts');
    return { ...answer, compressed: { format: first.format, compressed_bytes: compressedBytes, etag: etagOf(statRegularFile(first.path)) } };
  }
  if (name === 'read') return { ...answer, notes: [...((answer.notes as string[] | undefined) ?? []), decompressedNote(first.format)] };
  return answer;
}

async function renamedRun<T>(input: T, renames: Renames, run: (input: T) => Promise<unknown>): Promise<unknown> {
  try {
    return renamed(await run(input), renames, false);
  } catch (err) {
    if (!(err instanceof FolioError)) throw err;
    throw new FolioError(err.code, renamedText(err.message, renames), renamed(err.details, renames, true) as Record<string, unknown>);
  }
}

function renamedText(text: string, renames: Renames): string {
  return renames.reduce((t, [from, to]) => (t.includes(from) ? t.split(from).join(to) : t), text);
}

/**
 * `value` with the plain files named as the original paths: strings that are one
 * exactly, and notes (or, `inText`, any string) that mention one. File text in an
 * answer stays as it is.
 */
function renamed(value: unknown, renames: Renames, inText: boolean): unknown {
  if (typeof value === 'string') {
    const exact = renames.find(([from]) => from === value);
    return exact ? exact[1] : inText ? renamedText(value, renames) : value;
  }
  if (Array.isArray(value)) return value.map((v) => renamed(v, renames, inText));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renamed(v, renames, inText || k === 'notes' || k === 'message')]));
  }
  return value;
}

/**
 * The plain file behind `path` for a step beside an operation that reads the file
 * itself (the agent guard's redaction: key blocks around a window, line bounds):
 * its cache entry if it is compressed (decompressed first, if it is not there),
 * else `path`.
 */
export async function plainFileOf(path: string, ctx: CallContext = {}): Promise<string> {
  const format = isRemoteLocator(path) ? null : compressionOf(path);
  if (!format) return path;
  const { decompressed } = await import('../engine/read/decompressed.ts');
  return (await decompressed(path, format, { ...(ctx.signal ? { signal: ctx.signal } : {}) })).path;
}
