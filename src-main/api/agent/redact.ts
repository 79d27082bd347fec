/**
 * Redaction of secrets in file text returned to agents (THE redaction module; the
 * rules and the spans they mark in a line are in secret-spans.ts). Never applied to
 * human views or to writes. Everything here takes the rules (the session's;
 * DEFAULT_RULES today), not a session, and reads file text only through the
 * api-level read (readByInput: the wire shape).
 *
 * Redaction decides on whole lines, whatever slice the agent asked for: for an
 * answer, the whole lines it touches are found (whole-lines.ts), the secret spans in
 * them, and every part of the answer inside a span is masked. So an exact byte range
 * inside a value, a window past the key name, or one half of a value is masked like
 * the whole line would be.
 *
 * A window may hold only the body of a key (its BEGIN/END lines outside the window):
 * secretLinesAround looks for the markers around it, and those lines are redacted
 * whole. An agent edit whose target lines hold something redactable is refused
 * (redactedTargetLines): the agent only ever saw placeholders there, and writing
 * its version back would put the placeholders into the file.
 */
import { readByInput } from '../read-address.ts';
import { editsOf, type UpsertRequest } from '../../engine/write/upsert.ts';
import type { ReadOutput } from '../schemas.ts';
import { maskedSlice, placeholderOf, redact, secretSpansOf, type RedactionRule, type SecretSpan } from './secret-spans.ts';
import { lineAroundSlice, lineBoundsOf, type LineBounds } from './whole-lines.ts';

export { DEFAULT_RULES, redact, redactedLinesIn, type Redacted, type RedactionRule } from './secret-spans.ts';

/** Every string inside `value`, redacted (a proposal's preview, a heading, an error's details are file text). */
export function redactStrings<T>(rules: RedactionRule[], value: T): T {
  if (typeof value === 'string') return redact(value, rules).text as T;
  if (Array.isArray(value)) return value.map((v) => redactStrings(rules, v)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactStrings(rules, v)])) as T;
  }
  return value;
}

/**
 * A parsed JSON value with secrets hidden: strings by the rules, and every scalar
 * whose key names a secret (`"password": …`) as the rules would judge the source
 * line `"key": value`.
 */
export function redactJsonValue(rules: RedactionRule[], value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => redactJsonValue(rules, v, key));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactJsonValue(rules, v, k)]));
  if (key !== undefined && value !== null) {
    const line = `${JSON.stringify(key)}: ${JSON.stringify(value)}`;
    const span = secretSpansOf(line, rules).find((s) => s.end > line.length - JSON.stringify(value).length);
    if (span) return placeholderOf(span.kind);
  }
  return typeof value === 'string' ? redact(value, rules).text : value;
}

/** The whole text of a read answer: its ranges joined, or its content. */
export function answerTextOf(r: Pick<ReadOutput, 'content' | 'ranges'>): string {
  return r.ranges ? r.ranges.map((x) => x.content).join('') : r.content;
}

const KEY_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;
const KEY_END = /-----END [A-Z0-9 ]*PRIVATE KEY-----/;
/** A key marker, or a line of base64 as long as a key body's (after a hashline anchor or a diff's marker). */
const MAY_HOLD_KEY = /PRIVATE KEY-----|^(?:\d+#[0-9a-f?]{3}\||[ +-])?[A-Za-z0-9+/=]{40,}\r?$/m;
/** Key blocks are a few dozen lines: look this far around a window for their markers. */
const KEY_CONTEXT_LINES = 200;
const PRIVATE_KEY_PLACEHOLDER = placeholderOf('private_key');
const HASHLINE_PREFIX = /^\d+#[0-9a-f?]{3}\|/;

/**
 * Lines (1-based) within [from, to] of `path` that lie inside a private key block,
 * found with KEY_CONTEXT_LINES of context on both sides. `seen` is the whole lines
 * behind what the agent is about to get: without a marker or a base64 body line there is nothing
 * to look around for.
 */
export async function secretLinesAround(path: string, from: number, to: number, seen: string): Promise<Set<number>> {
  const out = new Set<number>();
  if (!MAY_HOLD_KEY.test(seen)) return out;
  const start = Math.max(1, from - KEY_CONTEXT_LINES);
  const r: ReadOutput | null = await readByInput({ path, ranges: [{ start, end: to + KEY_CONTEXT_LINES }] }).catch(() => null);
  if (!r) return out;
  const lines = answerTextOf(r).split('\n');
  let open = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (open < 0 && KEY_BEGIN.test(line)) open = i;
    if (KEY_END.test(line)) {
      // An END with no BEGIN in view: the block began before the context.
      for (let j = open < 0 ? 0 : open; j <= i; j++) out.add(start + j);
      open = -1;
    }
  }
  if (open >= 0) for (let j = open; j < lines.length; j++) out.add(start + j); // not closed in view
  for (const l of out) if (l < from || l > to) out.delete(l);
  return out;
}

