/**
 * File text in what an agent gets besides a read: error details and a proposal's
 * conflict. They pass the same whole-line decision as reads (redact.ts), with the
 * file at hand for private key blocks whose markers lie outside the lines shown:
 * - `current` (precondition_failed: the current lines, hashline-prefixed) is
 *   redacted line by line; each redacted line keeps its `N#hhh|` anchor, so an
 *   honest agent can still retry, and `redacted_lines` lists them.
 * - `nearest` (no_match: the near-miss of a quote) is redacted the same way; when
 *   it shows a hidden line its similarity and kind of difference are dropped (they
 *   would measure how close a guess came to the secret).
 * The lines shown are read again from the checked file; if they differ (the file
 * changed since the error) nothing of them is shown: a redaction decided on other
 * lines than the ones sent could miss a key body. Every other string still passes
 * the rules (redactStrings).
 */
import { FolioError } from '../../engine/errors.ts';
import { readByInput } from '../read-address.ts';
import { withCheckedFile, pinningOf } from './checked-file.ts';
import { checkAccess, type WorkspacePolicy } from './policy.ts';
import { answerTextOf, redact, redactPieces, redactStrings, type RedactionRule } from './redact.ts';
import { maskedSlice, placeholderOf, secretSpansOf } from './secret-spans.ts';

interface Guarded {
  policy: WorkspacePolicy;
  rules: RedactionRule[];
}

interface CurrentRange {
  start: number;
  end: number;
  text: string;
}

interface NearestLines {
  line: number;
  end_line: number;
  text: string;
  text_truncated?: boolean;
}

const UNVERIFIED = placeholderOf('unverified');
const HASHLINE_PREFIX = /^\d+#[0-9a-f?]{3}\|/;
/** What a near-miss shows of its lines at most (engine/write/near-miss.ts TEXT_MAX_CHARS). */
const NEAREST_MAX_CHARS = 300;

const isCurrent = (v: unknown): v is CurrentRange[] =>
  Array.isArray(v) && v.every((r) => r && typeof r === 'object' && typeof r.start === 'number' && typeof r.text === 'string');
const isNearest = (v: unknown): v is NearestLines =>
  !!v && typeof v === 'object' && typeof (v as NearestLines).line === 'number' && typeof (v as NearestLines).text === 'string';

const withoutCr = (s: string) => s.replace(/\r(?=\n|$)/g, '');
const linesOf = (s: string) => {
  const l = s.split('\n');
  if (s.endsWith('\n')) l.pop();
  return l;
};

/** `text` cut to `max` characters, never inside a placeholder. */
function cutAt(text: string, max: number): string {
  if (text.length <= max) return text;
  const open = text.lastIndexOf('[REDACTED:', max);
  const close = open < 0 ? -1 : text.indexOf(']', open);
  return open >= 0 && close >= max ? text.slice(0, close + 1) : text.slice(0, max);
}

/** Hashline text with every line's text replaced (its anchor kept): lines that could not be checked. */
const maskedAll = (text: string) =>
  linesOf(text)
    .map((l) => (HASHLINE_PREFIX.exec(l)?.[0] ?? '') + UNVERIFIED)
    .join('\n');

async function redactCurrent(rules: RedactionRule[], pinned: string | null, ranges: CurrentRange[]) {
  const out = [];
  for (const r of ranges) {
    const now = pinned ? await readByInput({ path: pinned, ranges: [{ start: r.start, end: r.end }], hashlines: true }).then(answerTextOf, () => null) : null;
    if (now === null || withoutCr(now).replace(/\n$/, '') !== withoutCr(r.text).replace(/\n$/, '')) {
      out.push({ ...r, text: maskedAll(r.text), redacted_lines: linesOf(r.text).map((_, i) => r.start + i) });
      continue;
    }
    const { texts } = await redactPieces(rules, pinned!, [{ startLine: r.start, startByte: 0, endByte: 0, content: r.text }], {
      hashlines: true,
      wholeLines: true,
    });
    const before = linesOf(r.text);
    const after = linesOf(texts[0]!);
    const redactedLines = after.flatMap((l, i) => (l !== before[i] ? [r.start + i] : []));
    out.push({ ...r, text: texts[0]!, ...(redactedLines.length ? { redacted_lines: redactedLines } : {}) });
  }
  return out;
}

