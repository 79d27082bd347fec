/**
 * Edits by quoting text (issue 14): an agent names what to change by quoting it,
 * `{oldText, newText, replaceAll?}` (Claude Code's Edit / MultiEdit), and this
 * module resolves such edits against ONE version of a file into byte-range
 * replacements. It writes nothing; a write (upsert) applies the replacements under
 * its preconditions.
 *
 *   interface QuotedEdit { oldText: string; newText: string; replaceAll?: boolean }
 *   interface ResolvedReplacement {
 *     edit: number;                 // index into edits
 *     start: number; end: number;   // file bytes, end exclusive
 *     startLine: number; endLine: number; // 1-based lines of the first and last replaced byte
 *     content: Uint8Array;          // newText in the file's encoding and newline style
 *   }
 *   resolveQuotedEdits(index: LineIndex, encoding: string, edits: QuotedEdit[], opts?): Promise<ResolvedReplacement[]>
 *     index: the file's complete LineIndex (openIndex(path)); encoding: factsOf(path).encoding
 *
 * Rules:
 * - Matching is exact on the file's bytes (oldText encoded in the file's encoding:
 *   UTF-8, UTF-16LE/BE, or an ASCII-compatible legacy one), with one normalisation:
 *   the agent's '\n' stands for the file's newline. In a CRLF file '\n' (and '\r\n')
 *   is '\r\n', in a CR file '\r'; in an LF file or one without newlines the text is
 *   taken as sent; in a file of mixed endings the text as sent is tried first and,
 *   if it is nowhere, its CRLF form. newText is written in the form that matched.
 * - An edit matches exactly once, or with replaceAll at least once (every
 *   occurrence, non-overlapping, left to right). "Once" counts overlapping
 *   occurrences: "aa" is in "aaa" twice, which is ambiguous.
 * - Every edit resolves against the same bytes (one streamed pass searches all
 *   quotes); replacements of different edits may not overlap. The result is sorted
 *   by start. If the file changed during the pass: conflict.
 *
 * Errors (FolioError), details made for fixing the quote in one step:
 * - invalid_input  {edit, hint}: empty oldText, oldText equal to newText, no edits
 * - no_match       {edit, nearest: {line, end_line, text, text_truncated, differs, similarity} | null,
 *                   near_miss_scanned_bytes, near_miss_complete, newline_style, other_failures, hint}
 * - ambiguous_match {edit, count, lines (start line of each of the first MAX_LINES candidates),
 *                   lines_truncated, other_failures, hint}
 * - invalid_range  {edits: [a, b], ranges: [{edit, line, end_line, start_byte, end_byte}, …], hint}
 * - too_large      {edit, count, max}: a replaceAll with more than maxReplacements matches
 * other_failures lists the other edits that fail too ({edit, code, count}), so one
 * answer shows everything to fix.
 *
 * Big files: the search streams the file in windows (quote-scan.ts) and never holds
 * it whole; the near-miss search (near-miss.ts) is bounded and says how much it saw.
 */
import { FolioError } from '../errors.ts';
import { statRegularFile } from '../index/identity.ts';
import { mountedSource } from '../index/byte-source.ts';
import type { LineIndex, NewlineCounts, NewlineStyle } from '../index/line-index.ts';
import { codecFor, type TextCodec } from '../text/codec.ts';
import { differencesOf, findLoose, quoteLines, reindent, type LooseDifference, type LooseHit, type LooseOptions, type LooseScan } from './loose-match.ts';
import { nearestMiss, type NearMiss, type NearMissOptions } from './near-miss.ts';
import { linesAt, openHandle, scanNeedles, type Needle } from './quote-scan.ts';

export interface QuotedEdit {
  oldText: string;
  newText: string;
  replaceAll?: boolean;
}

export interface ResolvedReplacement {
  /** index into the edits */
  edit: number;
  /** file bytes [start, end) */
  start: number;
  end: number;
  /** 1-based lines of the first and the last replaced byte */
  startLine: number;
  endLine: number;
  /** newText encoded in the file's encoding with the file's newline style (shared by one edit's matches: do not mutate) */
  content: Uint8Array;
  /** the quote was not in the file exactly and matched here loosely (loose-match.ts) */
  loose?: LooseMatch;
}

