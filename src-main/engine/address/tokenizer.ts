/**
 * Counting text in the tokens of a named tokenizer (gpt-tokenizer: pure JS,
 * vocabularies shipped in the package, nothing downloaded), and where a line's
 * tokens end in bytes (tokens.ts measures files with these).
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
import { FolioError } from '../errors.ts';

export const TOKENIZERS = ['o200k_base', 'cl100k_base'] as const;
export type TokenizerName = (typeof TOKENIZERS)[number];
export const DEFAULT_TOKENIZER: TokenizerName = 'o200k_base';

export type Counter = (text: string) => number;
export const counters = new Map<TokenizerName, Counter>();
/** Token ids of a text, one array per pre-token (lazy), and the byte length of one token. */
export interface Encoder {
  chunks: (text: string) => Iterable<number[]>;
  bytesOf: (id: number) => number;
}
export const encoders = new Map<TokenizerName, Encoder>();
/** Special-token text like "<|endoftext|>" in a file is text, not an error. */
export const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** Longest run of one character class encoded in one go; longer runs are counted in pieces this long. */
export const MAX_RUN_CHARS = 512;
/** Runs of letters (with their marks), of whitespace, or of punctuation and symbols: what one pre-token can span. Digits come in groups of three. */
export const LONG_RUN = new RegExp(`[\\p{L}\\p{M}]{${MAX_RUN_CHARS + 1},}|\\s{${MAX_RUN_CHARS + 1},}|[^\\s\\p{L}\\p{M}\\p{N}]{${MAX_RUN_CHARS + 1},}`, 'gu');
/** Longest stretch of synchronous counting before the event loop gets a turn. */
export const SLICE_MS = 10;

/** True when `text` holds a run of one class longer than MAX_RUN_CHARS (and so is counted in pieces). */
export function hasLongRun(text: string): boolean {
  if (text.length <= MAX_RUN_CHARS) return false;
  LONG_RUN.lastIndex = 0;
  return LONG_RUN.test(text);
}

/** The text in the pieces counted one by one: the stretches between long runs whole, each long run cut every MAX_RUN_CHARS. */
export function* piecesOf(text: string): Generator<string> {
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
export class Slicer {
  private since = performance.now();
  async maybeYield(): Promise<void> {
    if (performance.now() - this.since < SLICE_MS) return;
    await new Promise<void>((resolveTurn) => setImmediate(resolveTurn));
    this.since = performance.now();
  }
}

/** Texts longer than this are encoded a pre-token at a time, yielding between them, rather than counted in one call. */
export const SLICED_CHARS = 16 * 1024;

/**
 * The count of `text`: gpt-tokenizer's count of the whole text, or of its pieces
 * when it has a long run; a long text is encoded a pre-token at a time (the same
 * tokens: count is encode's length), handing the event loop a turn every SLICE_MS.
 */
export async function boundedCount(count: Counter, enc: Encoder, text: string, slicer = new Slicer()): Promise<number> {
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

export function piecewiseCount(count: Counter, text: string): number {
  let total = 0;
  for (const piece of piecesOf(text)) total += count(piece);
  return total;
}

/** The count function of a tokenizer (whole texts, unbounded: callers go through boundedCount); its vocabulary is loaded on first use. */
export async function tokenCounter(name: string = DEFAULT_TOKENIZER): Promise<Counter> {
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
export function encoderOf(mod: { encodeGenerator: (text: string, o: typeof AS_TEXT) => Iterable<number[]>; default: unknown }): Encoder {
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
export interface CutsWanted {
  tokens: [number, number];
  bytes: [number, number];
}

/** Token boundaries in one line that are also character boundaries: token counts and byte offsets from the line's start, 0 and the end included. */
export interface LineCuts {
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
export async function lineCutsOf(enc: Encoder, text: string, bytes: Buffer, slicer: Slicer, wanted?: CutsWanted): Promise<LineCuts> {
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
export function floorIndex(a: number[], v: number): number {
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
export function ceilIndex(a: number[], v: number): number {
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
