/**
 * Values of a JSON document addressed by JSONPath (`$...`, jsonpath-plus) or JSON
 * Pointer (`/...`, RFC 6901), located in the source text, and edits at a path
 * (set, insert into an array, delete) computed with jsonc-parser's modify(), which
 * touches only the text it must and formats new text like the file (indent unit
 * and newline detected from the file; a one-line document stays on one line).
 *
 * A document is parsed whole, so JSON files are capped (JSON_LIMITS.maxBytes:
 * too_large above it). Invalid JSON is `parse_error` with line and column. Offsets
 * from the parser are UTF-16 positions; answers give bytes of the file.
 */
import { readFileSync } from 'node:fs';
import {
  applyEdits,
  findNodeAtLocation,
  getNodeValue,
  modify,
  parseTree,
  printParseErrorCode,
  type FormattingOptions,
  type Node,
  type ParseError,
} from 'jsonc-parser';
import { JSONPath } from 'jsonpath-plus';
import { FolioError } from '../errors.ts';
import { onStableVersion, type TextVersion } from '../read/text-version.ts';

export const JSON_LIMITS = {
  /** largest JSON file (or JSON Lines line) parsed whole */
  maxBytes: 32 * 1024 * 1024,
  /** most matches one query returns */
  maxMatches: 10_000,
};

export type Segment = string | number;

export interface JsonDoc {
  text: string;
  root: Node;
}

/** Parse `text` strictly (no comments, no trailing commas); parse_error with line and column otherwise. */
export function parseJson(text: string, where: { path: string; firstLine?: number }): JsonDoc {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  if (errors.length || !root) {
    const e = errors[0];
    const offset = e?.offset ?? 0;
    const before = text.slice(0, offset);
    const line = (before.match(/\n/g)?.length ?? 0) + (where.firstLine ?? 1);
    const column = offset - (before.lastIndexOf('\n') + 1) + 1;
    throw new FolioError('parse_error', `invalid JSON in ${where.path} at line ${line}, column ${column}: ${e ? printParseErrorCode(e.error) : 'no value'}`, {
      path: where.path,
      line,
      column,
      error: e ? printParseErrorCode(e.error) : 'ValueExpected',
    });
  }
  return { text, root };
}

export interface LoadedJson extends JsonDoc {
  v: TextVersion;
}

let last: LoadedJson | undefined;

/** The JSON file at `path`, parsed (the last one is kept per version). */
export async function loadJsonFile(path: string): Promise<LoadedJson> {
  const { v, result } = await onStableVersion(path, (v) => {
    if (v.size > JSON_LIMITS.maxBytes) {
      throw new FolioError('too_large', `${v.path} is ${v.size} bytes; JSON documents are parsed whole, up to ${JSON_LIMITS.maxBytes} bytes`, {
        path: v.path,
        size: v.size,
        limit: JSON_LIMITS.maxBytes,
        hint: 'read it by lines or bytes, or search it',
      });
    }
    if (last && last.v.path === v.path && last.v.version.etag === v.version.etag) return last;
    const text = readFileSync(v.path).subarray(v.bomLen).toString('utf8');
    return parseJson(text, { path: v.path });
  });
  last = { ...result, v };
  return last;
}

/** RFC 6901 pointer of segments. */
export function pointerOf(segments: Segment[]): string {
  return segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/** Segments of an RFC 6901 pointer, typed by the document (array indexes become numbers). */
function segmentsOfPointer(root: Node, pointer: string): Segment[] {
  if (pointer === '') return [];
  const out: Segment[] = [];
  let node: Node | undefined = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const isIndex: boolean = node?.type === 'array' && /^(0|[1-9]\d*)$/.test(key);
    out.push(isIndex ? Number(key) : key);
    node = node ? findNodeAtLocation(node, [isIndex ? Number(key) : key]) : undefined;
  }
  return out;
}