/** Where and how a quote matched loosely, for the answer. */
export interface LooseMatch {
  edit: number;
  start_line: number;
  end_line: number;
  /** how the quote differed from the file there */
  differs: (LooseDifference | 'final_newline')[];
  /** new_text was given the file's indentation */
  reindented: boolean;
}

export interface QuoteEditOptions {
  /** window of the streamed search in bytes (default 4 MiB; tests make it small to put matches across windows) */
  chunkBytes?: number;
  /** most matches one replaceAll edit may have (default 1,000,000) */
  maxReplacements?: number;
  /** bounds of the near-miss search of a quote that matched nowhere */
  nearMiss?: NearMissOptions;
  /** bounds of the loose match of a quote that matched nowhere exactly; false: exact matches only */
  loose?: LooseOptions | false;
}

/** Candidate lines listed in an ambiguous_match. */
export const MAX_LINES = 20;
const DEFAULT_MAX_REPLACEMENTS = 1_000_000;

/**
 * The forms `text` may take in a file of `style`, in the order they are tried:
 * the dominant ending's first, then the other one's when the file has lines
 * ending that way too (`counts`; a CRLF file with a few LF lines, or the reverse).
 */
export function newlineFormsOf(text: string, style: NewlineStyle, counts?: NewlineCounts): string[] {
  const crlf = text.replace(/\r?\n/g, '\r\n');
  const also = (first: string, other: string, present: boolean) => (present && other !== first ? [first, other] : [first]);
  switch (style) {
    case 'crlf':
      return also(crlf, text, (counts?.lf ?? 0) > 0);
    case 'cr':
      return [text.replace(/\r?\n/g, '\r')];
    case 'mixed':
      return also(text, crlf, true);
    default:
      return also(text, crlf, (counts?.crlf ?? 0) > 0);
  }
}

interface Failure {
  edit: number;
  code: 'no_match' | 'ambiguous_match' | 'too_large';
  count: number;
  /** ambiguous loosely: the places that matched */
  loose?: LooseHit[];
  /** no_match, and the file was too big to look for the quote loosely */
  looseIncomplete?: boolean;
}

function checkEdits(edits: QuotedEdit[]): void {
  if (!Array.isArray(edits) || edits.length === 0) {
    throw new FolioError('invalid_input', 'no edits: send at least one {old_text, new_text}', { edits: 0 });
  }
  edits.forEach((e, i) => {
    if (typeof e?.oldText !== 'string' || typeof e?.newText !== 'string') {
      throw new FolioError('invalid_input', `edit ${i}: old_text and new_text must be strings`, { edit: i });
    }
    if (e.oldText === '') {
      throw new FolioError('invalid_input', `edit ${i}: old_text is empty`, {
        edit: i,
        hint: 'quote the text to replace; to insert, quote the line before or after the insertion point and repeat it in new_text',
      });
    }
    if (e.oldText === e.newText) {
      throw new FolioError('invalid_input', `edit ${i}: old_text and new_text are the same, so it changes nothing`, {
        edit: i,
        hint: 'drop this edit, or change new_text',
      });
    }
  });
}