/** File text in an answer: `content` from line `startLine`, bytes [startByte, endByte) of the file. */
export interface AnswerPiece {
  startLine: number;
  startByte: number;
  endByte: number;
  content: string;
}

/** One line of a piece: its hashline prefix, the text shown, and the whole line it is part of. */
interface PieceLine {
  prefix: string;
  shown: string;
  cr: string;
  whole: string;
  /** where `shown` starts in `whole` */
  offset: number;
}

/** The lines of `p`, each with its whole line (the piece's edge lines read whole around it when `boundsOf` is given). */
async function linesOfPiece(
  path: string,
  p: AnswerPiece,
  hashlines: boolean,
  boundsOf: ((lineNo: number) => Promise<LineBounds | null>) | null,
): Promise<PieceLine[]> {
  const parts = p.content.split('\n');
  if (p.content.endsWith('\n')) parts.pop();
  const lines = parts.map((part): PieceLine => {
    const prefix = hashlines ? (HASHLINE_PREFIX.exec(part)?.[0] ?? '') : '';
    const body = part.slice(prefix.length);
    const shown = body.endsWith('\r') ? body.slice(0, -1) : body;
    return { prefix, shown, cr: body.slice(shown.length), whole: shown, offset: 0 };
  });
  if (!boundsOf || !lines.length) return lines;
  const first = await boundsOf(p.startLine);
  if (first) {
    const before = (await lineAroundSlice(first, path, p.startByte, first.endByte)).before;
    lines[0] = { ...lines[0]!, whole: before + lines[0]!.whole, offset: before.length };
  }
  if (!p.content.endsWith('\n')) {
    const lastNo = p.startLine + lines.length - 1;
    const last = await boundsOf(lastNo);
    if (last) {
      const after = (await lineAroundSlice(last, path, last.startByte, p.endByte)).after;
      lines[lines.length - 1]!.whole += after;
    }
  }
  return lines;
}

/**
 * Each piece's content with secrets masked, decided on whole lines: `wholeLines`
 * when the pieces are known to hold whole lines (line ranges without a cut line),
 * else their first and last lines are read whole around them.
 */
export async function redactPieces(
  rules: RedactionRule[],
  path: string,
  pieces: AnswerPiece[],
  o: { hashlines: boolean; wholeLines: boolean },
): Promise<{ texts: string[]; counts: number[]; count: number }> {
  // Several pieces (the matches of one JSONPath read) often share lines: each line's bounds are read once.
  const bounds = new Map<number, Promise<LineBounds | null>>();
  const boundsOf = (lineNo: number) => bounds.get(lineNo) ?? bounds.set(lineNo, lineBoundsOf(path, lineNo)).get(lineNo)!;
  const linesOf: PieceLine[][] = [];
  for (const p of pieces) linesOf.push(await linesOfPiece(path, p, o.hashlines, o.wholeLines ? null : boundsOf));
  const firstLine = Math.min(...pieces.map((p) => p.startLine));
  const lastLine = Math.max(...pieces.map((p, i) => p.startLine + Math.max(0, linesOf[i]!.length - 1)));
  // One look for key blocks around all pieces (several ranges of one read), on their whole lines.
  const seen = linesOf.flatMap((lines) => lines.map((l) => l.whole)).join('\n');
  const keyLines = seen ? await secretLinesAround(path, firstLine, lastLine, seen) : new Set<number>();
  const counts = pieces.map(() => 0);
  const texts = pieces.map((p, k) => {
    const out = linesOf[k]!.map((l, i) => {
      const spans: SecretSpan[] =
        keyLines.has(p.startLine + i) && l.whole !== '' ? [{ start: 0, end: l.whole.length, kind: 'private_key' }] : secretSpansOf(l.whole, rules);
      const m = maskedSlice(l.whole, spans, l.offset, l.shown.length);
      counts[k]! += m.count;
      return l.prefix + m.text + l.cr;
    });
    return out.join('\n') + (p.content.endsWith('\n') ? '\n' : '');
  });
  return { texts, counts, count: counts.reduce((a, b) => a + b, 0) };
}

