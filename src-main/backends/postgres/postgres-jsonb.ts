/**
 * JSON addressing of a jsonb value (pg://TABLE/KEY/COLUMN of a jsonb column), for
 * the api's JSON reads and JSON-target upserts (api/read-address.ts,
 * api/upsert-address.ts):
 *
 * - Reads: the query runs in PostgreSQL (postgres-jsonpath.ts), which returns only
 *   the selected nodes with their locations and byte offsets in the value's text,
 *   and the version they belong to (xmin@ctid, read in the same statement).
 * - Edits: the address is located on the value's text by the same rules as a file's
 *   (json-address.ts editLocation: exactly one node; set may create a member or the
 *   next item; ambiguous / not_found otherwise), PostgreSQL computes the new value
 *   with jsonb_set / jsonb_insert / #- on that version, and the edit becomes the
 *   smallest splice of the printed text: the upsert the engine already journals,
 *   routes to review and undoes. PostgresBackend.replace writes it in one UPDATE
 *   guarded by xmin and ctid, and only if PostgreSQL prints the result as exactly
 *   the spliced text.
 */
import { FolioError } from '../../engine/errors.ts';
import { etagOf } from '../../engine/index/identity.ts';
import type { Version } from '../../engine/read/file-facts.ts';
import { JSON_LIMITS, editLocation, insertIndexOf, parseJson, type JsonEditOp } from '../../engine/address/json-address.ts';
import { compileAddress, pointerOf, type Segment } from '../../engine/address/json-select.ts';
import { PostgresBackend } from './postgres.ts';
import { Untranslatable } from './postgres-jsonpath.ts';
import { openBackend } from '../../engine/backend/registry.ts';
import { remoteIdentity } from '../../engine/backend/remote-index.ts';
import type { BackendVersion } from '../../engine/backend/types.ts';

function versionOf(locator: string, v: BackendVersion): Version {
  const id = remoteIdentity(locator, v);
  return { etag: etagOf(id), size: v.size, mtimeMs: id.mtimeMs };
}

/** The backend of a pg:// locator, or null for any other locator. */
async function postgresOf(locator: string): Promise<PostgresBackend | null> {
  if (!locator.startsWith('pg://')) return null;
  const b = await openBackend(locator);
  return b instanceof PostgresBackend ? b : null;
}

export interface JsonbMatch {
  pointer: string;
  segments: Segment[];
  /** the node's text as PostgreSQL prints it */
  text: string;
  startByte: number;
  endByte: number;
}

export type JsonbQueryAnswer =
  | { kind: 'matches'; locator: string; version: Version; matches: JsonbMatch[] }
  /** a construct PostgreSQL has no exact form for: the caller evaluates the query over the text */
  | { kind: 'untranslatable'; construct: string };

/**
 * The nodes `expr` selects in the jsonb value `locator` names, found by PostgreSQL;
 * null if it is not a jsonb value. not_found for no node, too_large past `maxMatches`
 * (as for files); invalid_input (with position) for a malformed address.
 */
export async function queryJsonb(locator: string, expr: string, maxMatches: number): Promise<JsonbQueryAnswer | null> {
  const pg = await postgresOf(locator);
  if (!pg) return null;
  const address = compileAddress(expr);
  let sel;
  try {
    sel = await pg.jsonbSelect(address, maxMatches + 1);
  } catch (err) {
    if (err instanceof Untranslatable) return { kind: 'untranslatable', construct: err.construct };
    throw err;
  }
  if (!sel) return null;
  if (!sel.nodes.length) {
    throw new FolioError('not_found', `no value at ${expr} in ${pg.locator}`, { path: pg.locator, json_path: expr });
  }
  if (sel.nodes.length > maxMatches) {
    throw new FolioError('too_large', `json_path "${expr}" selects more than ${maxMatches} values; at most ${maxMatches} per read`, {
      json_path: expr,
      limit: maxMatches,
    });
  }
  return {
    kind: 'matches',
    locator: pg.locator,
    version: versionOf(pg.locator, sel.version),
    matches: sel.nodes.map((n) => ({
      pointer: pointerOf(n.segments),
      segments: n.segments,
      text: n.text,
      startByte: n.startByte,
      endByte: n.startByte + Buffer.byteLength(n.text),
    })),
  };
}

