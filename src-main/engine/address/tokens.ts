/**
 * Tokens of a named tokenizer (gpt-tokenizer: pure JS, vocabularies shipped in the
 * package, nothing downloaded): counts of a text, and a file measured in tokens.
 *
 * A file's token stream is counted line by line: each line, with its terminator, is
 * tokenized on its own and the counts add up. So a token offset always falls in one
 * line, and a line's count never depends on its neighbours. A token range is
 * exact inside its lines: it starts and ends at token boundaries that are also
 * character boundaries (tokenRangeSpan), so reading on from its end covers every
 * byte once. (Tokenizing the whole file at once can merge a line's last characters
 * with the next line's first, so its count may differ by a few tokens; the `count`
 * reported for an answer is always gpt-tokenizer's own count of the returned text.)
 *
 * Per file version and tokenizer a `TokenMap` keeps checkpoints (line, byte,
 * tokens before it) about every 64 KiB: finding token T re-tokenizes at most one
 * checkpoint's span, and the file is tokenized only as far as it was ever asked.
 * Token pages (whole lines, at most N tokens and at most the read cap in bytes each)
 * are found by a greedy scan whose page starts are remembered per budget.
 *
 * Bounded work: gpt-tokenizer's byte-pair merge is quadratic in the length of one
 * pre-token, and a pre-token is a run of one character class (letters, whitespace,
 * punctuation), so a 300 KB line of letters without a space took 98 s in one
 * synchronous call. A run longer than MAX_RUN_CHARS is therefore counted in pieces
 * of MAX_RUN_CHARS (the text around it separately): the work is linear and each
 * piece is short. The price: such a text's count may differ by a few tokens from
 * a whole-text encode, at each cut (a merge across a cut is not made, and the
 * characters before and after the run are not merged with it). Text without such
 * a run (any ordinary prose, code or log) is encoded whole, exactly as before.
 * Long scans, pieced counts and texts over SLICED_CHARS (encoded a pre-token at a
 * time, the same tokens as one count) hand the event loop back every SLICE_MS, so
 * a server counting a huge file or line keeps answering meanwhile.
 */
import { closeFd, readAt } from '../index/byte-source.ts';
import { FolioError } from '../errors.ts';
import { openForRead, openSource } from '../index/identity.ts';

export const TOKENIZERS = ['o200k_base', 'cl100k_base'] as const;
export type TokenizerName = (typeof TOKENIZERS)[number];
export const DEFAULT_TOKENIZER: TokenizerName = 'o200k_base';

type Counter = (text: string) => number;
const counters = new Map<TokenizerName, Counter>();
/** Token ids of a text, one array per pre-token (lazy), and the byte length of one token. */
interface Encoder {
  chunks: (text: string) => Iterable<number[]>;
  bytesOf: (id: number) => number;
}
const encoders = new Map<TokenizerName, Encoder>();
/** Special-token text like "<|endoftext|>" in a file is text, not an error. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** Longest run of one character class encoded in one go; longer runs are counted in pieces this long. */
export const MAX_RUN_CHARS = 512;
/** Runs of letters (with their marks), of whitespace, or of punctuation and symbols: what one pre-token can span. Digits come in groups of three. */
const LONG_RUN = new RegExp(`[\\p{L}\\p{M}]{${MAX_RUN_CHARS + 1},}|\\s{${MAX_RUN_CHARS + 1},}|[^\\s\\p{L}\\p{M}\\p{N}]{${MAX_RUN_CHARS + 1},}`, 'gu');
/** Longest stretch of synchronous counting before the event loop gets a turn. */
const SLICE_MS = 10;

/** True when `text` holds a run of one class longer than MAX_RUN_CHARS (and so is counted in pieces). */
function hasLongRun(text: string): boolean {
  if (text.length <= MAX_RUN_CHARS) return false;
  LONG_RUN.lastIndex = 0;
  return LONG_RUN.test(text);
}

