/**
 * Every read, whatever it addresses: the one function behind `operations.read`
 * and the agent door's read tool, so policy, caps, redaction and audit apply the
 * same to sections, JSON paths and token windows as to line ranges.
 *
 * - section: the outline (cached per version) names the lines; read as a line range.
 * - token_start/token_end, page_tokens: the token map names the lines; read as a line range.
 * - json_path: the document is parsed (a JSON Lines line is read as one line
 *   first); the answer holds the matches with their exact text and positions.
 * Each resolves against one version: if the file changed between resolving and
 * reading, it resolves again.
 */
import { openIndex } from '../engine/index/store.ts';
import { FolioError } from '../engine/errors.ts';
// JSON (jsonc-parser, json-p3) and Markdown (markdown-it) addressing load when a read asks for them, not for a line read.
import type { JsonDoc } from '../engine/address/json-address.ts';
import { READ_LIMITS, answerText, read, type ReadOptions, type ReadResult } from '../engine/read/read.ts';
import { readBytes } from '../engine/text/window.ts';
import { textVersionOf, unchanged } from '../engine/read/text-version.ts';
import { DEFAULT_TOKENIZER, countTokens, tokenPage, tokenRangeSpan, type TokenSpan } from '../engine/address/tokens.ts';
import { toReadRequest } from './read-request.ts';
import { readWireOf, type ReadAddressing, type ReadAnswer } from './read-wire.ts';
import type { ReadInput, ReadOutput } from './schemas.ts';

/** A read and what addressed it, before it goes on the wire. */
interface AddressedRead {
  r: ReadAnswer;
  addressing: ReadAddressing;
}

const PLAIN_FIELDS = ['ranges', 'offset', 'limit', 'start_byte', 'max_bytes', 'end_byte', 'page_chars', 'head', 'tail', 'full'] as const;

/** Which address mode the input asks for, if any; invalid_input for two, or an address mixed with a plain mode. */
function addressOf(input: ReadInput): 'section' | 'json' | 'token_range' | 'token_page' | 'time' | null {
  const modes: ('section' | 'json' | 'token_range' | 'token_page' | 'time')[] = [];
  if (input.time !== undefined) modes.push('time');
  if (input.section !== undefined) modes.push('section');
  if (input.json_path !== undefined) modes.push('json');
  if (input.token_start !== undefined || input.token_end !== undefined) modes.push('token_range');
  if (input.page_tokens !== undefined) modes.push('token_page');
  if (input.jsonl_line !== undefined && input.json_path === undefined) {
    throw new FolioError('invalid_input', 'jsonl_line goes with json_path (the path inside that line)', { jsonl_line: input.jsonl_line });
  }
  // time + limit: limit is the time read's own length, not a line-range mode.
  const plain = PLAIN_FIELDS.filter((f) => input[f] !== undefined && input[f] !== false && !(f === 'limit' && input.time !== undefined));
  if (input.page !== undefined && !modes.includes('token_page')) plain.push('page' as never);
  if (modes.length + (plain.length ? 1 : 0) > 1) {
    throw new FolioError('invalid_input', `give one read mode, got ${[...modes, ...plain].join(' + ')}`, { modes: [...modes, ...plain] });
  }
  return modes[0] ?? null;
}

/** Read `input` (its path already resolved by the caller) under `opts` (caps of the door): the wire answer. */
export async function readByInput(input: ReadInput, opts: ReadOptions = {}): Promise<ReadOutput> {
  const mode = addressOf(input);
  if (mode === 'time') return readFromTime(input, opts);
  if (input.head !== undefined && input.tail !== undefined) return readHeadAndTail(input, opts);
  const base: ReadOptions = { ...opts, hashlines: input.hashlines, invalidUtf8: input.invalid_utf8, allowBinary: input.allow_binary, encoding: input.encoding };
  let a: AddressedRead;
  if (mode === 'section') a = await readSection(input.path, input.section!, base);
  else if (mode === 'json') a = await readJson(input, base);
  else if (mode === 'token_range' || mode === 'token_page') a = await readTokens(input, mode, base);
  else {
    const { req, opts: o } = toReadRequest(input);
    if (req.mode === 'bytes' && opts.maxBytes !== undefined && (req.maxBytes ?? 0) > opts.maxBytes) req.maxBytes = opts.maxBytes;
    a = { r: await read(input.path, req, { ...o, maxBytes: opts.maxBytes, maxFullBytes: opts.maxFullBytes }), addressing: {} };
  }
  const { tokens } = a.addressing;
  if (input.tokenizer !== undefined || tokens) {
    const tokenizer = tokens?.tokenizer ?? input.tokenizer ?? DEFAULT_TOKENIZER;
    a.addressing.tokens = { ...tokens, tokenizer, count: await countTokens(answerText(a.r), tokenizer) };
  }
  return readWireOf(a.r, a.addressing);
}

