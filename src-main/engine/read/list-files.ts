/**
 * The files and directories under a directory (or those matching a glob), in walk
 * order (read/walk.ts: .gitignore honoured, `.git` and symlinks skipped), down to a
 * depth, capped. Each file with its size, mtime, kind (text or binary, from the
 * engine's head sniff: text/binary-sniff.ts) and its line count when an index of
 * it is already at hand (never indexed for a listing), and its etag (from the same
 * stat, as a read gives it: a move, delete or upsert can name it without a file_info
 * first). Directories are entries too, with kind 'directory'.
 */
import { lstatSync } from 'node:fs';
import { FolioError } from '../errors.ts';
import { etagOf, identityOf } from '../index/identity.ts';
import { knownLineCount } from '../index/store.ts';
import { sniffBinary } from '../text/binary-sniff.ts';
import { walkTree, type WalkOptions } from './walk.ts';

export interface ListOptions {
  glob?: string;
  /** 1: the directory's own entries; default 3 */
  depth?: number;
  /** cap on entries, default 1000, 1..100000 */
  max?: number;
  admit?: WalkOptions['admit'];
  /** skip files with more than one hard link (the agent guard, unless the workspace allows them) */
  refuseLinks?: boolean;
}

export interface ListEntry {
  /** relative to the listed directory, '/'-separated */
  path: string;
  kind: 'text' | 'binary' | 'directory';
  /** bytes (0 for a directory) */
  size: number;
  mtimeMs: number;
  depth: number;
  /** line count when an index is at hand, else null (always null for a directory) */
  lines: number | null;
  /** the file's etag, as a read answers it; null for a directory */
  etag: string | null;
}

export interface ListResult {
  root: string;
  entries: ListEntry[];
  truncated: boolean;
  elapsedMs: number;
}

export const DEFAULT_LIST_DEPTH = 3;
export const DEFAULT_LIST_MAX = 1000;

function intIn(field: string, v: number | undefined, fallback: number, min: number, max: number): number {
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new FolioError('invalid_input', `${field} must be an integer in ${min}..${max}, got ${v}`, { field, value: v, min, max });
  }
  return v;
}

/** List `root` (a real path to an existing directory). */
export async function listFiles(root: string, opts: ListOptions = {}): Promise<ListResult> {
  const started = performance.now();
  const depth = intIn('depth', opts.depth, DEFAULT_LIST_DEPTH, 1, 64);
  const max = intIn('max', opts.max, DEFAULT_LIST_MAX, 1, 100_000);
  const entries: ListEntry[] = [];
  let truncated = false;
  for (const e of walkTree(root, { glob: opts.glob, maxDepth: depth, dirs: true, admit: opts.admit })) {
    let st;
    try {
      st = lstatSync(e.abs, { bigint: true });
    } catch {
      continue; // gone since the walk
    }
    if (e.kind === 'file' && (!st.isFile() || (opts.refuseLinks && st.nlink > 1n))) continue;
    if (entries.length === max) {
      truncated = true;
      break;
    }
    if (e.kind === 'dir') {
      entries.push({ path: e.rel, kind: 'directory', size: 0, mtimeMs: Number(st.mtimeMs), depth: e.depth, lines: null, etag: null });
      continue;
    }
    let kind: 'text' | 'binary';
    try {
      kind = (await sniffBinary(e.abs, Number(st.size))).isBinary ? 'binary' : 'text';
    } catch {
      continue; // unreadable: not listed, like search skips it
    }
    const id = identityOf(e.abs, st);
    entries.push({
      path: e.rel,
      kind,
      size: id.size,
      mtimeMs: id.mtimeMs,
      depth: e.depth,
      lines: kind === 'text' ? knownLineCount(e.abs) : null,
      etag: etagOf(id),
    });
  }
  return { root, entries, truncated, elapsedMs: performance.now() - started };
}