/** The text in the pieces counted one by one: the stretches between long runs whole, each long run cut every MAX_RUN_CHARS. */
function* piecesOf(text: string): Generator<string> {
  let at = 0;
  LONG_RUN.lastIndex = 0;
  for (const run of text.matchAll(LONG_RUN)) {
    if (run.index > at) yield text.slice(at, run.index);
    const end = run.index + run[0].length;
    for (let cut = run.index; cut < end;) {
      let next = Math.min(end, cut + MAX_RUN_CHARS);
      // Never between the halves of a surrogate pair.
      if (next < end && (text.charCodeAt(next) & 0xfc00) === 0xdc00) next++;
      yield text.slice(cut, next);
      cut = next;
    }
    at = end;
  }
  if (at < text.length) yield text.slice(at);
}

/** Hands the event loop a turn when the current slice of synchronous work has run SLICE_MS. */
class Slicer {
  private since = performance.now();
  async maybeYield(): Promise<void> {
    if (performance.now() - this.since < SLICE_MS) return;
    await new Promise<void>((resolveTurn) => setImmediate(resolveTurn));
    this.since = performance.now();
  }
}

/** Texts longer than this are encoded a pre-token at a time, yielding between them, rather than counted in one call. */
const SLICED_CHARS = 16 * 1024;

/**
 * The count of `text`: gpt-tokenizer's count of the whole text, or of its pieces
 * when it has a long run; a long text is encoded a pre-token at a time (the same
 * tokens: count is encode's length), handing the event loop a turn every SLICE_MS.
 */
async function boundedCount(count: Counter, enc: Encoder, text: string, slicer = new Slicer()): Promise<number> {
  if (text.length <= SLICED_CHARS) return hasLongRun(text) ? piecewiseCount(count, text) : count(text);
  let total = 0;
  for (const piece of hasLongRun(text) ? piecesOf(text) : [text]) {
    for (const chunk of enc.chunks(piece)) {
      total += chunk.length;
      await slicer.maybeYield();
    }
  }
  return total;
}

function piecewiseCount(count: Counter, text: string): number {
  let total = 0;
  for (const piece of piecesOf(text)) total += count(piece);
  return total;
}

/** The count function of a tokenizer (whole texts, unbounded: callers go through boundedCount); its vocabulary is loaded on first use. */
async function tokenCounter(name: string = DEFAULT_TOKENIZER): Promise<Counter> {
  if (!(TOKENIZERS as readonly string[]).includes(name)) {
    throw new FolioError('invalid_input', `unknown tokenizer "${name}"; known: ${TOKENIZERS.join(', ')}`, { tokenizer: name, known: [...TOKENIZERS] });
  }
  const key = name as TokenizerName;
  let c = counters.get(key);
  if (!c) {
    const mod = key === 'o200k_base' ? await import('gpt-tokenizer/encoding/o200k_base') : await import('gpt-tokenizer/encoding/cl100k_base');
    const count = mod.countTokens;
    c = (text: string) => (text === '' ? 0 : count(text, AS_TEXT));
    counters.set(key, c);
    encoders.set(key, encoderOf(mod));
  }
  return c;
}

/**
 * Where tokens end in bytes. gpt-tokenizer's public decode cannot say (a token
 * may hold part of a UTF-8 character, and decode() keeps such bytes in a shared
 * streaming TextDecoder), so this reads each token's bytes from its core
 * processor: private in the typings, stable at runtime, and pinned by
 * test/engine/token-windows.test.ts (windows rejoin to the file's bytes).
 */
function encoderOf(mod: { encodeGenerator: (text: string, o: typeof AS_TEXT) => Iterable<number[]>; default: unknown }): Encoder {
  const core = (mod.default as { bytePairEncodingCoreProcessor?: { tryDecodeToken?: (id: number) => string | Uint8Array | undefined } })
    .bytePairEncodingCoreProcessor;
  const decodeToken = core?.tryDecodeToken?.bind(core);
  if (!decodeToken) throw new Error('gpt-tokenizer changed: its core processor no longer decodes one token (tryDecodeToken)');
  const lengths = new Map<number, number>();
  return {
    chunks: (text) => (text === '' ? [] : mod.encodeGenerator(text, AS_TEXT)),
    bytesOf: (id) => {
      let n = lengths.get(id);
      if (n === undefined) {
        const b = decodeToken(id);
        n = b === undefined ? 0 : typeof b === 'string' ? Buffer.byteLength(b) : b.length;
        lengths.set(id, n);
      }
      return n;
    },
  };
}

