/**
 * The version of a text file that whole-file readers (markdown outline, JSON
 * documents, token maps) work on: binary and UTF-16 files are refused as `read`
 * refuses them, and `unchanged()` tells whether the file still is that version
 * after it was scanned, so a scan that raced a writer is redone, never cached.
 */
import { FolioError } from '../errors.ts';
import { binaryFileError, factsOf, type Version } from './file-facts.ts';
import { etagOf, statRegularFile } from '../index/identity.ts';

export interface TextVersion {
  /** absolute path */
  path: string;
  version: Version;
  size: number;
  /** 3 with a UTF-8 byte-order mark, else 0 */
  bomLen: number;
  /** total lines when the index is complete */
  totalLines: number | null;
}

export async function textVersionOf(path: string): Promise<TextVersion> {
  const facts = await factsOf(path, { hash: false });
  if (facts.verdict.isBinary) throw binaryFileError(facts);
  if (facts.encoding !== 'utf-8') {
    throw new FolioError(
      'encoding_mismatch',
      `${facts.identity.path} is ${facts.encoding}; sections, JSON paths and tokens address UTF-8 (and ASCII) files only: read it by lines, bytes or pages`,
      { path: facts.identity.path, encoding: facts.encoding },
    );
  }
  return {
    path: facts.identity.path,
    version: facts.version,
    size: facts.identity.size,
    bomLen: facts.bom ? 3 : 0,
    totalLines: facts.totalLines,
  };
}

/** The file is still version `v` (same etag: inode, size, mtime, ctime). */
export function unchanged(v: TextVersion): boolean {
  return etagOf(statRegularFile(v.path)) === v.version.etag;
}

/** Run `scan` on a stable version of the file: rescans (up to 3 times) when a writer changed it meanwhile. */
export async function onStableVersion<T>(path: string, scan: (v: TextVersion) => T | Promise<T>): Promise<{ v: TextVersion; result: T }> {
  for (let attempt = 0; ; attempt++) {
    const v = await textVersionOf(path);
    const result = await scan(v);
    if (unchanged(v)) return { v, result };
    if (attempt >= 2) {
      throw new FolioError('conflict', `${v.path} kept changing while it was being read; try again`, { path: v.path, current_version: v.version });
    }
  }
}
