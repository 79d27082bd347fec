/**
 * JSON documents of any size, addressed without parsing them whole: a byte-level
 * scanner over the async byte source (one seam for files and remote values).
 * json-stream-query.ts evaluates RFC 9535 queries with it, json-large.ts reads
 * and edits files past the in-memory cap with both.
 *
 * - A node is a byte range of the text and its type; its children are found by
 *   scanning its range (strings and nested values are skipped, not built), so
 *   memory holds the blocks being scanned, the path being walked and the values
 *   an answer or a filter needs, never the document.
 * - Objects are walked in document order, the first of duplicate names counts,
 *   and values are built as json-select.ts builds them: answers are the in-memory
 *   path's answers.
 * - Positions are bytes of the source (`base` is where the JSON text starts).
 * - The text is checked as far as it is scanned: on the levels a query walks,
 *   members have names, colons and commas and values are JSON values; in values
 *   it skips over, brackets balance and strings close. Parts a query never
 *   reaches are not read.
 *
 * What grows with the document: a descendant segment (`..`) scans a node once per
 * ancestor (time, not memory), a negative-step slice keeps the offsets of the
 * array's items, and walking a whole object keeps its member names (to skip
 * duplicates).
 */
import { parseTree, type ParseError } from 'jsonc-parser';
import { FolioError } from '../errors.ts';
import { jsonValueOf, pointerOf, type Segment } from './json-select.ts';
import { CHUNK_SIZE, type JsonScanState } from '../kernels/kernels.mjs';
import { localKernels } from '../kernels/local-kernels.ts';
import { regionOf } from './json-stream-region.ts';

export interface StreamSource {
  readAt(offset: number, length: number): Promise<Uint8Array>;
}

export type StreamKind = 'object' | 'array' | 'string' | 'number' | 'literal';

export interface StreamNode {
  /** bytes [start, end) of the text (absolute offsets in the source) */
  start: number;
  end: number;
  kind: StreamKind;
  segments: Segment[];
}

/** A member (key: its name) or item (key: its index) and its value's node. */
export interface Child {
  key: Segment;
  keyStart: number;
  node: StreamNode;
}

/** An object member or array item whose value starts at `start` (first byte `c`); `end` once scanned. */
interface Entry {
  key: Segment;
  keyStart: number;
  start: number;
  c: number;
  end?: number;
}

/** A scan found text that is not JSON: where (byte offset) and what was expected. */
export class JsonScanError extends Error {
  constructor(
    readonly offset: number,
    readonly error: string,
  ) {
    super(`${error} at byte ${offset}`);
  }
}

export interface StreamOptions {
  /** bytes per read of the source */
  blockBytes?: number;
  /** blocks kept (a scan and the scans it is suspended in read different places) */
  blocks?: number;
  /** largest value built in memory (an answer's value, a filter's tested value) */
  maxValueBytes: number;
  /** a filter tests a child by its value when the child is at most this big */
  smallValueBytes?: number;
}

/** Bytes a container scan takes one by one before the kernel takes over. */
const BYTE_BY_BYTE = 1024;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Bytes a container scan stops at outside strings: quote and brackets. */
const CLASS = new Uint8Array(256);
for (const c of [0x22, 0x5b, 0x5d, 0x7b, 0x7d]) CLASS[c] = 1;
const isWs = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Bytes [base, end) of a source, read in blocks, the last few kept. */
class Blocks {
  private readonly cache = new Map<number, Uint8Array>();
  constructor(
    private readonly src: StreamSource,
    readonly end: number,
    private readonly size: number,
    private readonly keep: number,
  ) {}

  /** The block holding `pos` if it is kept (no await for the common case: the scan stays in its block). */
  peek(pos: number): { buf: Uint8Array; base: number } | undefined {
    const base = pos - (pos % this.size);
    const buf = this.cache.get(base);
    return buf ? { buf, base } : undefined;
  }