export interface JsonbSplice {
  locator: string;
  /** the version the edit was computed on: the upsert's if_match */
  version: Version;
  /** bytes [startByte, endByte) of the value's text become `replacement` */
  startByte: number;
  endByte: number;
  replacement: string;
  pointer: string;
}

/**
 * The edit `edit` at `expr` of the jsonb value `locator` as a splice of its text,
 * computed by PostgreSQL on the version read; null if it is not a jsonb value.
 */
export async function jsonbSpliceOf(locator: string, expr: string, edit: JsonEditOp): Promise<JsonbSplice | null> {
  const pg = await postgresOf(locator);
  if (!pg || !(await pg.isJsonb())) return null;
  // The edit is located on the parsed text, as a file's: the same size cap (not the value into memory first).
  const size = (await pg.stat()).size;
  if (size > JSON_LIMITS.maxBytes) {
    throw new FolioError('too_large', `${pg.locator} is ${size} bytes; JSON edits parse the value whole, up to ${JSON_LIMITS.maxBytes} bytes`, {
      path: pg.locator,
      size,
      limit: JSON_LIMITS.maxBytes,
      hint: 'edit it with an UPDATE … jsonb_set in SQL, or by its text (lines, bytes)',
    });
  }
  const before = await pg.jsonbText();
  if (!before) return null;
  const doc = parseJson(before.text, { path: pg.locator });
  let segments = editLocation(doc, expr, pg.locator, edit.op === 'set');
  const path = (s: Segment[]) => s.map(String);
  let after: string;
  if (edit.op === 'insert') {
    const { index, length } = insertIndexOf(doc, segments, expr, edit.index);
    segments = [...segments, index];
    // jsonb_insert puts the value before item `index`; past the last item, jsonb_set appends it.
    after = await pg.jsonbEdited(before.version.token, { op: 'insert', path: path(segments), value: edit.value, append: index === length });
  } else if (edit.op === 'set') {
    if (edit.value === undefined) throw new FolioError('invalid_input', 'set needs a value', { op: 'set' });
    after = await pg.jsonbEdited(before.version.token, { op: 'set', path: path(segments), value: edit.value });
  } else {
    if (!segments.length) throw new FolioError('invalid_input', 'cannot delete the whole document', { json_path: expr });
    after = await pg.jsonbEdited(before.version.token, { op: 'delete', path: path(segments) });
  }
  return { locator: pg.locator, version: versionOf(pg.locator, before.version), ...spliceOf(before.text, after), pointer: pointerOf(segments) };
}

/** The smallest replacement turning `a` into `b`, in UTF-8 bytes of `a` (never inside a character). */
function spliceOf(a: string, b: string): { startByte: number; endByte: number; replacement: string } {
  let pre = 0;
  const max = Math.min(a.length, b.length);
  while (pre < max && a.charCodeAt(pre) === b.charCodeAt(pre)) pre++;
  // Not between the halves of a surrogate pair.
  if (pre > 0 && pre < max && isHigh(a.charCodeAt(pre - 1))) pre--;
  let suf = 0;
  while (suf < max - pre && a.charCodeAt(a.length - 1 - suf) === b.charCodeAt(b.length - 1 - suf)) suf++;
  if (suf > 0 && suf < max - pre && isLow(a.charCodeAt(a.length - suf))) suf--;
  const startByte = Buffer.byteLength(a.slice(0, pre));
  return { startByte, endByte: startByte + Buffer.byteLength(a.slice(pre, a.length - suf)), replacement: b.slice(pre, b.length - suf) };
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