/**
 * A log read from a time (time + limit): the lines from the first one stamped at or
 * after it (time_seek's bisection of an ordered log), `limit` of them (100 by
 * default); the note says which line and time that was.
 */
async function readFromTime(input: ReadInput, opts: ReadOptions): Promise<ReadOutput> {
  const { timeSeekWire } = await import('./time-wire.ts');
  const at = await timeSeekWire({ path: input.path, time: input.time! }, {});
  const out = await readByInput({ ...input, time: undefined, offset: at.line, limit: input.limit ?? 100 }, opts);
  return { ...out, notes: [`time ${at.target}: line ${at.line} is the first at or after it (${at.time})`, ...out.notes] };
}

/**
 * head and tail in one read: two line ranges (one when they meet), and the size of
 * what lies between them (`gap`), so an agent sees both ends of a log and knows
 * how much it skipped.
 */
async function readHeadAndTail(input: ReadInput, opts: ReadOptions): Promise<ReadOutput> {
  const { head, tail, ...rest } = input;
  if (head! < 0 || tail! < 0) throw new FolioError('invalid_range', 'head and tail are line counts >= 0', { head, tail });
  const index = await openIndex(input.path);
  const total = index.lineCount;
  if (head! + tail! >= total) {
    const whole = await readByInput({ ...rest, ranges: [{ start: 1, end: Math.max(1, total) }] }, opts);
    return { ...whole, notes: [...whole.notes, `head ${head} + tail ${tail} cover all ${total} lines`] };
  }
  const ranges = [...(head! > 0 ? [{ start: 1, end: head! }] : []), ...(tail! > 0 ? [{ start: total - tail! + 1, end: total }] : [])];
  const gapStart = head! + 1;
  const gapEnd = total - tail!;
  const gapBytes = (gapEnd < total ? index.lineStart(gapEnd) : index.size) - (head! > 0 ? index.lineStart(head!) : index.bomLength);
  const r = ranges.length ? await readByInput({ ...rest, ranges }, opts) : await readByInput({ ...rest, head: 0 }, opts);
  return {
    ...r,
    gap: { start_line: gapStart, end_line: gapEnd, lines: gapEnd - gapStart + 1, bytes: gapBytes },
    notes: [...r.notes, `lines ${gapStart}-${gapEnd} (${gapEnd - gapStart + 1} lines, ${gapBytes} bytes) lie between the head and the tail`],
  };
}

/** Resolve against a version, read, and resolve again if the read saw a newer one. */
async function onOneVersion<T>(resolve: () => Promise<T & { etag: string }>, readIt: (x: T) => Promise<ReadResult>): Promise<{ x: T; r: ReadResult }> {
  for (let attempt = 0; ; attempt++) {
    const x = await resolve();
    const r = await readIt(x);
    if (r.version.etag === x.etag || attempt >= 2) return { x, r };
  }
}

async function readSection(path: string, section: string, opts: ReadOptions): Promise<AddressedRead> {
  const { x, r } = await onOneVersion(
    async () => {
      const { findSection, outlineOf } = await import('../engine/address/markdown-outline.ts');
      const outline = await outlineOf(path);
      return { h: findSection(outline, section), etag: outline.version.etag };
    },
    ({ h }) => read(path, { mode: 'lines', ranges: [{ start: h.line, end: h.endLine }] }, opts),
  );
  const h = x.h;
  if (r.truncated) r.notes.push(`the section is lines ${h.line}-${h.endLine}; read on from where this answer ends with ranges`);
  return {
    r,
    addressing: {
      section: { path: h.path, level: h.level, line: h.line, end_line: h.endLine, start_byte: h.startByte, end_byte: h.endByte, sha256: h.sha256 },
    },
  };
}