  /** The block holding `pos` (pos < end) and where it starts. */
  async at(pos: number): Promise<{ buf: Uint8Array; base: number }> {
    const base = pos - (pos % this.size);
    let buf = this.cache.get(base);
    if (buf) {
      this.cache.delete(base);
      this.cache.set(base, buf);
      return { buf, base };
    }
    buf = await this.src.readAt(base, Math.min(this.size, this.end - base));
    this.cache.set(base, buf);
    if (this.cache.size > this.keep) this.cache.delete(this.cache.keys().next().value!);
    return { buf, base };
  }

  async slice(start: number, end: number): Promise<Buffer> {
    const parts: Uint8Array[] = [];
    for (let p = start; p < end;) {
      const { buf, base } = await this.at(p);
      const to = Math.min(end, base + buf.length);
      parts.push(buf.subarray(p - base, to - base));
      p = to;
    }
    return Buffer.concat(parts);
  }
}

/** A JSON text in a source: bytes [base, end). */
export class JsonStream {
  private readonly blocks: Blocks;
  readonly smallValueBytes: number;
  constructor(
    src: StreamSource,
    readonly base: number,
    readonly end: number,
    readonly opts: StreamOptions,
  ) {
    this.blocks = new Blocks(src, end, opts.blockBytes ?? 1 << 20, opts.blocks ?? 8);
    this.smallValueBytes = opts.smallValueBytes ?? 64 * 1024;
  }

  private fail(offset: number, error: string): never {
    throw new JsonScanError(offset, error);
  }

  /** First non-whitespace byte at or after `pos`, and its offset; -1 at the end. */
  async skipWs(pos: number): Promise<{ pos: number; c: number }> {
    for (let p = pos; p < this.end;) {
      const { buf, base } = this.blocks.peek(p) ?? (await this.blocks.at(p));
      const n = buf.length;
      for (let i = p - base; i < n; i++) if (!isWs(buf[i]!)) return { pos: base + i, c: buf[i]! };
      p = base + n;
    }
    return { pos: this.end, c: -1 };
  }

