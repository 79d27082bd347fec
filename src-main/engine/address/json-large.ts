/**
 * JSON reads and edits of documents past the in-memory cap (JSON_LIMITS.maxBytes),
 * streamed through json-stream.ts: the same answers as json-address.ts gives in
 * memory (selection, not_found with the nearest pointer, ambiguous, too_large),
 * positions in bytes of the file.
 *
 * An edit is computed as jsonc-parser's modify() computes it (the same edit for
 * set, insert and delete, formatted by its `format` like the file), but over the
 * lines around the edit only: modify() formats nothing outside the lines it
 * touches, so the window gives the same bytes. Array deletes cut as
 * json-address.ts cuts them.
 */
import { applyEdits, format, type FormattingOptions } from 'jsonc-parser';
import { FolioError } from '../errors.ts';
import { JSONPathQuery } from 'json-p3';
import { compileAddress, environmentOf, isFilterSegment, MAX_SCOPE_NODES, pointerOf, type JsonAddress, type Segment } from './json-select.ts';
import { JsonScanError, JsonStream, type StreamNode } from './json-stream.ts';
import { StreamQuery } from './json-stream-query.ts';
import { JSON_LIMITS, formattingOf, type JsonEditOp } from './json-address.ts';
import { openSource } from '../index/identity.ts';
import { openIndex } from '../index/store.ts';
import { onStableVersion, type TextVersion } from '../read/text-version.ts';

const INTEGER_LIKE = /^(0|[1-9]\d*)$/;

export interface LargeJson {
  js: JsonStream;
  path: string;
  /** where a byte offset is in the file: 1-based line and column (bytes) */
  where(offset: number): Promise<{ line: number; column: number }>;
}

/** Whether the JSON text of version `v` is past the in-memory cap (then it is streamed). */
export const isLargeJson = (v: TextVersion): boolean => v.size - v.bomLen > JSON_LIMITS.maxBytes;

/**
 * Run `fn` over the JSON file at `path` streamed (or over its line `jsonlLine`, a
 * JSON Lines line past the cap), on a stable version (rerun if a writer changed
 * the file meanwhile, as onStableVersion does).
 */
export async function withLargeJson<T>(
  path: string,
  fn: (doc: LargeJson, v: TextVersion) => Promise<T>,
  jsonlLine?: number,
): Promise<{ v: TextVersion; result: T }> {
  return onStableVersion(path, async (v) => {
    // The whole file, or one line of a JSON Lines file (without its newline).
    let [from, to] = [v.bomLen, v.size];
    if (jsonlLine !== undefined) {
      const index = await openIndex(v.path);
      from = index.lineStart(jsonlLine - 1);
      if (from < 0) throw new FolioError('invalid_range', `line ${jsonlLine} is past the end of ${v.path}`, { line: jsonlLine, total_lines: index.lineCount });
      to = index.lineEnd(jsonlLine - 1);
    }
    const src = openSource(v.path);
    try {
      const js = new JsonStream(src, from, to, { maxValueBytes: JSON_LIMITS.maxBytes });
      const where = async (offset: number) => {
        const index = await openIndex(v.path);
        const line = index.lineAt(offset);
        return { line: line + 1, column: offset - Math.max(0, index.lineStart(line)) + 1 };
      };
      return await fn({ js, path: v.path, where }, v);
    } finally {
      src.close();
    }
  });
}

/** A scan error as the in-memory parser reports it: parse_error with line and column. */
export async function scanErrorOf(doc: LargeJson, err: unknown): Promise<unknown> {
  if (!(err instanceof JsonScanError)) return err;
  const { line, column } = await doc.where(err.offset);
  return new FolioError('parse_error', `invalid JSON in ${doc.path} at line ${line}, column ${column}: ${err.error}`, {
    path: doc.path,
    line,
    column,
    byte: err.offset,
    error: err.error,
  });
}

/** Run `fn`, turning scan errors into parse_error. */
export async function scanning<T>(doc: LargeJson, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw await scanErrorOf(doc, err);
  }
}