/**
 * Lines up to this many bytes keep all their cuts (two numbers a token: ~2 MB for
 * a 300 KB line); a longer line keeps only the cuts near the window asked of it,
 * so a 50 MB line costs no 400 MB of arrays. Mutable for tests.
 */
export const tokenLimits = { fullCutsMaxBytes: 8 * 1024 * 1024 };

/** Which cuts a long line keeps: those with a token count or a byte offset in these ranges (its ends always). */
interface CutsWanted {
  tokens: [number, number];
  bytes: [number, number];
}

/** Token boundaries in one line that are also character boundaries: token counts and byte offsets from the line's start, 0 and the end included. */
interface LineCuts {
  tokens: number[];
  bytes: number[];
}

/**
 * The cuts of a line (its UTF-8 bytes and their text), tokenized exactly as
 * boundedCount counts it (in pieces when it has a long run); the last cut's
 * token count is the line's count. A token ending inside a character is no cut;
 * a line whose bytes are not valid UTF-8 (its text holds U+FFFD for them) has
 * only its two ends as cuts.
 */
async function lineCutsOf(enc: Encoder, text: string, bytes: Buffer, slicer: Slicer, wanted?: CutsWanted): Promise<LineCuts> {
  const exact = Buffer.byteLength(text) === bytes.length;
  const tokens = [0];
  const offsets = [0];
  let t = 0;
  let b = 0;
  for (const piece of hasLongRun(text) ? piecesOf(text) : [text]) {
    for (const chunk of enc.chunks(piece)) {
      for (const id of chunk) {
        t++;
        if (!exact) continue;
        b += enc.bytesOf(id);
        if (b >= bytes.length || (bytes[b]! & 0xc0) !== 0x80) {
          if (wanted && b < bytes.length && !(t >= wanted.tokens[0] && t <= wanted.tokens[1]) && !(b >= wanted.bytes[0] && b <= wanted.bytes[1])) continue;
          tokens.push(t);
          offsets.push(b);
        }
      }
      await slicer.maybeYield();
    }
  }
  // Token bytes that do not add up to the line's would be a tokenizer change: its ends only.
  return exact && b === bytes.length && tokens.at(-1) === t ? { tokens, bytes: offsets } : { tokens: [0, t], bytes: [0, bytes.length] };
}