async function readTokens(input: ReadInput, mode: 'token_range' | 'token_page', opts: ReadOptions): Promise<AddressedRead> {
  const tokenizer = input.tokenizer ?? DEFAULT_TOKENIZER;
  const maxBytes = Math.min(opts.maxBytes ?? READ_LIMITS.maxWindowBytes, READ_LIMITS.maxWindowBytes);
  const { x, r } = await onOneVersion(
    async () => {
      const v = await textVersionOf(input.path);
      const f = { path: v.path, etag: v.version.etag, size: v.size, bomLen: v.bomLen };
      const span: TokenSpan & { page?: number; nextPage?: number | null; startsMidLine?: boolean; endsMidLine?: boolean } =
        mode === 'token_range'
          ? await tokenRangeSpan(f, tokenizer, input.token_start ?? 0, input.token_end ?? (input.token_start ?? 0) + 1000, maxBytes)
          : await tokenPage(f, tokenizer, input.page_tokens!, input.page ?? 1, maxBytes);
      return { span, etag: v.version.etag };
    },
    ({ span }) =>
      span.endLine < span.startLine
        ? read(input.path, { mode: 'page', page: 1 }, opts) // an empty file
        : span.startsMidLine || span.endsMidLine // a window inside a line, or a piece of a line over the cap: its exact bytes
          ? read(input.path, { mode: 'exact', startByte: span.startByte, endByte: span.endByte }, opts)
          : read(input.path, { mode: 'lines', ranges: [{ start: span.startLine, end: span.endLine }] }, opts),
  );
  const s = x.span;
  r.notes.push(...s.notes);
  if (s.startsMidLine !== undefined) {
    r.startsMidLine = s.startsMidLine;
    r.endsMidLine = s.endsMidLine;
    if (s.page !== undefined) {
      if (s.startsMidLine) r.notes.push(`page ${s.page} continues line ${s.startLine}, cut by page ${s.page - 1} (the line is over the ${maxBytes}-byte cap)`);
      if (s.endsMidLine) r.notes.push(`page ${s.page} ends inside line ${s.endLine} at byte ${s.endByte}; page ${s.page + 1} continues it`);
    } else if (s.endsMidLine) {
      r.notes.push(`the window ends inside line ${s.endLine} at byte ${s.endByte} (token ${s.endToken}); token_start ${s.endToken} continues it`);
    }
  }
  return {
    r,
    addressing: {
      tokens: {
        tokenizer,
        count: 0,
        start_token: s.startToken,
        end_token: s.endToken,
        total_tokens: s.totalTokens,
        ...(s.page !== undefined ? { page: s.page, next_page: s.nextPage ?? null, page_tokens: input.page_tokens } : {}),
      },
    },
  };
}

export interface JsonSource {
  path: string;
  doc: JsonDoc;
  version: ReadResult['version'];
  /** byte and 0-based line where doc.text starts in the file */
  baseByte: number;
  baseLineIdx: number;
  totalLines: number | null;
  bom: boolean;
}

/** A JSON Lines line past the cap for parsing whole: reads and edits stream it (json-large.ts); other callers get too_large. */
export class LineTooLarge extends FolioError {
  constructor(line: number, size: number, limit: number) {
    super('too_large', `line ${line} is ${size} bytes; JSON values are parsed whole up to ${limit} bytes (reads and edits stream longer lines)`, {
      line,
      size,
      limit,
    });
  }
}

/** Line `lineNo` of a JSON Lines file, parsed (LineTooLarge past the cap). */
export async function jsonlLine(path: string, lineNo: number, opts: ReadOptions): Promise<JsonSource> {
  const { JSON_LIMITS, parseJson } = await import('../engine/address/json-address.ts');
  for (let attempt = 0; ; attempt++) {
    const v = await textVersionOf(path);
    const r = await read(path, { mode: 'lines', ranges: [{ start: lineNo, end: lineNo }] }, { ...opts, hashlines: false });
    const start = r.startByte;
    const end = r.lineCut ? r.lineCut.lineEndByte : r.endByte;
    if (end - start > JSON_LIMITS.maxBytes) throw new LineTooLarge(lineNo, end - start, JSON_LIMITS.maxBytes);
    // The read holds the whole line unless the line is longer than its cap: only then read the rest.
    const text = (r.lineCut ? readBytes(r.path, start, end).toString('utf8') : r.content).replace(/\r?\n$/, '');
    if ((r.version.etag !== v.version.etag || !unchanged(v)) && attempt < 2) continue;
    return {
      path: r.path,
      doc: parseJson(text, { path: r.path, firstLine: lineNo }),
      version: r.version,
      baseByte: start,
      baseLineIdx: lineNo - 1,
      totalLines: r.totalLines,
      bom: r.bom,
    };
  }
}

