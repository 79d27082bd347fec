/**
 * Locators: where a resource lives, as one string wherever a path goes.
 * - a plain path: a local file;
 * - `pg://TABLE/KEY/COLUMN`: the value of COLUMN (text, bytea or jsonb) in the row
 *   of TABLE (`schema.table` or `table`) whose primary key is KEY;
 * - `az://CONTAINER/BLOB`: an Azure blob; `s3://BUCKET/KEY`: an S3 object.
 * Segments are percent-decoded (a KEY holding '/' is written `%2F`); BLOB and S3
 * KEY keep their '/' (they are object names).
 */
import { FolioError } from '../errors.ts';
import type { BackendScheme } from './types.ts';

export type Locator =
  | { scheme: 'file'; path: string }
  | { scheme: 'pg'; table: string; key: string; column: string }
  | { scheme: 'az'; container: string; blob: string }
  | { scheme: 's3'; bucket: string; key: string };

const REMOTE = /^(pg|az|s3):\/\//;

/** Whether `s` names a remote resource (anything else is a local path). */
export function isRemoteLocator(s: string): boolean {
  return REMOTE.test(s);
}

export function schemeOf(s: string): BackendScheme {
  const m = REMOTE.exec(s);
  return m ? (m[1] as BackendScheme) : 'file';
}

function bad(locator: string, why: string, form: string): FolioError {
  return new FolioError('invalid_input', `bad locator ${JSON.stringify(locator)}: ${why} (the form is ${form})`, { locator, expected: form });
}

function decode(locator: string, seg: string, form: string): string {
  try {
    return decodeURIComponent(seg);
  } catch {
    throw bad(locator, `"${seg}" is not percent-encoded correctly`, form);
  }
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_$]*$/;

export function parseLocator(s: string): Locator {
  const scheme = schemeOf(s);
  if (scheme === 'file') return { scheme, path: s };
  const rest = s.slice(scheme.length + 3);
  if (scheme === 'pg') {
    const form = 'pg://TABLE/KEY/COLUMN';
    const parts = rest.split('/');
    if (parts.length !== 3 || parts.some((p) => p === '')) throw bad(s, 'it needs three non-empty parts', form);
    const [table, key, column] = parts.map((p) => decode(s, p, form)) as [string, string, string];
    const names = table.split('.');
    if (names.length > 2 || !names.every((n) => IDENT.test(n)))
      throw bad(s, `"${table}" is not a table name (letters, digits, _; optionally schema.table)`, form);
    if (!IDENT.test(column)) throw bad(s, `"${column}" is not a column name`, form);
    return { scheme, table, key, column };
  }
  const form = scheme === 'az' ? 'az://CONTAINER/BLOB' : 's3://BUCKET/KEY';
  const at = rest.indexOf('/');
  if (at <= 0 || at === rest.length - 1) throw bad(s, 'it needs a container (bucket) and a name', form);
  const first = decode(s, rest.slice(0, at), form);
  const name = decode(s, rest.slice(at + 1), form);
  return scheme === 'az' ? { scheme, container: first, blob: name } : { scheme, bucket: first, key: name };
}

/** The canonical string of a locator (what answers and the journal carry). */
export function formatLocator(l: Locator): string {
  const enc = (v: string) => encodeURIComponent(v);
  switch (l.scheme) {
    case 'file':
      return l.path;
    case 'pg':
      return `pg://${l.table}/${enc(l.key)}/${l.column}`;
    case 'az':
      return `az://${enc(l.container)}/${l.blob.split('/').map(enc).join('/')}`;
    case 's3':
      return `s3://${enc(l.bucket)}/${l.key.split('/').map(enc).join('/')}`;
  }
}

/**
 * The name the agent policy matches with its globs: `pg/TABLE/KEY/COLUMN`,
 * `az/CONTAINER/BLOB`, `s3/BUCKET/KEY` (decoded), so `pg/docs/**` allows every
 * value of table docs and `s3/logs/2026/**` a key prefix.
 */
export function policyNameOf(l: Locator): string {
  switch (l.scheme) {
    case 'file':
      return l.path;
    case 'pg':
      return `pg/${l.table}/${l.key}/${l.column}`;
    case 'az':
      return `az/${l.container}/${l.blob}`;
    case 's3':
      return `s3/${l.bucket}/${l.key}`;
  }
}