/** The node a pointer or a singular query names, with its typed location, or the location alone. */
async function namedNode(js: JsonStream, address: JsonAddress): Promise<{ segments: Segment[]; node: StreamNode | undefined } | null> {
  let node: StreamNode | undefined = await js.root();
  const segments: Segment[] = [];
  const step = async (s: Segment) => {
    segments.push(s);
    if (node) node = await childAt(js, node, s);
  };
  if (address.kind === 'pointer') {
    for (const t of address.tokens) await step(node?.kind === 'array' && INTEGER_LIKE.test(t) ? Number(t) : t);
    return { segments, node };
  }
  if (!address.query.singularQuery()) return null;
  for (const segment of address.query.segments) {
    const sel = segment.selectors[0] as { name?: string; index?: number };
    if (sel.name !== undefined) await step(sel.name);
    else {
      let index = sel.index!;
      if (index < 0 && node?.kind === 'array') index += await js.count(node);
      await step(index);
    }
  }
  return { segments, node };
}

/**
 * filterScopeOf (json-select.ts) over a streamed document: null without a filter,
 * 'document' when a filter reads `$` or the scope has too many nodes, else the
 * nodes the segments before the first filter select.
 */
export async function streamFilterScope(doc: LargeJson, address: JsonAddress): Promise<'document' | StreamNode[] | null> {
  if (address.kind !== 'path') return null;
  const segments = address.query.segments;
  const first = segments.findIndex(isFilterSegment);
  if (first < 0) return null;
  if (segments.slice(first).some((seg) => isFilterSegment(seg) && seg.toString().includes('$'))) return 'document';
  return scanning(doc, async () => {
    if (first === 0) return [await doc.js.ended(await doc.js.root())];
    const nodes: StreamNode[] = [];
    const prefix = new StreamQuery(doc.js, new JSONPathQuery(environmentOf(), segments.slice(0, first)), environmentOf());
    for await (const n of prefix.select()) {
      if (nodes.length === MAX_SCOPE_NODES) return 'document';
      nodes.push(await doc.js.ended(n));
    }
    return nodes;
  });
}

export interface StreamMatch {
  pointer: string;
  segments: Segment[];
  node: StreamNode;
}

/** The values `expr` selects: not_found for none, too_large past maxMatches (as queryJson). */
export async function queryLargeJson(doc: LargeJson, expr: string, maxMatches: number): Promise<StreamMatch[]> {
  const address = compileAddress(expr);
  return scanning(doc, async () => {
    const { js } = doc;
    const named = await namedNode(js, address);
    let nodes: StreamNode[] = [];
    if (named) nodes = named.node ? [named.node] : [];
    else {
      const q = new StreamQuery(js, (address as { query: import('json-p3').JSONPathQuery }).query, environmentOf());
      for await (const n of q.select()) {
        if (nodes.length === maxMatches) {
          throw new FolioError('too_large', `json_path "${expr}" selects more than ${maxMatches} values; at most ${maxMatches} per read`, {
            json_path: expr,
            limit: maxMatches,
          });
        }
        nodes.push(n);
      }
    }
    if (!nodes.length) throw await notFound(doc, expr, named?.segments ?? null);
    for (const n of nodes) await js.ended(n);
    return nodes.map((node) => ({ pointer: pointerOf(node.segments), segments: node.segments, node }));
  });
}

async function keysAt(js: JsonStream, node: StreamNode): Promise<string[]> {
  if (node.kind === 'array') return [`0..${(await js.count(node)) - 1}`];
  const keys: string[] = [];
  if (node.kind === 'object') for await (const ch of js.children(node, false)) if (keys.push(String(ch.key)) === 50) break;
  return keys;
}

async function notFound(doc: LargeJson, expr: string, segments: Segment[] | null): Promise<FolioError> {
  const { js } = doc;
  let node = await js.root();
  const at: Segment[] = [];
  for (const s of segments ?? []) {
    const next = await childAt(js, node, s);
    if (!next) break;
    node = next;
    at.push(s);
  }
  return new FolioError('not_found', `no value at ${expr} in ${doc.path}`, {
    path: doc.path,
    json_path: expr,
    nearest: pointerOf(at),
    candidates: await keysAt(js, node),
  });
}

/** How a big file indents and ends lines, from its first MiB (formattingOf's rules). */
export async function largeFormattingOf(js: JsonStream): Promise<FormattingOptions | undefined> {
  return formattingOf(await js.text(js.base, Math.min(js.end, js.base + (1 << 20))));
}

export interface LargeJsonEdit {
  /** bytes [start, end) of the file are replaced by `replacement` */
  start: number;
  end: number;
  replacement: string;
  pointer: string;
}

interface RawEdit {
  offset: number;
  length: number;
  content: string;
}