/** Largest i with a[i] <= v (a ascending, a[0] <= v). */
function floorIndex(a: number[], v: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (a[mid]! <= v) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Smallest i with a[i] >= v (a ascending, a.at(-1) >= v). */
function ceilIndex(a: number[], v: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! >= v) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The tokens of `text`: gpt-tokenizer's count, except for texts with a run longer than MAX_RUN_CHARS (see above). */
export async function countTokens(text: string, name: string = DEFAULT_TOKENIZER): Promise<number> {
  const count = await tokenCounter(name);
  return boundedCount(count, encoders.get(name as TokenizerName)!, text);
}

// ---------------------------------------------------------------------------
// a file in tokens

const CHECKPOINT_BYTES = 64 * 1024;
const SCAN_BYTES = 1 << 20;

interface Point {
  /** 0-based line */
  lineIdx: number;
  byte: number;
  /** tokens before this line */
  tokens: number;
  /** set when `byte` is inside the line: where that line starts (a token page cut a line longer than the cap) */
  lineByte?: number;
  /** with lineByte: the tokens of that whole line (counted on the page of its first piece) */
  lineTokens?: number;
}

interface TokenMap {
  path: string;
  size: number;
  bomLen: number;
  count: Counter;
  enc: Encoder;
  /** the cuts of the line last cut (token windows page through one long line) */
  lastCuts?: { byte: number; cuts: LineCuts };
  checkpoints: Point[];
  /** how far the file was tokenized: a line start */
  done: Point;
  complete: boolean;
  pages: Map<string, Point[]>;
  /** the tail of the work on this map: scans yield, so two requests must not extend it at once */
  queue: Promise<unknown>;
}

/** Runs `work` on the map after the work already queued on it. */
function serialized<T>(m: TokenMap, work: () => Promise<T>): Promise<T> {
  const run = m.queue.then(work, work);
  m.queue = run.catch(() => {});
  return run;
}

const maps = new Map<string, TokenMap>();

async function mapOf(path: string, etag: string, size: number, bomLen: number, tokenizer: string): Promise<TokenMap> {
  const key = `${tokenizer}\0${path}\0${etag}`;
  let m = maps.get(key);
  if (!m) {
    const start = { lineIdx: 0, byte: Math.min(bomLen, size), tokens: 0 };
    m = {
      path,
      size,
      bomLen,
      count: await tokenCounter(tokenizer),
      enc: encoders.get(tokenizer as TokenizerName)!,
      checkpoints: [start],
      done: start,
      complete: size <= bomLen,
      pages: new Map(),
      queue: Promise.resolve(),
    };
    if (maps.size >= 16) maps.delete(maps.keys().next().value!);
    maps.set(key, m);
  }
  return m;
}

/**
 * Visit the lines from `from` (a line start) on, with their token counts, until
 * `visit` returns false or the file ends. Lines are cut at '\n' only, as the line
 * index cuts them. Yields to the event loop every SLICE_MS.
 */
/** Tokens before a page start: a cut line's tokens count before any of its later pieces. */
function tokensAt(p: Point): number {
  return p.lineByte === undefined ? p.tokens : p.tokens + p.lineTokens!;
}

/** The start of the UTF-8 character holding byte `at` (never before `floor`): a cut there splits no character. */
function charStartAtOrBefore(path: string, at: number, floor: number): number {
  const fd = openForRead(path);
  try {
    const b = Buffer.alloc(4);
    const from = Math.max(floor, at - 3);
    const n = readAt(fd, b, 0, at + 1 - from, from);
    for (let i = Math.min(n, at + 1 - from) - 1; i >= 0; i--) {
      if ((b[i]! & 0xc0) !== 0x80) return from + i > floor ? from + i : at;
    }
    return at;
  } finally {
    closeFd(fd);
  }
}

/**
 * The tokens of one line (`bytes`, starting at file byte `byte`). A long line is
 * cut while it is counted (one pass), and its cuts kept: the window asked of it
 * next is then found without tokenizing it again.
 */
async function lineTokensOf(m: TokenMap, bytes: Buffer, byte: number, dec: TextDecoder, slicer: Slicer): Promise<number> {
  if (m.lastCuts?.byte === byte && m.lastCuts.cuts.bytes.at(-1) === bytes.length) return m.lastCuts.cuts.tokens.at(-1)!;
  const text = dec.decode(bytes);
  if (text.length <= SLICED_CHARS || bytes.length > tokenLimits.fullCutsMaxBytes) return boundedCount(m.count, m.enc, text, slicer);
  const cuts = await lineCutsOf(m.enc, text, bytes, slicer);
  m.lastCuts = { byte, cuts };
  return cuts.tokens.at(-1)!;
}

/** Visit the lines from `from` with their token counts; `firstTokens`, when known, is the first line's count (not counted again). */
async function scanLines(m: TokenMap, from: Point, visit: (line: Point, endByte: number, tokens: number) => boolean, firstTokens?: number): Promise<void> {
  // Awaited chunk by chunk: a remote value is read in one forward pass (source/byte-source.ts).
  const src = openSource(m.path);
  const dec = new TextDecoder();
  const slicer = new Slicer();
  try {
    let pos = from.byte;
    let lineIdx = from.lineIdx;
    let tokens = from.tokens;
    let carry = Buffer.alloc(0);
    while (pos < m.size || carry.length) {
      const want = Math.min(SCAN_BYTES, m.size - pos);
      const got = want > 0 ? await src.readAt(pos, want) : new Uint8Array(0);
      const n = got.length;
      const chunk = Buffer.concat([carry, got]);
      const chunkStart = pos - carry.length;
      pos += n;
      const atEnd = pos >= m.size || n === 0;
      let s = 0;
      for (;;) {
        const nl = chunk.indexOf(10, s);
        if (nl < 0 && !atEnd) break;
        const e = nl < 0 ? chunk.length : nl + 1;
        if (e === s) break;
        const t =
          firstTokens !== undefined && chunkStart + s === from.byte ? firstTokens : await lineTokensOf(m, chunk.subarray(s, e), chunkStart + s, dec, slicer);
        await slicer.maybeYield();
        if (!visit({ lineIdx, byte: chunkStart + s, tokens }, chunkStart + e, t)) return;
        lineIdx++;
        tokens += t;
        s = e;
        if (nl < 0) break;
      }
      carry = Buffer.from(chunk.subarray(s));
      if (atEnd) break;
    }
  } finally {
    src.close();
  }
}

/** Tokenize on from the map's frontier until `tokens` are counted (or the end), leaving checkpoints. */
async function extendTo(m: TokenMap, tokens: number): Promise<void> {
  if (m.complete || m.done.tokens > tokens) return;
  let last = m.checkpoints.at(-1)!;
  let reached = false;
  await scanLines(m, m.done, (line, endByte, t) => {
    if (line.byte - last.byte >= CHECKPOINT_BYTES) {
      last = line;
      m.checkpoints.push(line);
    }
    m.done = { lineIdx: line.lineIdx + 1, byte: endByte, tokens: line.tokens + t };
    reached = m.done.tokens > tokens;
    return !reached;
  });
  if (m.done.byte >= m.size) m.complete = true;
}

/** The line holding token `t` (0-based), as the point where it starts, plus its count; null past the end. */
async function lineOfToken(m: TokenMap, t: number): Promise<{ line: Point; endByte: number; tokens: number } | null> {
  await extendTo(m, t);
  let lo = 0;
  let hi = m.checkpoints.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (m.checkpoints[mid]!.tokens <= t) lo = mid;
    else hi = mid - 1;
  }
  let found: { line: Point; endByte: number; tokens: number } | null = null;
  await scanLines(m, m.checkpoints[lo]!, (line, endByte, n) => {
    if (line.tokens + n > t) {
      found = { line, endByte, tokens: n };
      return false;
    }
    return true;
  });
  return found;
}