  /** End (exclusive) of the string whose opening quote is at `pos`. */
  private async stringEnd(pos: number): Promise<number> {
    let escaped = false;
    for (let p = pos + 1; p < this.end;) {
      const { buf, base } = this.blocks.peek(p) ?? (await this.blocks.at(p));
      const n = buf.length;
      let i = p - base;
      while (i < n) {
        const c = buf[i]!;
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) return base + i + 1;
        else if (c < 0x20) this.fail(base + i, 'a control character in a string');
        i++;
      }
      p = base + n;
    }
    return this.fail(this.end, 'a string that does not end');
  }

  /**
   * End (exclusive) of the object or array whose bracket is at `pos`. The first
   * KiB byte by byte (small values: bracket kinds matched), the rest by the
   * kernel (wasm/json.ts), 64 bytes a step.
   */
  private async containerEnd(pos: number): Promise<number> {
    const stack: number[] = [];
    let inString = false;
    let escaped = false;
    const { buf, base } = this.blocks.peek(pos) ?? (await this.blocks.at(pos));
    const n = Math.min(buf.length, pos - base + BYTE_BY_BYTE);
    let i = pos - base;
    while (i < n) {
      const c = buf[i++]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) inString = false;
        continue;
      }
      if (CLASS[c] === 0) continue;
      if (c === QUOTE) inString = true;
      else if (c === 0x7b || c === 0x5b) stack.push(c);
      else {
        if (stack.pop() !== c - 2) this.fail(base + i - 1, `an unexpected '${String.fromCharCode(c)}'`);
        if (!stack.length) return base + i;
      }
    }
    if (base + i >= this.end) return this.fail(this.end, 'an object or array that does not end');
    return (await this.structure(base + i, { depth: stack.length, inString, escaped, commas: 0 }, 0)).at;
  }

  /**
   * The kernel's scan from `pos` with `state`: where the container closes
   * (`closed`), or the comma at its top level that makes state.commas reach
   * `stopAt`. Windows grow from 16 KiB to the kernel's whole input.
   */
  private async structure(pos: number, state: JsonScanState, stopAt: number): Promise<{ at: number; closed: boolean }> {
    const k = localKernels();
    let window = 16 * 1024;
    for (let p = pos; p < this.end;) {
      const { buf, base } = this.blocks.peek(p) ?? (await this.blocks.at(p));
      for (let i = p - base; i < buf.length;) {
        const len = Math.min(window, CHUNK_SIZE, buf.length - i);
        window *= 4;
        // Copied in and scanned with no await between: the input window is this thread's.
        k.input.set(buf.subarray(i, i + len), 0);
        const r = k.jsonScan(0, len, state, stopAt);
        if (typeof r === 'object') this.fail(base + i + r.unmatched, 'a closing bracket with no opening one');
        if (r >= 0) return { at: base + i + r, closed: state.depth === 0 };
        i += len;
      }
      p = base + buf.length;
    }
    return this.fail(this.end, 'an object or array that does not end');
  }

  /** The value that starts at `pos` (its first byte `c`): its kind and end. */
  async valueAt(pos: number, c: number): Promise<{ kind: StreamKind; end: number }> {
    if (c === 0x7b) return { kind: 'object', end: await this.containerEnd(pos) };
    if (c === 0x5b) return { kind: 'array', end: await this.containerEnd(pos) };
    if (c === QUOTE) return { kind: 'string', end: await this.stringEnd(pos) };
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return { kind: 'number', end: await this.tokenEnd(pos) };
    if (c === 0x74 || c === 0x66 || c === 0x6e) {
      const end = await this.tokenEnd(pos);
      const word = (await this.blocks.slice(pos, end)).toString('latin1');
      if (word !== 'true' && word !== 'false' && word !== 'null') this.fail(pos, `an unknown word '${word.slice(0, 20)}'`);
      return { kind: 'literal', end };
    }
    return this.fail(pos, c < 0 ? 'a value expected, found the end' : `a value expected, found '${String.fromCharCode(c)}'`);
  }

  /** End of a number or literal: the first byte that is a delimiter. */
  private async tokenEnd(pos: number): Promise<number> {
    for (let p = pos; p < this.end;) {
      const { buf, base } = this.blocks.peek(p) ?? (await this.blocks.at(p));
      const n = buf.length;
      for (let i = p - base; i < n; i++) {
        const c = buf[i]!;
        if (isWs(c) || c === 0x2c || c === 0x5d || c === 0x7d || c === 0x3a) return base + i;
        if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x45)) {
          this.fail(base + i, `an unexpected '${String.fromCharCode(c)}'`);
        }
      }
      p = base + n;
    }
    return this.end;
  }

  /** The document's root node; its end only scanned for when `whole` (else end is -1 until needed). */
  async root(): Promise<StreamNode> {
    const { pos, c } = await this.skipWs(this.base);
    if (c === 0x7b || c === 0x5b) return { start: pos, end: -1, kind: c === 0x7b ? 'object' : 'array', segments: [] };
    const { kind, end } = await this.valueAt(pos, c);
    await this.expectEnd(end);
    return { start: pos, end, kind, segments: [] };
  }

  /** Only whitespace after the root value. */
  private async expectEnd(end: number): Promise<void> {
    const rest = await this.skipWs(end);
    if (rest.c >= 0) this.fail(rest.pos, `an unexpected '${String.fromCharCode(rest.c)}' after the document`);
  }

  /** A node with its end known. */
  async ended(node: StreamNode): Promise<StreamNode> {
    if (node.end >= 0) return node;
    node.end = await this.containerEnd(node.start);
    if (!node.segments.length) await this.expectEnd(node.end);
    return node;
  }

  /** Just past the last byte before `pos` that `is` accepts (base if none): the start of a line, for `is` = EOL. */
  async scanBack(pos: number, is: (c: number) => boolean): Promise<number> {
    for (let p = pos; p > this.base;) {
      const { buf, base } = this.blocks.peek(p - 1) ?? (await this.blocks.at(p - 1));
      for (let i = p - 1 - base; i >= 0; i--) if (is(buf[i]!)) return base + i + 1;
      p = Math.max(base, this.base);
    }
    return this.base;
  }

  /** The first byte at or after `pos` that `is` accepts (end if none). */
  async scanForward(pos: number, is: (c: number) => boolean): Promise<number> {
    for (let p = pos; p < this.end;) {
      const { buf, base } = this.blocks.peek(p) ?? (await this.blocks.at(p));
      for (let i = p - base; i < buf.length; i++) if (is(buf[i]!)) return base + i;
      p = base + buf.length;
    }
    return this.end;
  }

  /** The text of bytes [start, end) (for keys and values a caller builds). */
  /** The text of bytes [start, end) if a kept block holds them all, else undefined. */
  textNow(start: number, end: number): string | undefined {
    const b = this.blocks.peek(start);
    if (!b || end > b.base + b.buf.length) return undefined;
    return Buffer.from(b.buf.buffer, b.buf.byteOffset, b.buf.length).toString('utf8', start - b.base, end - b.base);
  }

  async text(start: number, end: number): Promise<string> {
    const b = this.blocks.peek(start);
    if (b && end <= b.base + b.buf.length) return Buffer.from(b.buf.buffer, b.buf.byteOffset, b.buf.length).toString('utf8', start - b.base, end - b.base);
    return (await this.blocks.slice(start, end)).toString('utf8');
  }

  /**
   * The entries of an object or array from item `from` (arrays), each yielded
   * once its value's start is known: a consumer that sets `end` (and `kind`) saves
   * the scan of the value, one that stops here never scans it.
   */
  private async *entries(node: StreamNode, from = 0): AsyncGenerator<Entry> {
    if (node.kind !== 'object' && node.kind !== 'array') return;
    const isObject = node.kind === 'object';
    const close = isObject ? 0x7d : 0x5d;
    let start = node.start + 1;
    // No array of a file has 2^32 items (each takes 2 bytes at least): an index past that is past the end.
    if (!isObject && from > 0xfffffffe) return;
    if (!isObject && from > 0) {
      // Straight to item `from`: the kernel counts the array's commas.
      const r = await this.structure(node.start, { depth: 0, inString: false, escaped: false, commas: 0 }, from);
      if (r.closed) {
        node.end = r.at;
        return;
      }
      start = r.at + 1;
    }
    let { pos, c } = await this.skipWs(start);
    if (c === close && start === node.start + 1) {
      if (node.end < 0) node.end = pos + 1;
      return;
    }
    for (let index = isObject ? 0 : from; ; index++) {
      let key: Segment = index;
      const keyStart = pos;
      if (isObject) {
        if (c !== QUOTE) this.fail(pos, c < 0 ? 'a member name expected, found the end' : `a member name expected, found '${String.fromCharCode(c)}'`);
        const keyEnd = await this.stringEnd(pos);
        key = JSON.parse(await this.text(pos, keyEnd)) as string;
        ({ pos, c } = await this.skipWs(keyEnd));
        if (c !== 0x3a) this.fail(pos, "a ':' expected");
        ({ pos, c } = await this.skipWs(pos + 1));
      }
      const entry: Entry = { key, keyStart, start: pos, c };
      yield entry;
      if (entry.end === undefined) ({ end: entry.end } = await this.valueAt(pos, c));
      ({ pos, c } = await this.skipWs(entry.end));
      if (c === close) {
        if (node.end < 0) node.end = pos + 1;
        return;
      }
      if (c !== 0x2c)
        this.fail(pos, c < 0 ? `a ',' or '${String.fromCharCode(close)}' expected, found the end` : `a ',' or '${String.fromCharCode(close)}' expected`);
      ({ pos, c } = await this.skipWs(pos + 1));
    }
  }

  /**
   * The members of an object (name, value node; with `dedupe` later duplicates of
   * a name are skipped) or the items of an array from item `from`, in document order.
   */
  async *children(node: StreamNode, dedupe = true, from = 0): AsyncGenerator<Child> {
    const seen = node.kind === 'object' && dedupe ? new Set<string>() : undefined;
    for await (const batch of this.childBatches(node, from)) {
      for (const ch of batch) {
        if (seen) {
          if (seen.has(ch.key as string)) continue;
          seen.add(ch.key as string);
        }
        yield ch;
      }
    }
  }

  /**
   * The children of a container in batches: the kernel finds the separators of
   * one window (no await while it works in the window's copy), each child is read
   * from the bytes between them (json-stream-region.ts), and the window's
   * children come as one batch. Duplicates are not skipped here.
   */
  async *childBatches(node: StreamNode, from = 0): AsyncGenerator<Child[]> {
    if (node.kind !== 'object' && node.kind !== 'array') return;
    const isObject = node.kind === 'object';
    // No array of a file has 2^32 items (each takes 2 bytes at least): an index past that is past the end.
    if (!isObject && from > 0xfffffffe) return;
    const state: JsonScanState = { depth: 0, inString: false, escaped: false, commas: 0 };
    let scanFrom = node.start;
    let childStart = node.start + 1;
    let index = isObject ? 0 : from;
    if (index > 0) {
      // Straight to item `from`: the kernel counts the array's commas.
      const r = await this.structure(node.start, state, from);
      if (r.closed) {
        node.end = r.at;
        return;
      }
      scanFrom = childStart = r.at + 1;
    }
    const k = localKernels();
    const fail = (offset: number, error: string): never => this.fail(offset, error);
    for (let p = scanFrom; p < this.end;) {
      const { buf, base } = this.blocks.peek(p) ?? (await this.blocks.at(p));
      for (let i = p - base; i < buf.length;) {
        const len = Math.min(CHUNK_SIZE, buf.length - i);
        const winBase = base + i;
        k.input.set(buf.subarray(i, i + len), 0);
        // Found in this window: [regionStart, regionEnd) per child; read after the window is done.
        const regions: number[] = [];
        let closed = false;
        for (let j = 0; ;) {
          const r = k.jsonScan(j, len, state, state.commas + 1);
          if (r === -1) break;
          if (typeof r === 'object') this.fail(winBase + r.unmatched, 'a closing bracket with no opening one');
          closed = state.depth === 0;
          const sep = winBase + r;
          regions.push(childStart, closed ? sep - 1 : sep);
          if (closed) {
            node.end = sep;
            break;
          }
          childStart = sep + 1;
          j = r + 1;
        }
        const batch: Child[] = [];
        for (let q = 0; q < regions.length; q += 2) {
          const [a, b] = [regions[q]!, regions[q + 1]!];
          const last = closed && q === regions.length - 2;
          // A child that began in an earlier block is read from a copy of its bytes.
          const region = a >= base ? regionOf(buf, base, a, b, isObject, index, fail) : regionOf(await this.blocks.slice(a, b), a, a, b, isObject, index, fail);
          if (!region) {
            if (last && index === (isObject ? 0 : from) && q === 0 && a === node.start + 1) break; // an empty container
            this.fail(b, 'a value expected');
          }
          batch.push({
            key: region.key,
            keyStart: region.keyStart,
            node: { start: region.start, end: region.end, kind: region.kind, segments: [...node.segments, region.key] },
          });
          index++;
        }
        if (batch.length) yield batch;
        if (closed) return;
        i += len;
      }
      p = base + buf.length;
    }
    this.fail(this.end, 'an object or array that does not end');
  }

  /** The node of an entry, its end found only if it is a string, number or literal (a container's when needed: ended()). */
  private async nodeOf(parent: StreamNode, e: Entry): Promise<StreamNode> {
    const segments = [...parent.segments, e.key];
    if (e.c === 0x7b || e.c === 0x5b) return { start: e.start, end: -1, kind: e.c === 0x7b ? 'object' : 'array', segments };
    const v = await this.valueAt(e.start, e.c);
    e.end = v.end;
    return { start: e.start, end: v.end, kind: v.kind, segments };
  }

  /** The member `name` of an object (the first of duplicates). */
  async member(node: StreamNode, name: string): Promise<StreamNode | undefined> {
    if (node.kind !== 'object') return undefined;
    for await (const e of this.entries(node)) if (e.key === name) return this.nodeOf(node, e);
    return undefined;
  }

  /** Item `index` (≥ 0) of an array. */
  async item(node: StreamNode, index: number): Promise<StreamNode | undefined> {
    if (node.kind !== 'array' || index < 0) return undefined;
    for await (const e of this.entries(node, index)) return this.nodeOf(node, e);
    return undefined;
  }

  /** Items in an array, members in an object: the kernel counts the top-level commas. */
  async count(node: StreamNode): Promise<number> {
    if (node.kind !== 'object' && node.kind !== 'array') return 0;
    const { c } = await this.skipWs(node.start + 1);
    if (c === (node.kind === 'object' ? 0x7d : 0x5d)) return 0;
    const state = { depth: 0, inString: false, escaped: false, commas: 0 };
    const r = await this.structure(node.start, state, 0);
    node.end = r.at;
    return state.commas + 1;
  }

  /** The value of a node, built as the in-memory path builds it (too_large past maxValueBytes). */
  async value(node: StreamNode): Promise<unknown> {
    const n = node.end >= 0 ? node : await this.ended(node);
    if (n.end - n.start > this.opts.maxValueBytes) {
      throw new FolioError(
        'too_large',
        `the value at ${pointerText(n.segments)} is ${n.end - n.start} bytes; values are built up to ${this.opts.maxValueBytes} bytes`,
        {
          size: n.end - n.start,
          limit: this.opts.maxValueBytes,
          hint: 'address a part of it (a member, an item, a slice), or read its byte range',
        },
      );
    }
    return valueOfText(await this.text(n.start, n.end), n.start);
  }
}