/** The near-miss with hidden lines redacted; null when its lines could not be checked. */
async function redactNearest(rules: RedactionRule[], pinned: string | null, n: NearestLines): Promise<Record<string, unknown> | null> {
  if (!pinned) return null;
  const end = Math.max(n.line, n.end_line ?? n.line);
  const now = await readByInput({ path: pinned, ranges: [{ start: n.line, end }] }).then(answerTextOf, () => null);
  if (now === null) return null;
  const whole = withoutCr(now).replace(/\n$/, '');
  if (!whole.startsWith(n.text)) return null;
  const { texts, count } = await redactPieces(rules, pinned, [{ startLine: n.line, startByte: 0, endByte: 0, content: now }], {
    hashlines: false,
    wholeLines: true,
  });
  if (!count) return { ...n };
  const shown = withoutCr(texts[0]!).replace(/\n$/, '');
  const { similarity: _s, differs: _d, ...rest } = n as NearestLines & { similarity?: number; differs?: string };
  return { ...rest, text: cutAt(shown, NEAREST_MAX_CHARS), text_truncated: shown.length > NEAREST_MAX_CHARS, redacted: true };
}

/** The checked path behind an error: its own `path` if the agent may read it, else the path the call named. */
function checkedPathOf(s: Guarded, details: Record<string, unknown>, asked: string | undefined): string | null {
  for (const p of [details.path, asked]) {
    if (typeof p !== 'string') continue;
    try {
      return checkAccess(s.policy, p, 'read');
    } catch {
      // not readable by the agent: try the next, else nothing of the file is shown
    }
  }
  return null;
}

/** `details` with the file text it carries (current, nearest) redacted by whole lines, and every other string by the rules. */
export async function redactDetails(s: Guarded, details: Record<string, unknown>, asked?: string): Promise<Record<string, unknown>> {
  const current = isCurrent(details.current) ? details.current : null;
  // A near-miss the guard looked for in the redacted text (as_read) is already what the agent may see.
  const nearest = isNearest(details.nearest) && !(details.nearest as { as_read?: boolean }).as_read ? details.nearest : null;
  let out = details;
  if (current || nearest) {
    const real = checkedPathOf(s, details, asked);
    const fix = async (pinned: string | null) => ({
      ...details,
      ...(current ? { current: await redactCurrent(s.rules, pinned, current) } : {}),
      ...(nearest ? { nearest: await redactNearest(s.rules, pinned, nearest) } : {}),
    });
    out = real ? await withCheckedFile(real, fix, pinningOf(s)).catch(() => fix(null)) : await fix(null);
  }
  return redactStrings(s.rules, out);
}

/**
 * `err` as an agent may see it: message and details redacted, file text in the
 * details by whole lines (redactDetails). A near-miss that shows a hidden line
 * loses its kind of difference from the message too.
 */
export async function redactErrorForAgent(s: Guarded, err: unknown, asked?: string): Promise<Error> {
  if (!(err instanceof FolioError)) {
    const message = err instanceof Error ? err.message : String(err);
    return new Error(redact(message, s.rules).text);
  }
  const details = await redactDetails(s, err.details, asked);
  const n = details.nearest as { redacted?: boolean; line?: number } | null | undefined;
  const hidNearest = isNearest(err.details.nearest) && !(err.details.nearest as { as_read?: boolean }).as_read && (!n || n.redacted);
  const message = hidNearest ? err.message.replace(/; nearest: .*$/s, n ? `; nearest: line ${n.line} (redacted)` : '') : err.message;
  return new FolioError(err.code, redact(message, s.rules).text, details);
}

/**
 * What an agent may see of one line of a file read in order: the rules' masking,
 * and every line of a private key block (or a lone line shaped like a key body)
 * replaced whole. For a near-miss scan (NearMissOptions.lineView): fresh per scan.
 */
export function redactedLineView(rules: RedactionRule[]): (line: string) => string {
  let inKey = false;
  return (line) => {
    if (line === '') return line;
    if (!inKey && /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(line)) inKey = true;
    if (inKey) {
      if (/-----END [A-Z0-9 ]*PRIVATE KEY-----/.test(line)) inKey = false;
      return placeholderOf('private_key');
    }
    if (/^[A-Za-z0-9+/=]{40,}$/.test(line)) return placeholderOf('private_key');
    return maskedSlice(line, secretSpansOf(line, rules)).text;
  };
}