export interface TokenSpan {
  /** 1-based lines, inclusive */
  startLine: number;
  endLine: number;
  startByte: number;
  endByte: number;
  /** line-granular token offsets of the span: [startToken, endToken) */
  startToken: number;
  endToken: number;
  /** total tokens of the file, when it has been tokenized to its end */
  totalTokens: number | null;
  notes: string[];
}

export interface FileRef {
  path: string;
  etag: string;
  size: number;
  bomLen: number;
}

function totalOf(m: TokenMap): number | null {
  return m.complete ? m.done.tokens : null;
}

/**
 * Tokens [start, end) of the file, exactly: the span starts at the token
 * boundary at or before `start` and ends at the one at or after `end` that are
 * also character boundaries (a token can hold part of a UTF-8 character), and
 * it holds at most `maxBytes` bytes: past them it ends at the last such boundary
 * that fits, and says so. Its endToken is always where the next window starts
 * to cover every byte once.
 */
export async function tokenRangeSpan(f: FileRef, tokenizer: string, start: number, end: number, maxBytes = Infinity): Promise<TokenSpan> {
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end <= start) {
    throw new FolioError('invalid_range', `token range ${start}-${end} is invalid: 0-based, end exclusive, start < end`, {
      token_start: start,
      token_end: end,
    });
  }
  const m = await mapOf(f.path, f.etag, f.size, f.bomLen, tokenizer);
  return serialized(m, () => spanOfTokens(m, tokenizer, start, end, maxBytes));
}

type LineOfToken = { line: Point; endByte: number; tokens: number };

/**
 * The cuts of a line near token `token` (from the line's start) or byte `byte`
 * (from the line's start): all of them for a line up to fullCutsMaxBytes (the
 * last line cut is kept: paging through one long line cuts it once), else those
 * within a margin of either.
 */
async function cutsOf(m: TokenMap, l: LineOfToken, near: { token?: number; byte?: number }): Promise<LineCuts> {
  const full = l.endByte - l.line.byte <= tokenLimits.fullCutsMaxBytes;
  if (full && m.lastCuts?.byte === l.line.byte) return m.lastCuts.cuts;
  const fd = openForRead(m.path);
  let bytes: Buffer;
  try {
    bytes = Buffer.allocUnsafe(l.endByte - l.line.byte);
    bytes = bytes.subarray(0, readAt(fd, bytes, 0, bytes.length, l.line.byte));
  } finally {
    closeFd(fd);
  }
  // A character is at most 4 bytes, so at most 3 cuts in a row fall inside one, and no token is near 1 KiB: the margins hold the cuts around either point.
  const wanted: CutsWanted | undefined = full
    ? undefined
    : {
        tokens: near.token === undefined ? [-1, -1] : [near.token - 8, near.token + 8],
        bytes: near.byte === undefined ? [-1, -1] : [near.byte - 1024, near.byte + 1024],
      };
  const cuts = await lineCutsOf(m.enc, new TextDecoder().decode(bytes), bytes, new Slicer(), wanted);
  if (full) m.lastCuts = { byte: l.line.byte, cuts };
  return cuts;
}