/** One match of a JSON read, placed in the file; its value and text are made only if it fits the answer. */
interface JsonHit {
  pointer: string;
  start_line: number;
  end_line: number;
  start_byte: number;
  end_byte: number;
  value: () => unknown;
  text: () => string;
}

/**
 * A JSON read of a jsonb value (pg://…) that PostgreSQL answers (backends/postgres/postgres-jsonpath.ts):
 * null if `input` is no such read (another locator or column, jsonl_line), or the
 * query has a construct PostgreSQL cannot evaluate exactly (`untranslatable` names it).
 * Needs no mounted bytes: the operation runs it before opening the value.
 */
export async function readJsonb(input: ReadInput, opts: ReadOptions = {}): Promise<{ answer: ReadOutput | null; untranslatable?: string }> {
  // (A token count of the answer goes the whole way, readByInput.)
  if (input.json_path === undefined || input.jsonl_line !== undefined || input.tokenizer !== undefined || !input.path.startsWith('pg://'))
    return { answer: null };
  const a = await jsonbAnswer(input, opts);
  if (!a || 'untranslatable' in a) return { answer: null, ...(a ? { untranslatable: a.untranslatable } : {}) };
  return { answer: readWireOf(a.r, a.addressing) };
}

async function jsonbAnswer(input: ReadInput, opts: ReadOptions): Promise<AddressedRead | { untranslatable: string } | null> {
  if (input.head !== undefined || input.tail !== undefined) return null;
  addressOf(input); // one read mode
  const [{ JSON_LIMITS }, { queryJsonb }] = await Promise.all([import('../engine/address/json-address.ts'), import('../backends/postgres/postgres-jsonb.ts')]);
  const a = await queryJsonb(input.path, input.json_path!, JSON_LIMITS.maxMatches);
  if (!a) return null;
  if (a.kind === 'untranslatable') return { untranslatable: a.construct };
  const hits = a.matches.map((m) => ({
    pointer: m.pointer,
    start_line: 1, // jsonb prints on one line
    end_line: 1,
    start_byte: m.startByte,
    end_byte: m.endByte,
    value: () => JSON.parse(m.text) as unknown,
    text: () => m.text,
  }));
  const src = { path: a.locator, version: a.version, totalLines: 1, bom: false };
  return jsonAnswerOf(input, src, hits, opts, ['evaluated by PostgreSQL on the jsonb value']);
}

async function readJson(input: ReadInput, opts: ReadOptions): Promise<AddressedRead> {
  const expr = input.json_path!;
  const { jsonValueOf, loadJsonFile, locate, queryJson } = await import('../engine/address/json-address.ts');
  const notes: string[] = [];
  if (input.jsonl_line === undefined && input.path.startsWith('pg://')) {
    // A jsonb value: PostgreSQL selects the nodes (backends/postgres/postgres-jsonpath.ts).
    const a = await jsonbAnswer(input, opts);
    if (a && !('untranslatable' in a)) {
      // The value is mounted here (the agent door: its bytes are what redaction reads):
      // an answer of another version than the mounted one is not used.
      if ((await textVersionOf(input.path)).version.etag === a.r.version.etag) return a;
      notes.push('the value changed while it was read: evaluated by Folio over the version opened');
    } else if (a) notes.push(`evaluated by Folio over the jsonb value's text: ${a.untranslatable} has no exact PostgreSQL form`);
  }
  let src: JsonSource;
  if (input.jsonl_line !== undefined) {
    if (input.jsonl_line < 1) throw new FolioError('invalid_range', `jsonl_line must be >= 1, got ${input.jsonl_line}`, { jsonl_line: input.jsonl_line });
    try {
      src = await jsonlLine(input.path, input.jsonl_line, opts);
    } catch (err) {
      if (err instanceof LineTooLarge) return readLargeJson(input, opts, notes, input.jsonl_line);
      throw err;
    }
  } else {
    const { isLargeJson } = await import('../engine/address/json-large.ts');
    if (isLargeJson(await textVersionOf(input.path))) return readLargeJson(input, opts, notes);
    const j = await loadJsonFile(input.path);
    src = { path: j.v.path, doc: j, version: j.v.version, baseByte: j.v.bomLen, baseLineIdx: 0, totalLines: j.v.totalLines, bom: j.v.bomLen > 0 };
  }
  const path = src.path;
  const matches = queryJson(src.doc, expr, path);
  const at = locate(
    src.doc.text,
    matches.flatMap((m) => [m.node.offset, m.node.offset + m.node.length]),
  );
  const hits = matches.map((m, i): JsonHit => {
    const a = at[2 * i]!;
    const b = at[2 * i + 1]!;
    return {
      pointer: m.pointer,
      start_line: src.baseLineIdx + a.lineIdx + 1,
      end_line: src.baseLineIdx + b.lineIdx + 1,
      start_byte: src.baseByte + a.byte,
      end_byte: src.baseByte + b.byte,
      value: () => jsonValueOf(m.node),
      text: () => src.doc.text.slice(m.node.offset, m.node.offset + m.node.length),
    };
  });
  return jsonAnswerOf(input, src, hits, opts, notes);
}

