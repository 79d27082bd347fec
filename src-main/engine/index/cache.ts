/**
 * Persisted line indexes, so reopening a big file is instant. One file per indexed
 * path under the cache dir ($FOLIO_CACHE_DIR, else $XDG_CACHE_HOME/folio, else
 * ~/.cache/folio), named by a hash of the path. Layout: u32 header length, JSON
 * header (identity, edge hashes, totals, facts), then the block table's Uint32 values.
 *
 * The key is (device, inode, size, mtime, hash of first and last 64 KiB): a cache
 * entry is used only when all match the file now, or when the file only grew past
 * the cached size with the cached bytes unchanged (then only the new bytes are
 * scanned). A stale entry is never used.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { BlockTable, blockCount } from './block-table.ts';
import type { FileIdentity } from './identity.ts';
import { LineIndex, type IndexFacts } from './line-index.ts';
import type { TextLayout } from './layout.ts';

const FORMAT = 3; // 3: facts.utf8 (UTF-8 counts)

interface Header {
  format: number;
  identity: FileIdentity;
  head: string;
  tail: string;
  newlines: number;
  facts: IndexFacts;
  lastUnit: number;
  firstBytes: number[];
  layout: TextLayout;
  wraps: number[];
}

export function cacheDir(): string {
  if (process.env.FOLIO_CACHE_DIR) return process.env.FOLIO_CACHE_DIR;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'folio', 'index');
}

/**
 * The name a file's cache entry goes by. A path to an open file (`/proc/self/fd/N`,
 * what the agent guard hands the engine so a race cannot swap the file) names the
 * file it leads to, so the entry outlives the process and its fd numbers.
 */
function cacheKeyOf(path: string): string {
  if (!path.startsWith('/proc/self/fd/')) return path;
  try {
    return realpathSync(path); // `/proc/self/fd/N`, or a name inside a pinned directory
  } catch {
    return path;
  }
}

function cacheFile(path: string): string {
  return join(cacheDir(), createHash('sha256').update(cacheKeyOf(path)).digest('hex').slice(0, 32) + '.idx');
}

/** An index as bytes: u32 header length, JSON header, the table's Uint32 values. Also a remote value's sidecar. */
export function indexToBytes(index: LineIndex, key: string = index.identity.path): Buffer {
  const s = index.state();
  const { cum, wraps } = s.table.toBuffers();
  const header: Header = {
    format: FORMAT,
    identity: { ...s.identity, path: key },
    head: s.head,
    tail: s.tail,
    newlines: s.newlines,
    facts: s.facts,
    lastUnit: s.lastUnit,
    firstBytes: s.firstBytes,
    layout: s.layout,
    wraps,
  };
  const json = Buffer.from(JSON.stringify(header));
  const len = Buffer.alloc(4);
  len.writeUInt32LE(json.length);
  return Buffer.concat([len, json, Buffer.from(cum.buffer, cum.byteOffset, cum.byteLength)]);
}

/**
 * The index indexToBytes wrote, reading through `path`, if its key is `key` and
 * `accept` takes its identity; else undefined (the caller checks freshness).
 */
export function indexFromBytes(bytes: Uint8Array, path: string, key: string, accept: (id: FileIdentity) => boolean): LineIndex | undefined {
  try {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const hlen = buf.readUInt32LE(0);
    const header = JSON.parse(buf.subarray(4, 4 + hlen).toString('utf8')) as Header;
    if (header.format !== FORMAT || header.identity.path !== key || !accept(header.identity)) return undefined;
    const body = buf.subarray(4 + hlen);
    // Copy into an aligned buffer of its own: the table is kept for the index's life.
    // An entry whose table does not cover exactly its size is not trusted at all.
    if (body.length !== 4 * Math.max(0, blockCount(header.identity.size) - 1)) return undefined;
    const cum = new Uint32Array(body.length / 4);
    new Uint8Array(cum.buffer).set(body);
    return new LineIndex({
      // The index reads through the path it was asked for (maybe an open file's).
      identity: { ...header.identity, path },
      head: header.head,
      tail: header.tail,
      table: BlockTable.fromBuffers(cum, header.wraps),
      indexedBytes: header.identity.size,
      newlines: header.newlines,
      facts: header.facts,
      lastUnit: header.lastUnit,
      firstBytes: header.firstBytes,
      layout: header.layout,
    });
  } catch {
    return undefined;
  }
}

export function saveIndex(index: LineIndex): void {
  const bytes = indexToBytes(index, cacheKeyOf(index.identity.path));
  const file = cacheFile(index.identity.path);
  mkdirSync(cacheDir(), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, file);
}

/** The cached index of `path` for this device and inode, or undefined. The caller checks freshness. */
export function loadIndex(path: string, now: FileIdentity): LineIndex | undefined {
  let buf: Buffer;
  try {
    buf = readFileSync(cacheFile(path));
  } catch {
    return undefined;
  }
  return indexFromBytes(buf, path, cacheKeyOf(path), (id) => id.dev === now.dev && id.ino === now.ino);
}

export function dropIndex(path: string): void {
  rmSync(cacheFile(path), { force: true });
}
