/**
 * Values of a JSON document addressed by JSONPath (`$...`, RFC 9535) or JSON
 * Pointer (`/...`, RFC 6901) (json-select.ts decides which nodes an address
 * selects), located in the source text, and edits at a path
 * (set, insert into an array, delete) computed with jsonc-parser's modify(), which
 * touches only the text it must and formats new text like the file (indent unit
 * and newline detected from the file; a one-line document stays on one line).
 *
 * A document up to JSON_LIMITS.maxBytes is parsed whole; a bigger one is streamed
 * (json-large.ts, same answers). Invalid JSON is `parse_error` with line and column. Offsets
 * from the parser are UTF-16 positions; answers give bytes of the file.
 */
import { openSource } from '../index/identity.ts';
import { applyEdits, modify, parseTree, printParseErrorCode, type FormattingOptions, type Node, type ParseError } from 'jsonc-parser';
import { FolioError } from '../errors.ts';
import { onStableVersion, type TextVersion } from '../read/text-version.ts';
import { compileAddress, intendedLocation, nodeAt, pointerOf, selectNodes, type JsonAddress, type Segment } from './json-select.ts';

export { jsonValueOf, type Segment } from './json-select.ts';

export const JSON_LIMITS = {
  /** largest JSON file (or JSON Lines line) parsed whole; a bigger file is streamed, a bigger line is too_large */
  maxBytes: 32 * 1024 * 1024,
  /** most matches one query returns */
  maxMatches: 10_000,
};

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
  const { v, result } = await onStableVersion(path, async (v) => {
    if (v.size > JSON_LIMITS.maxBytes) {
      throw new FolioError('too_large', `${v.path} is ${v.size} bytes; JSON documents are parsed whole, up to ${JSON_LIMITS.maxBytes} bytes`, {
        path: v.path,
        size: v.size,
        limit: JSON_LIMITS.maxBytes,
        hint: 'read it by lines or bytes, or search it',
      });
    }
    if (last && last.v.path === v.path && last.v.version.etag === v.version.etag) return last;
    // Awaited through the value's source: a remote document is read in one pass, never re-run.
    const src = openSource(v.path);
    let bytes: Uint8Array;
    try {
      bytes = await src.readAt(v.bomLen, v.size - v.bomLen);
    } finally {
      src.close();
    }
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    return parseJson(text, { path: v.path });
  });
  last = { ...result, v };
  return last;
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
    const next = nodeAt(node, [s]);
    if (!next) break;
    node = next;
    at = [...at, s];
  }
  return { pointer: pointerOf(at), node };
}

function notFound(doc: JsonDoc, expr: string, address: JsonAddress, path: string): FolioError {
  const segments = intendedLocation(doc.root, address);
  const near = segments ? deepestExisting(doc.root, segments) : { pointer: '', node: doc.root };
  return new FolioError('not_found', `no value at ${expr} in ${path}`, {
    path,
    json_path: expr,
    nearest: near.pointer,
    candidates: keysAt(near.node),
  });
}

/** The values `expr` selects, in the order RFC 9535 gives (document order): not_found for none, too_large past maxMatches. */
export function queryJson(doc: JsonDoc, expr: string, path: string): JsonMatch[] {
  const address = compileAddress(expr);
  const { nodes, more } = selectNodes(doc.root, address, JSON_LIMITS.maxMatches);
  if (!nodes.length) throw notFound(doc, expr, address, path);
  if (more) {
    throw new FolioError('too_large', `json_path "${expr}" selects more than ${JSON_LIMITS.maxMatches} values; at most ${JSON_LIMITS.maxMatches} per read`, {
      json_path: expr,
      limit: JSON_LIMITS.maxMatches,
    });
  }
  return nodes.map((n) => ({ pointer: pointerOf(n.segments), segments: n.segments, node: n.node }));
}