/**
 * A JSON read of a file (or of its JSON Lines line `line`) past the in-memory cap,
 * streamed (engine/address/json-large.ts): the same matches, the values of those
 * that fit the answer built one by one.
 */
async function readLargeJson(input: ReadInput, opts: ReadOptions, notes: string[], line?: number): Promise<AddressedRead> {
  const [{ JSON_LIMITS }, { queryLargeJson, withLargeJson }, { valueOfText }] = await Promise.all([
    import('../engine/address/json-address.ts'),
    import('../engine/address/json-large.ts'),
    import('../engine/address/json-stream.ts'),
  ]);
  const cap = answerCapOf(opts);
  const { v, result } = await withLargeJson(
    input.path,
    async (doc) => {
      const matches = await queryLargeJson(doc, input.json_path!, JSON_LIMITS.maxMatches);
      const index = await openIndex(doc.path);
      let used = 0;
      const out: JsonHit[] = [];
      for (const m of matches) {
        const { start, end } = m.node;
        // The texts of the hits the answer will carry (jsonAnswerOf's rule), read now.
        let text = '';
        if (used + end - start <= cap) {
          used += end - start;
          text = await doc.js.text(start, end);
        }
        out.push({
          pointer: m.pointer,
          start_line: index.lineAt(start) + 1,
          end_line: index.lineAt(end) + 1,
          start_byte: start,
          end_byte: end,
          value: () => valueOfText(text),
          text: () => text,
        });
      }
      return { hits: out, bytes: doc.js.end - doc.js.base };
    },
    line,
  );
  const what = line === undefined ? 'the document' : `line ${line}`;
  notes.push(
    `streamed: ${what} is ${result.bytes} bytes, past the ${JSON_LIMITS.maxBytes}-byte cap for parsing whole; only the parts the query reached were read and checked`,
  );
  return jsonAnswerOf(input, { path: v.path, version: v.version, totalLines: v.totalLines, bom: v.bomLen > 0 }, result.hits, opts, notes);
}

const answerCapOf = (opts: ReadOptions) => Math.min(opts.maxBytes ?? READ_LIMITS.maxWindowBytes, READ_LIMITS.maxWindowBytes);

/** The answer of a JSON read: the hits that fit the byte cap with their values, the rest marked omitted. */
function jsonAnswerOf(
  input: ReadInput,
  src: Pick<JsonSource, 'path' | 'version' | 'totalLines' | 'bom'>,
  hits: JsonHit[],
  opts: ReadOptions,
  notes: string[],
): AddressedRead {
  const cap = answerCapOf(opts);
  let used = 0;
  let omitted = 0;
  const out = hits.map(({ value, text, pointer, ...pos }) => {
    const size = pos.end_byte - pos.start_byte;
    if (used + size > cap) {
      omitted++;
      return { pointer, omitted: true, ...pos };
    }
    used += size;
    return { pointer, value: value(), text: text(), ...pos };
  });
  if (omitted) notes.push(`${omitted} of ${out.length} match(es) omitted at the ${cap}-byte cap: read their byte ranges or a narrower path`);
  const r: ReadAnswer = {
    path: src.path,
    version: src.version,
    encoding: 'utf-8',
    bom: src.bom,
    newlineStyle: null,
    totalLines: src.totalLines,
    indexing: null,
    mode: 'json',
    content: out.flatMap((m) => ('text' in m ? [m.text] : [])).join('\n'),
    startLine: Math.min(...out.map((m) => m.start_line)),
    endLine: Math.max(...out.map((m) => m.end_line)),
    startByte: Math.min(...out.map((m) => m.start_byte)),
    endByte: Math.max(...out.map((m) => m.end_byte)),
    hashlines: false,
    notes,
    truncated: omitted > 0,
  };
  const expr = input.json_path!;
  return { r, addressing: { json: { json_path: expr, ...(input.jsonl_line !== undefined ? { jsonl_line: input.jsonl_line } : {}), matches: out } } };
}