/** The one location an edit addresses (json-address.ts editLocation's rules), with its node when it exists. */
async function editTarget(doc: LargeJson, expr: string, mayCreate: boolean, maxMatches: number): Promise<{ segments: Segment[]; node?: StreamNode }> {
  let matches: StreamMatch[];
  try {
    matches = await queryLargeJson(doc, expr, maxMatches);
  } catch (err) {
    if (!(err instanceof FolioError) || err.code !== 'not_found' || !mayCreate) throw err;
    const named = await scanning(doc, () => namedNode(doc.js, compileAddress(expr)));
    const segments = named?.segments;
    const last = segments?.at(-1);
    const parent = segments?.length ? await scanning(doc, () => nodeAtSegments(doc.js, segments.slice(0, -1))) : undefined;
    const creates =
      (typeof last === 'string' && parent?.kind === 'object') ||
      (typeof last === 'number' && parent?.kind === 'array' && last === (await doc.js.count(parent)));
    if (!creates) throw err;
    return { segments: segments! };
  }
  if (matches.length > 1) {
    throw new FolioError('ambiguous', `json_path "${expr}" selects ${matches.length} values; an edit needs exactly one`, {
      path: doc.path,
      json_path: expr,
      candidates: matches.slice(0, 50).map((m) => m.pointer),
    });
  }
  return { segments: matches[0]!.segments, node: matches[0]!.node };
}

async function nodeAtSegments(js: JsonStream, segments: Segment[]): Promise<StreamNode | undefined> {
  let node: StreamNode | undefined = await js.root();
  for (const s of segments) {
    if (!node) return undefined;
    node = await childAt(js, node, s);
  }
  return node;
}

/** The item (index) or member (name) of `node` a segment names. */
const childAt = (js: JsonStream, node: StreamNode, s: Segment): Promise<StreamNode | undefined> =>
  typeof s === 'number' ? js.item(node, s) : js.member(node, s);

/** The children of `parent` around child `index` (all children counted, duplicates too, as jsonc-parser's tree has them). */
async function neighbours(js: JsonStream, parent: StreamNode, pick: (key: Segment, i: number) => boolean) {
  let prev: { node: StreamNode; keyStart: number } | undefined;
  let found: { node: StreamNode; keyStart: number; index: number } | undefined;
  let next: { node: StreamNode; keyStart: number } | undefined;
  let count = 0;
  for await (const ch of js.children(parent, false)) {
    if (found && !next) next = ch;
    if (!found && pick(ch.key, count)) found = { ...ch, index: count };
    if (!found) prev = ch;
    count++;
    if (found && next) break;
  }
  return { prev, found, next, count };
}