/** The one location an edit addresses: a single match, or (for set) a member or next item that does not exist yet. */
export function editLocation(doc: JsonDoc, expr: string, path: string, mayCreate: boolean): Segment[] {
  let matches: JsonMatch[];
  try {
    matches = queryJson(doc, expr, path);
  } catch (err) {
    if (!(err instanceof FolioError) || err.code !== 'not_found' || !mayCreate) throw err;
    const segments = intendedLocation(doc.root, compileAddress(expr));
    // A new member of an existing object, or the item just past the end of an existing array.
    const last = segments?.at(-1);
    const parent = segments?.length ? nodeAt(doc.root, segments.slice(0, -1)) : undefined;
    const creates =
      (typeof last === 'string' && parent?.type === 'object') ||
      (typeof last === 'number' && parent?.type === 'array' && last === (parent.children?.length ?? 0));
    if (!creates) throw err;
    return segments!;
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

/** Where an insert at `segments` goes: the array there and the index (its length by default); typed errors otherwise. */
export function insertIndexOf(doc: JsonDoc, segments: Segment[], expr: string, wanted: number | undefined): { index: number; length: number } {
  const node = nodeAt(doc.root, segments);
  if (node?.type !== 'array') {
    throw new FolioError('invalid_input', `insert needs an array at ${expr}; it is ${node?.type ?? 'missing'} (use set for object members)`, {
      json_path: expr,
      type: node?.type ?? null,
    });
  }
  const length = node.children?.length ?? 0;
  const index = wanted ?? length;
  if (!Number.isInteger(index) || index < 0 || index > length) {
    throw new FolioError('out_of_bounds', `insert index ${index} is outside the array (length ${length})`, { json_path: expr, index, length });
  }
  return { index, length };
}

/** The smallest replacement of the text that performs `edit` at `expr`. */
export function jsonEdit(doc: JsonDoc, expr: string, edit: JsonEditOp, path: string): JsonEdit {
  let segments = editLocation(doc, expr, path, edit.op === 'set');
  const options = { formattingOptions: formattingOf(doc.text) };
  let value: unknown;
  let isArrayInsertion = false;
  if (edit.op === 'insert') {
    segments = [...segments, insertIndexOf(doc, segments, expr, edit.index).index];
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
  const arrayDelete = edit.op === 'delete' ? arrayItemRemoval(doc.root, segments) : undefined;
  const edits = arrayDelete ? [arrayDelete] : modify(doc.text, segments, value, { ...options, isArrayInsertion });
  if (!edits.length) return { start: 0, end: 0, replacement: '', pointer: pointerOf(segments) };
  const start = Math.min(...edits.map((e) => e.offset));
  const end = Math.max(...edits.map((e) => e.offset + e.length));
  const after = applyEdits(doc.text, edits);
  assertStillJson(after, expr);
  return { start, end, replacement: after.slice(start, after.length - (doc.text.length - end)), pointer: pointerOf(segments) };
}

/**
 * The removal of an array item with its separator. jsonc-parser 3.3.1's modify()
 * gets this wrong when the last item is an array or object (`[1, []]` → `[1]]`,
 * microsoft/node-jsonc-parser#108, fixed only in 4.0 pre-releases), so array
 * deletes are cut here: an item and the comma after it, the last item and the
 * comma before it, or an only item leaving `[]`.
 */
function arrayItemRemoval(root: Node, segments: Segment[]): { offset: number; length: number; content: string } | undefined {
  const index = segments[segments.length - 1];
  const parent = nodeAt(root, segments.slice(0, -1));
  if (typeof index !== 'number' || parent?.type !== 'array' || !parent.children?.[index]) return undefined;
  const items = parent.children;
  const item = items[index]!;
  const cut = (from: number, to: number) => ({ offset: from, length: to - from, content: '' });
  if (items.length === 1) return cut(parent.offset + 1, parent.offset + parent.length - 1);
  if (index < items.length - 1) return cut(item.offset, items[index + 1]!.offset);
  const before = items[index - 1]!;
  return cut(before.offset + before.length, item.offset + item.length);
}

/** A JSON edit never leaves a file that is not JSON: if the computed text does not parse, nothing is written. */
function assertStillJson(text: string, expr: string): void {
  const errors: ParseError[] = [];
  parseTree(text, errors, { allowTrailingComma: false, disallowComments: true });
  if (errors.length) {
    throw new FolioError(
      'parse_error',
      `the edit at ${expr} would leave text that is not JSON (${printParseErrorCode(errors[0]!.error)} at ${errors[0]!.offset}); nothing written`,
      {
        json_path: expr,
      },
    );
  }
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
