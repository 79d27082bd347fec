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

 */
import { closeFd, readAt } from '../index/byte-source.ts';
import { FolioError } from '../errors.ts';
import { openForRead, openSource } from '../index/identity.ts';
import {
  boundedCount,
  ceilIndex,
  encoders,
  floorIndex,
  lineCutsOf,
  SLICED_CHARS,
  Slicer,
  tokenCounter,
  tokenLimits,
  type Counter,
  type CutsWanted,
  type Encoder,
  type LineCuts,
  type TokenizerName,
} from './tokenizer.ts';

export { countTokens, DEFAULT_TOKENIZER, MAX_RUN_CHARS, TOKENIZERS, tokenLimits, type TokenizerName } from './tokenizer.ts';

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
