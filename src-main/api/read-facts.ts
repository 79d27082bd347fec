/**
 * Where a read's bytes came from and what they are, as the partial-read guideline
 * names them: `source` (file, object-storage, db) and `content_type` (a MIME type
 * with the charset the text was decoded from). Judged from the name the caller gave
 * (an agent's pinned /proc/self/fd path has none: the agent door passes the real
 * one), the encoding the read found, and its mode.
 */
import { schemeOf } from '../engine/backend/locator.ts';

export type ReadSource = 'file' | 'object-storage' | 'db';

/** By extension (a compressed file's inner one: app.log.gz is a log). */
const TYPES: Record<string, string> = {
  json: 'application/json',
  jsonl: 'application/jsonl',
  ndjson: 'application/jsonl',
  md: 'text/markdown',
  markdown: 'text/markdown',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  html: 'text/html',
  htm: 'text/html',
  xml: 'application/xml',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  toml: 'application/toml',
  sql: 'application/sql',
  js: 'text/javascript',
  mjs: 'text/javascript',
  cjs: 'text/javascript',
  ts: 'text/x-typescript',
  css: 'text/css',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  zip: 'application/zip',
  wasm: 'application/wasm',
};
const COMPRESSED = /\.(gz|zst|bz2|xz)$/i;

export function readSourceOf(path: string): ReadSource {
  const scheme = schemeOf(path);
  return scheme === 'pg' ? 'db' : scheme === 'file' ? 'file' : 'object-storage';
}

/** `text/markdown; charset=utf-8`, `application/json` (JSON is UTF-8 by definition), `application/octet-stream` … */
export function contentTypeOf(path: string, encoding: string, mode: string): string {
  const name = path.replace(COMPRESSED, '');
  const ext = /\.([A-Za-z0-9]+)$/.exec(name.slice(name.lastIndexOf('/') + 1))?.[1]?.toLowerCase();
  const type = mode === 'json' ? 'application/json' : (ext && TYPES[ext]) || (encoding === 'binary' ? 'application/octet-stream' : 'text/plain');
  if (encoding === 'binary' || encoding === 'unknown' || (type === 'application/json' && encoding === 'utf-8')) return type;
  return type.startsWith('image/') && type !== 'image/svg+xml' ? type : `${type}; charset=${encoding}`;
}

/** `answer` with its source and content type, judged from `path` (the name the caller knows). */
export function withReadFacts<T extends { encoding: string; mode: string }>(answer: T, path: string): T & { source: ReadSource; content_type: string } {
  return { ...answer, source: readSourceOf(path), content_type: contentTypeOf(path, answer.encoding, answer.mode) };
}