type JsonAnswer = NonNullable<ReadOutput['json']>;

/** The JSON matches of an answer with secrets hidden: each match's source text as a slice of its lines, and its parsed value by key. */
async function redactJsonAnswer(rules: RedactionRule[], path: string, json: JsonAnswer): Promise<{ json: JsonAnswer; count: number }> {
  const withText = json.matches.filter((m) => m.text !== undefined);
  const r = await redactPieces(
    rules,
    path,
    withText.map((m) => ({ startLine: m.start_line, startByte: m.start_byte, endByte: m.end_byte, content: m.text! })),
    { hashlines: false, wholeLines: false },
  );
  const matches = json.matches.map((m) => {
    const k = withText.indexOf(m);
    if (k < 0) return m; // omitted for size: no text, no value
    // A scalar whose source text was masked is the secret itself (`$.password`).
    const scalar = m.value === null || typeof m.value !== 'object';
    const value = r.counts[k]! > 0 && scalar ? placeholderOf('json_value') : redactJsonValue(rules, m.value, keyOfPointer(m.pointer));
    return { ...m, text: r.texts[k]!, ...(m.value !== undefined ? { value } : {}) };
  });
  return { json: { ...json, matches }, count: r.count };
}

/** The last key of a JSON Pointer (`/db/password` → password), undefined for the root or an array index. */
function keyOfPointer(pointer: string): string | undefined {
  const last = pointer.split('/').slice(1).at(-1);
  return last === undefined || /^\d+$/.test(last) ? undefined : last.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Modes whose answer is whole lines unless a line was cut. */
const WHOLE_LINE_MODES = new Set(['lines', 'head', 'tail', 'full', 'page', 'bytes']);

/** A read answer's file text (content, ranges, JSON matches) redacted, and how many secrets were hidden. */
export async function redactReadAnswer(
  rules: RedactionRule[],
  path: string,
  r: ReadOutput,
): Promise<{ content: string; ranges?: ReadOutput['ranges']; json?: JsonAnswer; count: number }> {
  if (r.json) {
    // A JSON answer's content is its matches' texts, one after the other (read-address.ts): not lines of the file.
    const j = await redactJsonAnswer(rules, path, r.json);
    const content = j.json.matches.flatMap((m) => (m.text !== undefined ? [m.text] : [])).join('\n');
    return { content, json: j.json, count: j.count };
  }
  const wholeLines = !r.line_cut && (r.ranges !== undefined || WHOLE_LINE_MODES.has(r.mode));
  const pieces: AnswerPiece[] = r.ranges
    ? r.ranges.map((x) => ({ startLine: x.start, startByte: x.start_byte, endByte: x.end_byte, content: x.content }))
    : r.start_line === null
      ? []
      : [{ startLine: r.start_line, startByte: r.start_byte, endByte: r.end_byte, content: r.content }];
  const { texts, count } = await redactPieces(rules, path, pieces, { hashlines: r.hashlines, wholeLines });
  const content = r.ranges || r.start_line === null ? redact(r.content, rules).text : texts[0]!;
  const ranges = r.ranges?.map((x, i) => ({ ...x, content: texts[i]! }));
  return { content, ...(ranges ? { ranges } : {}), count };
}

/**
 * Redact the unified diff of `path` an agent gets back: its context and removed
 * lines are file text, so lines inside a private key block are blanked (mapped to
 * file lines by the hunk headers) and the rules run over each line.
 */
export async function redactPreview(rules: RedactionRule[], path: string, preview: string): Promise<string> {
  const lines = preview.split('\n');
  const oldLineOf: (number | null)[] = [];
  let oldLine = 0;
  for (const line of lines) {
    const h = /^@@ -(\d+)/.exec(line);
    if (h) {
      oldLine = Number(h[1]);
      oldLineOf.push(null);
    } else if (oldLine && (line.startsWith(' ') || (line.startsWith('-') && !line.startsWith('---')))) {
      oldLineOf.push(oldLine++);
    } else {
      oldLineOf.push(null);
    }
  }
  const known = oldLineOf.filter((l): l is number => l !== null);
  const secret = known.length ? await secretLinesAround(path, Math.min(...known), Math.max(...known), preview) : new Set<number>();
  const blanked = lines.map((line, i) => {
    const l = oldLineOf[i];
    if (l !== null && l !== undefined && secret.has(l)) return `${line[0]}${PRIVATE_KEY_PLACEHOLDER}`;
    // The diff marker is not part of the file line: judge the line after it.
    return l !== null && l !== undefined ? line[0] + redact(line.slice(1), rules).text : redact(line, rules).text;
  });
  return blanked.join('\n');
}

/** Lines a line or byte upsert of `path` touches, and the lines its anchors name. */
async function targetLinesOf(path: string, req: Pick<UpsertRequest, 'target' | 'content' | 'edits' | 'preconditions'>): Promise<Set<number>> {
  const lines = new Set<number>();
  // Every edit of the call: a secret line is as hidden from the third edit as from the first.
  for (const { target: t } of editsOf(req)) {
    const span = t.kind === 'replace' || t.kind === 'delete' ? t : null;
    const byteInsertAt = t.kind === 'insert' && t.units === 'bytes' ? t.at : null;
    if (t.kind === 'whole') {
      lines.add(0); // every line: see redactedTargetLines
    } else if (span && span.units === 'lines') {
      for (let l = span.start; l <= Math.min(span.end, span.start + 10_000); l++) lines.add(l);
    } else if (span || byteInsertAt !== null) {
      // Byte targets: the lines they touch (a byte insert inside a line changes that line).
      const [from, to] = span ? [span.start, Math.max(span.start + 1, span.end)] : [byteInsertAt!, byteInsertAt! + 1];
      const r: ReadOutput | null = await readByInput({ path, start_byte: from, end_byte: to }).catch(() => null);
      if (r?.start_line) for (let l = r.start_line; l <= (r.end_line ?? r.start_line); l++) lines.add(l);
    }
  }
  for (const a of req.preconditions.anchors ?? []) {
    const n = Number(a.split('#')[0]);
    if (Number.isInteger(n) && n > 0) lines.add(n);
  }
  return lines;
}

/** A whole-file replace rewrites every line: the lines of the file that hold something hidden from agents. */
async function redactedLinesOfFile(rules: RedactionRule[], path: string): Promise<number[]> {
  // Not caught: a file too big to read whole is too big to replace whole unchecked (too_large).
  const r: ReadOutput = await readByInput({ path, full: true });
  const text = answerTextOf(r);
  const secret = await secretLinesAround(path, 1, Math.max(1, r.total_lines ?? 1), text);
  const hidden = text.split('\n').flatMap((line, i) => (secretSpansOf(line.replace(/\r$/, ''), rules).length ? [i + 1] : []));
  return [...new Set([...secret, ...hidden])].sort((a, b) => a - b);
}

/**
 * The lines (ascending) an upsert of `path` would change that hold something the
 * rules or a key block hide from an agent; [] when none does. `req` is the engine
 * request (a section or JSON target already resolved to lines or bytes).
 */
export async function redactedTargetLines(
  rules: RedactionRule[],
  path: string,
  req: Pick<UpsertRequest, 'target' | 'content' | 'edits' | 'preconditions'>,
): Promise<number[]> {
  const lines = await targetLinesOf(path, req);
  if (lines.has(0)) return redactedLinesOfFile(rules, path);
  if (lines.size === 0) return [];
  const sorted = [...lines].sort((a, b) => a - b);
  const r: ReadOutput | null = await readByInput({ path, ranges: sorted.slice(0, 1000).map((l) => ({ start: l, end: l })) }).catch(() => null);
  if (!r) return []; // out-of-range targets get their own error from the engine
  // Adjacent target lines come back merged into one range; several ranges carry their own text.
  const pieces = r.ranges ?? (r.start_line === null ? [] : [{ start: r.start_line, content: r.content }]);
  const secret = await secretLinesAround(path, sorted[0]!, sorted.at(-1)!, answerTextOf(r));
  // The same whole-line decision as for reads: a line with any secret span is hidden.
  const hidden = new Set(
    pieces.flatMap((x) => x.content.split('\n').flatMap((line, i) => (secretSpansOf(line.replace(/\r$/, ''), rules).length ? [x.start + i] : []))),
  );
  return sorted.filter((l) => secret.has(l) || hidden.has(l));
}