async function spanOfTokens(
  m: TokenMap,
  tokenizer: string,
  start: number,
  end: number,
  maxBytes: number,
): Promise<TokenSpan & { startsMidLine: boolean; endsMidLine: boolean }> {
  const first = await lineOfToken(m, start);
  if (!first) {
    throw new FolioError('out_of_bounds', `token ${start} is past the end of the file (${m.done.tokens} tokens of ${tokenizer})`, {
      token_start: start,
      total_tokens: m.done.tokens,
      tokenizer,
    });
  }
  const notes: string[] = [];
  let startToken = first.line.tokens;
  let startByte = first.line.byte;
  if (start > startToken) {
    const c = await cutsOf(m, first, { token: start - first.line.tokens });
    const i = floorIndex(c.tokens, start - first.line.tokens);
    startToken += c.tokens[i]!;
    startByte += c.bytes[i]!;
    if (startToken < start) notes.push(`token ${start} starts inside a character: the window starts at token ${startToken}, that character's first`);
  }
  let last = await lineOfToken(m, end - 1);
  if (!last) {
    notes.push(`token_end ${end} clamped to the end of the file (${m.done.tokens} tokens)`);
    last = (await lineOfToken(m, m.done.tokens - 1))!;
  }
  let endLine = last;
  let endToken = last.line.tokens + last.tokens;
  let endByte = last.endByte;
  if (end < endToken) {
    const c = await cutsOf(m, last, { token: end - last.line.tokens });
    const i = ceilIndex(c.tokens, end - last.line.tokens);
    endToken = last.line.tokens + c.tokens[i]!;
    endByte = last.line.byte + c.bytes[i]!;
    if (endToken > end) notes.push(`token ${end - 1} ends inside a character: the window ends at token ${endToken}, after that character`);
  }
  if (endByte - startByte > maxBytes) {
    // Over the cap: end at the last cut that fits, in the line holding the cap's byte.
    const limit = startByte + maxBytes;
    let hold: LineOfToken | null = null;
    await scanLines(
      m,
      first.line,
      (line, lineEnd, t) => {
        if (lineEnd <= limit) return true;
        hold = { line, endByte: lineEnd, tokens: t };
        return false;
      },
      first.tokens,
    );
    const h = hold as LineOfToken | null;
    if (h) {
      endLine = h;
      if (h.line.byte >= limit) {
        endToken = h.line.tokens;
        endByte = h.line.byte;
      } else {
        const c = await cutsOf(m, h, { byte: limit - h.line.byte, token: startByte > h.line.byte ? startToken - h.line.tokens : undefined });
        let i = floorIndex(c.bytes, limit - h.line.byte);
        // A window holds at least one token, even one longer than the cap.
        while (h.line.byte + c.bytes[i]! <= startByte) i++;
        endToken = h.line.tokens + c.tokens[i]!;
        endByte = h.line.byte + c.bytes[i]!;
      }
      notes.push(
        `tokens ${start}-${end} are over the ${maxBytes}-byte cap: this window ends at token ${endToken} (byte ${endByte}); continue with token_start ${endToken}`,
      );
    }
  }
  const endsAtLineStart = endByte === endLine.line.byte && endLine.line.byte > startByte;
  return {
    startLine: first.line.lineIdx + 1,
    endLine: endsAtLineStart ? endLine.line.lineIdx : endLine.line.lineIdx + 1,
    startByte,
    endByte,
    startToken,
    endToken,
    totalTokens: totalOf(m),
    notes,
    startsMidLine: startByte > first.line.byte,
    endsMidLine: !endsAtLineStart && endByte < endLine.endByte,
  };
}