/** The smallest replacement of the file's bytes that performs `edit` at `expr`. */
export async function largeJsonEdit(doc: LargeJson, expr: string, edit: JsonEditOp, maxMatches: number): Promise<LargeJsonEdit> {
  const { js } = doc;
  const target = await editTarget(doc, expr, edit.op === 'set', maxMatches);
  return scanning(doc, async () => {
    let segments = target.segments;
    const fmt = await largeFormattingOf(js);
    if (edit.op !== 'delete' && edit.value === undefined) throw new FolioError('invalid_input', `${edit.op} needs a value`, { op: edit.op });
    if (edit.op === 'insert') {
      const node = target.node;
      if (node?.kind !== 'array') {
        const type = node ? await typeOf(js, node) : null;
        throw new FolioError('invalid_input', `insert needs an array at ${expr}; it is ${type ?? 'missing'} (use set for object members)`, {
          json_path: expr,
          type,
        });
      }
      const length = await js.count(node);
      const index = edit.index ?? length;
      if (!Number.isInteger(index) || index < 0 || index > length) {
        throw new FolioError('out_of_bounds', `insert index ${index} is outside the array (length ${length})`, { json_path: expr, index, length });
      }
      segments = [...segments, index];
      const content = JSON.stringify(edit.value);
      const raw: RawEdit =
        length === 0 || index === 0
          ? { offset: node.start + 1, length: 0, content: length === 0 ? content : content + ',' }
          : await (async () => {
              const { found } = await neighbours(js, node, (_k, i) => i === index - 1);
              return { offset: found!.node.end, length: 0, content: ',' + content };
            })();
      return { ...(await formatted(js, raw, fmt)), pointer: pointerOf(segments) };
    }
    if (!segments.length) {
      if (edit.op === 'delete') throw new FolioError('invalid_input', 'cannot delete the whole document', { json_path: expr });
      const root = await js.ended(await js.root());
      const indent = fmt ? (fmt.insertSpaces === false ? '\t' : ' '.repeat(fmt.tabSize ?? 2)) : undefined;
      return { start: root.start, end: root.end, replacement: JSON.stringify(edit.value, null, indent), pointer: '' };
    }
    const parent = (await nodeAtSegments(js, segments.slice(0, -1)))!;
    const last = segments.at(-1)!;
    const pointer = pointerOf(segments);
    if (edit.op === 'set') {
      const content = JSON.stringify(edit.value);
      if (target.node) return { ...(await formatted(js, { offset: target.node.start, length: target.node.end - target.node.start, content }, fmt)), pointer };
      // A new member (after the last one) or the item just past the end.
      const { prev, count } = await neighbours(js, parent, () => false);
      const entry = typeof last === 'string' ? `${JSON.stringify(last)}: ${content}` : content;
      const raw = count === 0 ? { offset: parent.start + 1, length: 0, content: entry } : { offset: prev!.node.end, length: 0, content: ',' + entry };
      return { ...(await formatted(js, raw, fmt)), pointer };
    }
    // Delete.
    const node = target.node!;
    const { prev, found, next, count } = await neighbours(js, parent, (k) => k === last);
    if (parent.kind === 'array') {
      // json-address.ts arrayItemRemoval: no formatting.
      const p = await js.ended(parent);
      if (count === 1) return { start: p.start + 1, end: p.end - 1, replacement: '', pointer };
      if (next) return { start: node.start, end: next.node.start, replacement: '', pointer };
      return { start: prev!.node.end, end: node.end, replacement: '', pointer };
    }
    let raw: RawEdit;
    if (found!.index > 0) raw = { offset: prev!.node.end, length: node.end - prev!.node.end, content: '' };
    else {
      const end = count > 1 && next ? next.keyStart : node.end;
      raw = { offset: parent.start + 1, length: end - parent.start - 1, content: '' };
    }
    return { ...(await formatted(js, raw, fmt)), pointer };
  });
}

/** A node's type as jsonc-parser names it. */
async function typeOf(js: JsonStream, node: StreamNode): Promise<string> {
  if (node.kind !== 'literal') return node.kind;
  return (await js.text(node.start, node.start + 1)) === 'n' ? 'null' : 'boolean';
}

const isEolByte = (c: number) => c === 0x0a || c === 0x0d;

/**
 * jsonc-parser's withFormatting() over the lines the edit touches: the edit
 * applied, its lines formatted by `format`, one replacement of bytes.
 */
async function formatted(js: JsonStream, edit: RawEdit, fmt: FormattingOptions | undefined): Promise<{ start: number; end: number; replacement: string }> {
  if (!fmt) return { start: edit.offset, end: edit.offset + edit.length, replacement: edit.content };
  // The window: from the start of the edit's first line to the end of its last.
  const lineStart = await js.scanBack(edit.offset, isEolByte);
  const lineEnd = await js.scanForward(edit.offset + edit.length, isEolByte);
  const before = await js.text(lineStart, edit.offset);
  const removed = await js.text(edit.offset, edit.offset + edit.length);
  const after = await js.text(edit.offset + edit.length, lineEnd);
  const text = before + removed + after;
  const o = before.length;
  let newText = before + edit.content + after;
  let begin = o;
  let end = o + edit.content.length;
  if (removed.length === 0 || edit.content.length === 0) {
    while (begin > 0 && !isEol(newText, begin - 1)) begin--;
    while (end < newText.length && !isEol(newText, end)) end++;
  }
  const edits = format(newText, { offset: begin, length: end - begin }, { ...fmt, keepLines: false });
  for (let i = edits.length - 1; i >= 0; i--) {
    const e = edits[i]!;
    newText = applyEdits(newText, [e]);
    begin = Math.min(begin, e.offset);
    end = Math.max(end, e.offset + e.length);
    end += e.content.length - e.length;
  }
  const length = text.length - (newText.length - end) - begin;
  const startByte = lineStart + Buffer.byteLength(text.slice(0, begin));
  const endByte = startByte + Buffer.byteLength(text.slice(begin, begin + length));
  return { start: startByte, end: endByte, replacement: newText.substring(begin, end) };
}

const isEol = (text: string, at: number) => text[at] === '\n' || text[at] === '\r';