/** A boundary test for encodings where a byte cannot tell whether it starts a character (Shift_JIS …). */
function acceptOf(index: LineIndex, codec: TextCodec): ((startByte: number) => boolean) | undefined {
  if (codec.selfSynchronizing) return undefined;
  return (startByte) => {
    const lineIdx = index.lineAt(startByte);
    const floor = lineIdx === 0 ? 0 : index.lineStart(lineIdx);
    return codec.snapBack(index.path, Math.max(0, floor), startByte) === startByte;
  };
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/**
 * Resolve `edits` against the file `index` describes into byte replacements,
 * sorted by start; throws FolioError (see the header) when a quote is not found,
 * is ambiguous, or two edits overlap.
 */
export async function resolveQuotedEdits(index: LineIndex, encoding: string, edits: QuotedEdit[], opts: QuoteEditOptions = {}): Promise<ResolvedReplacement[]> {
  checkEdits(edits);
  if (!index.complete) {
    throw new FolioError('invalid_input', 'quoted edits need the complete line index (openIndex)', { indexedBytes: index.indexedBytes, size: index.size });
  }
  const codec = codecFor(encoding);
  const style = index.newlineStyle;
  const counts = index.newlineCounts;
  const maxReplacements = opts.maxReplacements ?? DEFAULT_MAX_REPLACEMENTS;

  // One needle per (edit, form): every quote is searched in the same pass.
  const forms = edits.map((e) => newlineFormsOf(e.oldText, style, counts));
  const needles: Needle[] = [];
  const needleOf: number[][] = forms.map((fs, i) =>
    fs.map((f) => {
      const all = edits[i]!.replaceAll === true;
      needles.push({ bytes: codec.encode(f), all, keep: all ? maxReplacements : MAX_LINES });
      return needles.length - 1;
    }),
  );
  const version = index.identity;
  const hits = await scanNeedles(index.path, needles, {
    chunkBytes: opts.chunkBytes,
    unit: codec.unit,
    accept: acceptOf(index, codec),
    fromByte: index.bomLength,
    toByte: index.size,
  });
  // Per edit: the first form found (a mixed file's literal form before its CRLF form).
  const chosen = edits.map((_, i) => {
    const f = needleOf[i]!.findIndex((n) => hits[n]!.count > 0);
    return f < 0 ? null : { form: f, hits: hits[needleOf[i]![f]!]! };
  });
  // A single-place quote found nowhere exactly: looked for loosely (whitespace, indentation, look-alikes).
  const loose = new Map<number, LooseScan | null>();
  if (opts.loose !== false) {
    for (const [i, e] of edits.entries()) {
      if (!chosen[i] && !e.replaceAll) loose.set(i, await findLoose(index.path, codec, index.bomLength, index.size, e.oldText, opts.loose));
    }
  }
  // A remote value's bytes are read of its indexed version only (engine/backend/remote.ts).
  const now = mountedSource(index.path) ? version : statRegularFile(index.path);
  if (now.size !== version.size || now.mtimeNs !== version.mtimeNs || now.ino !== version.ino || now.dev !== version.dev) {
    throw new FolioError('conflict', `${version.path} changed while the quoted edits were being resolved`, {
      path: version.path,
      hint: 'read the file again and resend the edits',
    });
  }

  const failures: Failure[] = [];
  edits.forEach((e, i) => {
    const c = chosen[i];
    const l = loose.get(i);
    if (!c) {
      if (l?.complete && l.count > 1) failures.push({ edit: i, code: 'ambiguous_match', count: l.count, loose: l.hits });
      else if (!(l?.complete && l.count === 1)) failures.push({ edit: i, code: 'no_match', count: 0, looseIncomplete: l?.complete === false });
    } else if (!e.replaceAll && c.hits.count > 1) failures.push({ edit: i, code: 'ambiguous_match', count: c.hits.count });
    else if (c.hits.count > maxReplacements) failures.push({ edit: i, code: 'too_large', count: c.hits.count });
  });
  if (failures.length > 0) throw await failureError(index, codec, style, edits, failures, chosen, opts, maxReplacements);

  // Byte ranges, then their lines (one forward walk over all offsets).
  const unit = codec.unit;
  const ranges: { edit: number; start: number; end: number; content: Uint8Array; loose?: Omit<LooseMatch, 'edit'> }[] = [];
  const looseOut: { edit: number; start: number; end: number; content: Uint8Array; loose: Omit<LooseMatch, 'edit'> }[] = [];
  edits.forEach((e, i) => {
    const c = chosen[i];
    if (!c) return;
    const len = needles[needleOf[i]![c.form]!]!.bytes.length;
    const content = codec.encode(newlineFormsOf(e.newText, style, counts)[c.form] ?? e.newText);
    for (const start of c.hits.starts) ranges.push({ edit: i, start, end: start + len, content });
  });
  for (const [i, l] of loose) {
    if (!chosen[i] && l) looseOut.push({ edit: i, ...(await looseReplacement(index, codec, edits[i]!, l.hits[0]!)) });
  }
  ranges.push(...looseOut);
  ranges.sort((a, b) => a.start - b.start || a.edit - b.edit);
  const lines = await linesAt(
    index,
    codec,
    ranges.flatMap((r) => [r.start, r.end - unit]),
  );
  const out: ResolvedReplacement[] = ranges.map((r) => ({
    edit: r.edit,
    start: r.start,
    end: r.end,
    startLine: lines.get(r.start)! + 1,
    endLine: lines.get(r.end - unit)! + 1,
    content: r.content,
    ...('loose' in r ? { loose: { edit: r.edit, ...(r.loose as Omit<LooseMatch, 'edit'>) } } : {}),
  }));
  checkNoOverlap(out);
  return out;
}

/** invalid_range naming the first pair of replacements of different edits that overlap (`sorted` by start). */
function checkNoOverlap(sorted: ResolvedReplacement[]): void {
  let reach: ResolvedReplacement | null = null; // the replacement reaching furthest so far
  for (const r of sorted) {
    if (reach && r.start < reach.end) {
      const [a, b] = reach.edit <= r.edit ? [reach, r] : [r, reach];
      const range = (x: ResolvedReplacement) => ({ edit: x.edit, line: x.startLine, end_line: x.endLine, start_byte: x.start, end_byte: x.end });
      throw new FolioError(
        'invalid_range',
        `edits ${a.edit} (line ${a.startLine}${a.endLine !== a.startLine ? `-${a.endLine}` : ''}) and ${b.edit} (line ${b.startLine}${b.endLine !== b.startLine ? `-${b.endLine}` : ''}) replace overlapping text`,
        {
          edits: [a.edit, b.edit],
          ranges: [range(a), range(b)],
          hint: 'merge the two edits into one whose old_text covers both, or quote text that does not overlap',
        },
      );
    }
    if (!reach || r.end > reach.end) reach = r;
  }
}

const DIFFERS_HINT = {
  newlines: "the text is there with other line endings: send '\\n' for every line break (it stands for the file's newline) and check the final newline",
  indentation: 'the text is there with other leading indentation: copy nearest.text',
  whitespace: 'the text is there with other spaces or tabs: copy nearest.text',
  case: 'the text is there in other letter case: copy nearest.text',
  other: 'nothing nearly identical; nearest names the most similar lines: read around them and quote what is there',
} as const;

/** From this similarity an 'other' near-miss is the quote with a few characters changed. */
const NEARLY_IDENTICAL = 0.9;

/**
 * The hint beside a near-miss: what differs and what to do. An 'other' near-miss can
 * still be nearly identical (one character off in a long line: a typo, a curly quote
 * for a straight one), which the hint then says rather than "nothing nearly identical".
 */
export function nearMissHint(n: Pick<NearMiss, 'differs' | 'similarity'>): string {
  if (n.differs === 'other' && n.similarity >= NEARLY_IDENTICAL)
    return 'nearly identical: a few characters differ (a typo, other quotes, dashes or spaces): copy nearest.text, which is what the file has there';
  return DIFFERS_HINT[n.differs];
}

async function failureError(
  index: LineIndex,
  codec: TextCodec,
  style: NewlineStyle,
  edits: QuotedEdit[],
  failures: Failure[],
  chosen: ({ form: number; hits: { count: number; starts: number[] } } | null)[],
  opts: QuoteEditOptions,
  maxReplacements: number,
): Promise<FolioError> {
  const f = failures[0]!;
  const others = failures.slice(1).map((o) => ({ edit: o.edit, code: o.code, count: o.count }));
  if (f.code === 'no_match') {
    const miss = await nearestMiss(index.path, codec, index.bomLength, index.size, edits[f.edit]!.oldText, opts.nearMiss);
    const n = miss.nearest;
    const where = n ? `; nearest: line ${n.line}${n.end_line !== n.line ? `-${n.end_line}` : ''} (differs: ${n.differs})` : '';
    return new FolioError('no_match', `edit ${f.edit}: old_text was not found${where}`, {
      edit: f.edit,
      nearest: n,
      near_miss_scanned_bytes: miss.scannedBytes,
      near_miss_complete: miss.complete,
      newline_style: style,
      ...(f.looseIncomplete ? { loose_match: 'not tried: the file is bigger than a loose match scans' } : {}),
      other_failures: others,
      hint: n
        ? nearMissHint(n)
        : miss.complete
          ? 'no similar text in the file: read it and quote what is there'
          : 'no similar text in the part scanned for a near-miss: search or read the file and quote what is there',
    });
  }
  if (f.code === 'ambiguous_match' && f.loose) {
    const lineNos = f.loose.map((h) => h.line);
    return new FolioError(
      'ambiguous_match',
      `edit ${f.edit}: old_text is not in the file exactly, and ${f.count} places match it loosely (lines ${lineNos.join(', ')}${f.count > lineNos.length ? ', …' : ''})`,
      {
        edit: f.edit,
        count: f.count,
        lines: lineNos,
        lines_truncated: f.count > lineNos.length,
        loose: true,
        other_failures: others,
        hint: 'quote the text exactly as the file has it (read those lines), with enough lines around it to name one place',
      },
    );
  }
  if (f.code === 'too_large') {
    return new FolioError('too_large', `edit ${f.edit}: replace_all would replace ${f.count} occurrences (at most ${maxReplacements})`, {
      edit: f.edit,
      count: f.count,
      max: maxReplacements,
      other_failures: others,
    });
  }
  const starts = chosen[f.edit]!.hits.starts.slice(0, MAX_LINES);
  const lines = await linesAt(index, codec, starts);
  const lineNos = starts.map((s) => lines.get(s)! + 1);
  return new FolioError(
    'ambiguous_match',
    `edit ${f.edit}: old_text occurs ${plural(f.count, 'time')} (lines ${lineNos.join(', ')}${f.count > lineNos.length ? ', …' : ''})`,
    {
      edit: f.edit,
      count: f.count,
      lines: lineNos,
      lines_truncated: f.count > lineNos.length,
      other_failures: others,
      hint: 'add surrounding lines to old_text until it occurs once, or set replace_all to change every occurrence',
    },
  );
}

/** Whether the code unit just before byte `end` of `path` is a CR (a CRLF ending's content stops before it). */
async function crBefore(path: string, codec: TextCodec, end: number): Promise<boolean> {
  const cr = codec.encode('\r');
  if (end < cr.length) return false;
  const fh = await openHandle(path);
  try {
    const buf = Buffer.alloc(cr.length);
    const { bytesRead } = await fh.read(buf, 0, cr.length, end - cr.length);
    return bytesRead === cr.length && buf.equals(cr);
  } finally {
    await fh.close();
  }
}

/**
 * The replacement of the whole lines `hit` names (a loose match of `edit`'s quote):
 * from the first line's start to the last line's end (its newline too when the quote
 * ends with one), by new_text in the file's indentation and newline style.
 */
async function looseReplacement(
  index: LineIndex,
  codec: TextCodec,
  edit: QuotedEdit,
  hit: LooseHit,
): Promise<{ start: number; end: number; content: Uint8Array; loose: Omit<LooseMatch, 'edit'> }> {
  const { lines: qLines, withNewline } = quoteLines(edit.oldText);
  const first = hit.line - 1;
  const last = first + hit.lines.length - 1;
  const start = first === 0 ? index.bomLength : index.lineStart(first);
  let newText = reindent(edit.newText, qLines, hit.lines);
  const reindented = newText !== edit.newText;
  const differs: LooseMatch['differs'] = differencesOf(qLines, hit.lines);
  let end: number;
  if (withNewline) {
    const next = index.lineStart(last + 1);
    end = next >= 0 ? next : index.size;
    // The quote ends with a newline the file's last line does not have: new_text's last newline goes too.
    if (next < 0 && (await lineEndOf(index, codec, last)) === index.size) {
      differs.push('final_newline');
      if (newText.endsWith('\n')) newText = newText.slice(0, newText.endsWith('\r\n') ? -2 : -1);
    }
  } else {
    end = await lineEndOf(index, codec, last);
  }
  const content = codec.encode(newlineFormsOf(newText, index.newlineStyle, index.newlineCounts)[0] ?? newText);
  return { start, end, content, loose: { start_line: hit.line, end_line: last + 1, differs, reindented } };
}

/** Byte offset just past line `lineIdx`'s text (before its newline, a CRLF's CR included). */
async function lineEndOf(index: LineIndex, codec: TextCodec, lineIdx: number): Promise<number> {
  const end = index.lineEnd(lineIdx);
  return end < index.size && (await crBefore(index.path, codec, end)) ? end - codec.encode('\r').length : end;
}

/** The note beside a loosely matched quote: where, and what was forgiven. */
export function looseNote(l: LooseMatch): string {
  const lines = l.end_line !== l.start_line ? `lines ${l.start_line}-${l.end_line}` : `line ${l.start_line}`;
  const how = l.differs.map((d) => d.replace('_', ' ')).join(', ') || 'whitespace';
  return `edit ${l.edit}: old_text was not in the file exactly; it matched ${lines} loosely (differs: ${how})${l.reindented ? ", and new_text was given the file's indentation" : ''}: check the preview`;
}