/** A JSONPath with only names and indexes (no wildcards, filters, unions, recursion) as segments; else null. */
function simplePathSegments(expr: string): Segment[] | null {
  if (/\*|\.\.|\?|,|:|@|\(/.test(expr)) return null;
  const parts = JSONPath.toPathArray(expr) as string[];
  if (parts[0] !== '$') return null;
  return parts.slice(1).map((p) => (/^(0|[1-9]\d*)$/.test(p) ? Number(p) : p));
}

function checkSyntax(expr: string): void {
  if (!expr.startsWith('$') && !expr.startsWith('/')) {
    throw new FolioError('invalid_input', `json_path "${expr}" must be a JSONPath starting with "$" or a JSON Pointer starting with "/"`, { json_path: expr });
  }
  if (expr.startsWith('$')) {
    let depth = 0;
    let quote: string | null = null;
    for (const c of expr) {
      if (quote) {
        if (c === quote) quote = null;
      } else if (c === "'" || c === '"') quote = c;
      else if (c === '[' || c === '(') depth++;
      else if (c === ']' || c === ')') depth--;
      if (depth < 0) break;
    }
    if (depth !== 0 || quote || /\.$|\.\.\.|\[\]/.test(expr)) {
      throw new FolioError('invalid_input', `json_path "${expr}" is not valid JSONPath (unbalanced brackets or quotes, or an empty step)`, { json_path: expr });
    }
  }
}

export interface JsonMatch {
  pointer: string;
  segments: Segment[];
  node: Node;
}

function keysAt(node: Node | undefined): string[] {
  if (!node) return [];
  if (node.type === 'object') return (node.children ?? []).map((p) => String(p.children?.[0]?.value)).slice(0, 50);
  if (node.type === 'array') return [`0..${(node.children?.length ?? 0) - 1}`];
  return [];
}

/** The deepest node that exists along `segments`, with its pointer. */
function deepestExisting(root: Node, segments: Segment[]): { pointer: string; node: Node } {
  let at: Segment[] = [];
  let node = root;
  for (const s of segments) {
    const next = findNodeAtLocation(node, [s]);
    if (!next) break;
    node = next;
    at = [...at, s];
  }
  return { pointer: pointerOf(at), node };
}

function notFound(doc: JsonDoc, expr: string, segments: Segment[] | null, path: string): FolioError {
  const near = segments ? deepestExisting(doc.root, segments) : { pointer: '', node: doc.root };
  return new FolioError('not_found', `no value at ${expr} in ${path}`, {
    path,
    json_path: expr,
    nearest: near.pointer,
    candidates: keysAt(near.node),
  });
}

/** The document's value, built once per parsed tree (a big document's value takes a while to build). */
const values = new WeakMap<Node, unknown>();
function valueOf(root: Node): unknown {
  if (!values.has(root)) values.set(root, getNodeValue(root));
  return values.get(root);
}

/** The values `expr` selects, in document order for a JSONPath. */
export function queryJson(doc: JsonDoc, expr: string, path: string): JsonMatch[] {
  checkSyntax(expr);
  if (expr.startsWith('/')) {
    const segments = segmentsOfPointer(doc.root, expr);
    const node = findNodeAtLocation(doc.root, segments);
    if (!node) throw notFound(doc, expr, segments, path);
    return [{ pointer: pointerOf(segments), segments, node }];
  }
  // Names and indexes only: walk the tree (no need to build the document's value).
  const simplePath = simplePathSegments(expr);
  if (simplePath) {
    // Typed by the document ("0" names a member of an object, an index of an array).
    const segments = segmentsOfPointer(doc.root, pointerOf(simplePath));
    const node = findNodeAtLocation(doc.root, segments);
    if (!node) throw notFound(doc, expr, segments, path);
    return [{ pointer: pointerOf(segments), segments, node }];
  }
  let results: { pointer: string }[];
  try {
    results = JSONPath({ path: expr, json: valueOf(doc.root) as object, resultType: 'all', eval: 'safe', wrap: true }) as { pointer: string }[];
  } catch (err) {
    throw new FolioError('invalid_input', `json_path "${expr}": ${err instanceof Error ? err.message : String(err)}`, { json_path: expr });
  }
  if (!results.length) throw notFound(doc, expr, simplePathSegments(expr), path);
  if (results.length > JSON_LIMITS.maxMatches) {
    throw new FolioError('too_large', `json_path "${expr}" selects ${results.length} values; at most ${JSON_LIMITS.maxMatches} per read`, {
      json_path: expr,
      matches: results.length,
      limit: JSON_LIMITS.maxMatches,
    });
  }
  return results.map((r) => {
    const segments = segmentsOfPointer(doc.root, r.pointer);
    return { pointer: r.pointer, segments, node: findNodeAtLocation(doc.root, segments)! };
  });
}

/** The one location an edit addresses: a single match, or (for set) a simple path that does not exist yet. */
export function editLocation(doc: JsonDoc, expr: string, path: string, mayCreate: boolean): Segment[] {
  checkSyntax(expr);
  let matches: JsonMatch[];
  try {
    matches = queryJson(doc, expr, path);
  } catch (err) {
    if (!(err instanceof FolioError) || err.code !== 'not_found' || !mayCreate) throw err;
    const segments = expr.startsWith('/') ? segmentsOfPointer(doc.root, expr) : simplePathSegments(expr);
    // A new member or item: its parent must exist.
    if (!segments || !segments.length || !findNodeAtLocation(doc.root, segments.slice(0, -1))) throw err;
    return segments;
  }
  if (matches.length > 1) {
    throw new FolioError('ambiguous', `json_path "${expr}" selects ${matches.length} values; an edit needs exactly one`, {
      path,
      json_path: expr,
      candidates: matches.slice(0, 50).map((m) => m.pointer),
    });
  }
  return matches[0]!.segments;
}

/** How the file indents and ends lines, so inserted text looks like the rest; null for a one-line document. */
export function formattingOf(text: string): FormattingOptions | undefined {
  const body = text.trimEnd();
  if (!body.includes('\n')) return undefined;
  const indent = /\n([ \t]+)\S/.exec(body)?.[1] ?? '  ';
  return { insertSpaces: !indent.startsWith('\t'), tabSize: indent.startsWith('\t') ? 1 : indent.length, eol: body.includes('\r\n') ? '\r\n' : '\n' };
}

export type JsonEditOp = { op: 'set'; value: unknown } | { op: 'insert'; value: unknown; index?: number } | { op: 'delete' };

export interface JsonEdit {
  /** UTF-16 offsets in the old text: [start, end) is replaced by `replacement` */
  start: number;
  end: number;
  replacement: string;
  pointer: string;
}

/** The smallest replacement of the text that performs `edit` at `expr`. */
export function jsonEdit(doc: JsonDoc, expr: string, edit: JsonEditOp, path: string): JsonEdit {
  let segments = editLocation(doc, expr, path, edit.op === 'set');
  const options = { formattingOptions: formattingOf(doc.text) };
  let value: unknown;
  let isArrayInsertion = false;
  if (edit.op === 'insert') {
    const node = findNodeAtLocation(doc.root, segments);
    if (node?.type !== 'array') {
      throw new FolioError('invalid_input', `insert needs an array at ${expr}; it is ${node?.type ?? 'missing'} (use set for object members)`, {
        json_path: expr,
        type: node?.type ?? null,
      });
    }
    const length = node.children?.length ?? 0;
    const index = edit.index ?? length;
    if (!Number.isInteger(index) || index < 0 || index > length) {
      throw new FolioError('out_of_bounds', `insert index ${index} is outside the array (length ${length})`, { json_path: expr, index, length });
    }
    segments = [...segments, index];
    value = edit.value;
    isArrayInsertion = true;
  } else if (edit.op === 'set') {
    value = edit.value;
  } else {
    if (!segments.length) throw new FolioError('invalid_input', 'cannot delete the whole document', { json_path: expr });
    value = undefined;
  }
  if (edit.op !== 'delete' && value === undefined) throw new FolioError('invalid_input', `${edit.op} needs a value`, { op: edit.op });
  if (!segments.length) {
    // The root: replace the whole value (modify() cannot set the root).
    const root = doc.root;
    return { start: root.offset, end: root.offset + root.length, replacement: JSON.stringify(value, null, indentOf(options.formattingOptions)), pointer: '' };
  }
  const edits = modify(doc.text, segments, value, { ...options, isArrayInsertion });
  if (!edits.length) return { start: 0, end: 0, replacement: '', pointer: pointerOf(segments) };
  const start = Math.min(...edits.map((e) => e.offset));
  const end = Math.max(...edits.map((e) => e.offset + e.length));
  const after = applyEdits(doc.text, edits);
  return { start, end, replacement: after.slice(start, after.length - (doc.text.length - end)), pointer: pointerOf(segments) };
}

function indentOf(f: FormattingOptions | undefined): string | undefined {
  if (!f) return undefined;
  return f.insertSpaces === false ? '\t' : ' '.repeat(f.tabSize ?? 2);
}

/** UTF-8 byte offsets of UTF-16 offsets into `text` (in any order), and the 0-based line of each. */
export function locate(text: string, offsets: number[]): { byte: number; lineIdx: number }[] {
  const order = offsets.map((o, i) => [o, i] as const).sort((a, b) => a[0] - b[0]);
  const out: { byte: number; lineIdx: number }[] = new Array(offsets.length);
  let at = 0;
  let byte = 0;
  let lineIdx = 0;
  for (const [o, i] of order) {
    const piece = text.slice(at, o);
    byte += Buffer.byteLength(piece);
    for (let k = piece.indexOf('\n'); k >= 0; k = piece.indexOf('\n', k + 1)) lineIdx++;
    at = o;
    out[i] = { byte, lineIdx };
  }
  return out;
}
