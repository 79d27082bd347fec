/**
 * read: any window of any file, by line ranges, byte window, exact bytes, char
 * pages, head/tail, or the whole file under a limit. Every answer carries the
 * file's version, encoding, newline style and total lines (or indexing progress).
 *
 * Policies (documented in docs/API.md; each mode's module says its own):
 * - line-modes.ts: ranges, head, tail.  byte-modes.ts: byte windows, exact bytes.
 *   pages.ts: char-budget pages.  read-context.ts: decoding and whole-line windows.
 * - Every answer is at most maxBytes (cap 256 KiB) of content, except `full` (up to
 *   its own limit); a longer answer is cut at a whole line with a note saying what to
 *   ask next, and a single line longer than the cap comes back as a bounded slice
 *   with an explicit lineCut marker and nextStartByte to continue inside it.
 * - The BOM is never part of content (`bom: true` says it is there).
 * - Results are the engine's camelCase ReadResult; api/read-wire.ts maps them to
 *   the snake_case wire answer.
 */
import { FolioError } from '../errors.ts';
import { binaryFileError, factsOf, type FileFacts } from './file-facts.ts';
import { codecFor } from '../text/codec.ts';
import { isByteWiseLegacy } from '../text/units.mjs';
import { linesText, type ReadContext } from './read-context.ts';
import { READ_LIMITS, type ReadOptions, type ReadRequest, type ReadResult } from './read-result.ts';
import { readHead, readLines, readTail } from './line-modes.ts';
import { readByteWindow, readExact } from './byte-modes.ts';
import { readPage } from './pages.ts';

export { READ_LIMITS, answerText } from './read-result.ts';
export type { Adjustment, LineCut, RangeContent, ReadOptions, ReadRequest, ReadResult } from './read-result.ts';

function readFull(ctx: ReadContext): Partial<ReadResult> {
  const { size, index } = ctx;
  const limit = Math.min(ctx.opts.maxFullBytes ?? READ_LIMITS.maxFullBytes, READ_LIMITS.maxFullBytes);
  if (size > limit) {
    throw new FolioError('too_large', `the file is ${size} bytes; full reads are limited to ${limit}`, {
      size,
      limit,
      hint: 'read it by pages, byte windows or line ranges',
    });
  }
  return {
    content: size ? linesText(ctx, 0, size, 1, true) : '',
    startLine: size ? 1 : null,
    endLine: size ? index.lineCount : null,
    startByte: 0,
    endByte: size,
  };
}

/** The part of the answer `req` decides (content, span, mode-specific fields). */
function readMode(ctx: ReadContext, req: ReadRequest): Partial<ReadResult> {
  switch (req.mode) {
    case 'lines':
      return readLines(ctx, req.ranges);
    case 'bytes': {
      let max = req.maxBytes ?? READ_LIMITS.defaultWindowBytes;
      if (max > READ_LIMITS.maxWindowBytes) {
        ctx.notes.push(`max_bytes ${max} clamped to the ${READ_LIMITS.maxWindowBytes}-byte cap`);
        max = READ_LIMITS.maxWindowBytes;
      }
      return readByteWindow(ctx, req.startByte, max);
    }
    case 'exact':
      return readExact(ctx, req.startByte, req.endByte);
    case 'page':
      return readPage(ctx, req.page, req.pageChars ?? READ_LIMITS.defaultPageChars);
    case 'head':
      return readHead(ctx, req.lines);
    case 'tail':
      return readTail(ctx, req.lines);
    case 'full':
      return readFull(ctx);
  }
}

/** Read `path` as `req` asks. */
export async function read(path: string, req: ReadRequest, opts: ReadOptions = {}): Promise<ReadResult> {
  return readFrom(await factsOf(path), req, opts);
}

/**
 * `facts` decoded as `asked` (ReadOptions.encoding), with a note naming what was
 * detected; invalid_input for an encoding Folio cannot decode this file in.
 */
function withEncoding(facts: FileFacts, asked: string | undefined, notes: string[]): FileFacts {
  if (asked === undefined) return facts;
  const name = asked.trim().toLowerCase();
  if (name === facts.encoding) return facts;
  const wide = facts.index.layout !== 'utf-8';
  const byteWise = name === 'utf-8' || isByteWiseLegacy(name);
  if (wide || !byteWise) {
    throw new FolioError(
      'invalid_input',
      wide
        ? `${facts.identity.path} is ${facts.encoding}: it is read as that (encoding can choose among utf-8 and legacy encodings of a file read by bytes)`
        : `encoding ${JSON.stringify(asked)} is not one Folio decodes a file read by bytes in: give utf-8 or a legacy encoding such as windows-1252, iso-8859-2, shift_jis, koi8-r`,
      { field: 'encoding', encoding: asked, detected: facts.encoding },
    );
  }
  notes.push(`decoded as ${name}, as asked (detected: ${facts.encoding})`);
  const { encodingConfidence: _dropped, ...rest } = facts;
  return { ...rest, encoding: name };
}

/** Read as `req` asks from a file (or remote value) whose facts are known. */
export function readFrom(detected: FileFacts, req: ReadRequest, opts: ReadOptions = {}): ReadResult {
  if (detected.verdict.isBinary && !opts.allowBinary) throw binaryFileError(detected);
  const forcedNotes: string[] = [];
  const facts = withEncoding(detected, opts.encoding, forcedNotes);
  const cap = Math.min(opts.maxBytes ?? READ_LIMITS.maxWindowBytes, READ_LIMITS.maxWindowBytes);
  const codec = codecFor(facts.encoding);
  const bomLen = facts.encoding === 'binary' ? 0 : facts.index.bomLength;
  const ctx: ReadContext = { facts, index: facts.index, size: facts.identity.size, opts, cap, notes: forcedNotes, codec, bomLen };
  const part = readMode(ctx, req);
  const index = facts.index;
  return {
    path: facts.identity.path,
    version: facts.version,
    encoding: facts.encoding,
    ...(facts.encodingConfidence !== undefined ? { encodingConfidence: facts.encodingConfidence } : {}),
    bom: facts.bom,
    newlineStyle: index.complete ? index.newlineStyle : null,
    totalLines: index.complete ? index.lineCount : null,
    indexing: facts.indexing,
    mode: req.mode,
    content: '',
    startLine: null,
    endLine: null,
    startByte: 0,
    endByte: 0,
    hashlines: Boolean(opts.hashlines),
    truncated: false,
    ...part,
    notes: ctx.notes,
    ...(ctx.invalid ? { invalidUtf8: ctx.invalid } : {}),
  };
}