/** A node's pointer as messages show it. */
export const pointerText = (segments: Segment[]): string => pointerOf(segments) || '(the root)';

/**
 * The value of a JSON text as json-select.ts builds it (first of duplicate names,
 * objects walked in document order): JSON.parse when that gives the same value
 * (no duplicate names, no integer-like names, which JavaScript puts first), else
 * jsonc-parser's tree.
 */
export function valueOfText(text: string, at = 0): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (value !== undefined && (typeof value !== 'object' || value === null || membersIn(text) === plainKeysIn(value))) return value;
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  if (errors.length || !root) throw new JsonScanError(at + Buffer.byteLength(text.slice(0, errors[0]?.offset ?? 0)), 'invalid JSON');
  return jsonValueOf(root);
}

/**
 * Colons in a JSON text: its members, plus colons inside strings. Equal to the
 * names of the parsed value only if no string holds a colon and no name repeats
 * (each adds to one side only), so equality proves JSON.parse built what
 * jsonc-parser's tree would.
 */
function membersIn(text: string): number {
  let n = 0;
  for (let i = text.indexOf(':'); i >= 0; i = text.indexOf(':', i + 1)) n++;
  return n;
}

/** Names in a parsed value; -1 if an object has an integer-like name (JavaScript would reorder it). */
function plainKeysIn(value: unknown): number {
  if (Array.isArray(value)) {
    let n = 0;
    for (const v of value) {
      if (v === null || typeof v !== 'object') continue;
      const k = plainKeysIn(v);
      if (k < 0) return -1;
      n += k;
    }
    return n;
  }
  if (value === null || typeof value !== 'object') return 0;
  const keys = Object.keys(value);
  if (keys.length && /^(0|[1-9]\d*)$/.test(keys[0]!)) return -1;
  let n = keys.length;
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    if (v === null || typeof v !== 'object') continue;
    const m = plainKeysIn(v);
    if (m < 0) return -1;
    n += m;
  }
  return n;
}