export interface TokenPage extends TokenSpan {
  page: number;
  nextPage: number | null;
  /** the page continues a line the page before cut */
  startsMidLine: boolean;
  /** the page ends inside a line (the next page continues it) */
  endsMidLine: boolean;
}

/**
 * Page `page` (1-based) of pages of whole lines holding at most `budget` tokens and
 * `maxBytes` bytes each; a line over the token budget is a page of its own, and a
 * line over `maxBytes` is cut into pages of at most `maxBytes` bytes (cut on a
 * character boundary), so the pages cover every byte once. A cut line's tokens are
 * counted on the page its first piece is on.
 */
export async function tokenPage(f: FileRef, tokenizer: string, budget: number, page: number, maxBytes: number): Promise<TokenPage> {
  if (!Number.isInteger(budget) || budget < 1) throw new FolioError('invalid_range', `page_tokens must be >= 1, got ${budget}`, { page_tokens: budget });
  if (!Number.isInteger(page) || page < 1) throw new FolioError('invalid_range', `page must be >= 1, got ${page}`, { page });
  const m = await mapOf(f.path, f.etag, f.size, f.bomLen, tokenizer);
  return serialized(m, () => pageOfTokens(m, f, budget, page, maxBytes));
}

async function pageOfTokens(m: TokenMap, f: FileRef, budget: number, page: number, maxBytes: number): Promise<TokenPage> {
  const key = `${budget}:${maxBytes}`;
  let starts = m.pages.get(key);
  if (!starts) m.pages.set(key, (starts = [m.checkpoints[0]!]));
  const fileEnd = { lineIdx: -1, byte: f.size, tokens: -1 };
  // starts[i] is where page i+1 starts; a start at the file's end closes the list.
  while (starts.length <= page && starts.at(-1)!.byte < f.size) {
    const from = starts.at(-1)!;
    const lineFrom = from.lineByte === undefined ? from : { lineIdx: from.lineIdx, byte: from.lineByte, tokens: from.tokens };
    const base = tokensAt(from);
    let next: Point | null = null;
    let end: Point = fileEnd;
    await scanLines(
      m,
      lineFrom,
      (line, endByte, t) => {
        const first = line.byte === lineFrom.byte;
        if (first && endByte - from.byte > maxBytes) {
          // A line longer than the cap: this page takes the next maxBytes of it.
          next = {
            lineIdx: line.lineIdx,
            byte: charStartAtOrBefore(m.path, from.byte + maxBytes, from.byte),
            tokens: line.tokens,
            lineByte: line.byte,
            lineTokens: t,
          };
          return false;
        }
        if (!first && (line.tokens + t - base > budget || endByte - from.byte > maxBytes)) {
          next = line;
          return false;
        }
        end = { lineIdx: line.lineIdx + 1, byte: endByte, tokens: line.tokens + t };
        return true;
      },
      from.lineTokens,
    );
    const n: Point = next ?? end;
    if (!next && end.byte >= f.size && !m.complete) {
      m.done = end;
      m.complete = true;
    }
    starts.push(n);
  }
  const pages = starts.length - 1;
  if (pages === 0 && page === 1) {
    const at = starts[0]!;
    return {
      page,
      nextPage: null,
      startsMidLine: false,
      endsMidLine: false,
      startLine: 1,
      endLine: 0,
      startByte: at.byte,
      endByte: at.byte,
      startToken: 0,
      endToken: 0,
      totalTokens: 0,
      notes: ['the file is empty'],
    };
  }
  if (page > pages) {
    throw new FolioError('beyond_end', `page ${page} is past the last page (${Math.max(1, pages)}) of ${budget}-token pages`, {
      page,
      last_page: Math.max(1, pages),
      page_tokens: budget,
    });
  }
  const a = starts[page - 1]!;
  const b = starts[page]!;
  const endsMidLine = b.lineByte !== undefined;
  return {
    page,
    nextPage: page < pages || b.byte < f.size ? page + 1 : null,
    startsMidLine: a.lineByte !== undefined,
    endsMidLine,
    startLine: a.lineIdx + 1,
    endLine: endsMidLine ? b.lineIdx + 1 : b.lineIdx,
    startByte: a.byte,
    endByte: b.byte,
    startToken: tokensAt(a),
    endToken: tokensAt(b),
    totalTokens: totalOf(m),
    notes: [],
  };
}
