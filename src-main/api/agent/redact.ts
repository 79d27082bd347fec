/**
 * Redaction of secrets in text returned to agents: private key blocks, cloud access
 * keys, tokens, and `SECRET=...`-style assignments become `[REDACTED:kind]`. Never
 * applied to human views or to writes. Everything here takes the rules (the
 * session's; DEFAULT_RULES today), not a session, and reads file text only through
 * the api-level read (readByInput: the wire shape).
 *
 * A window may hold only the body of a key (its BEGIN/END lines outside the window):
 * secretLinesAround looks for the markers around it, and those lines are redacted
 * whole. An agent edit whose target lines hold something redactable is refused
 * (redactedTargetLines): the agent only ever saw placeholders there, and writing
 * its version back would put the placeholders into the file.
 */
import { readByInput } from '../read-address.ts';
import type { ReadOutput, UpsertInput } from '../schemas.ts';

export interface RedactionRule {
  kind: string;
  pattern: RegExp;
}

export const DEFAULT_RULES: RedactionRule[] = [
  { kind: 'private_key', pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----/g },
  { kind: 'aws_access_key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: 'gcp_api_key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { kind: 'github_token', pattern: /\bgh[pousr]_[A-Za-z0-9]{36,}\b/g },
  { kind: 'slack_token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g },
  { kind: 'bearer_token', pattern: /\b[Bb]earer\s+[A-Za-z0-9._~+/-]{16,}=*/g },
  {
    kind: 'secret_assignment',
    pattern: /\b([A-Za-z0-9_.-]*(?:SECRET|PASSWORD|PASSWD|TOKEN|API_KEY|APIKEY|PRIVATE_KEY|ACCESS_KEY)[A-Za-z0-9_.-]*)(\s*[:=]\s*)("[^"\n]*"|'[^'\n]*'|[^\s"',;]+)/gi,
  },
];

export interface Redacted {
  text: string;
  /** how many secrets were replaced */
  count: number;
}

/** Every default rule needs one of these words or prefixes: text without any is clean (one scan instead of seven). */
const MAYBE_SECRET = /KEY-----|AKIA|ASIA|AIza|gh[pousr]_|xox[abposr]-|bearer|secret|passw|token|api_?key|private_key|access_key/i;

export function redact(text: string, rules: RedactionRule[] = DEFAULT_RULES): Redacted {
  if (rules === DEFAULT_RULES && !MAYBE_SECRET.test(text)) return { text, count: 0 };
  let count = 0;
  let out = text;
  for (const r of rules) {
    out = out.replace(r.pattern, (...m: string[]) => {
      const whole = m[0] ?? '';
      if (r.kind === 'secret_assignment' && m[3]?.startsWith('[REDACTED:')) return whole; // already redacted
      count++;
      // Keep the name of an assignment so the agent sees what is there.
      return r.kind === 'secret_assignment' ? `${m[1]}${m[2]}[REDACTED:${r.kind}]` : `[REDACTED:${r.kind}]`;
    });
  }
  return { text: out, count };
}

/** 1-based line numbers (counted from `firstLine`) of `text` that hold anything redactable. */
export function redactedLinesIn(text: string, firstLine: number, rules: RedactionRule[] = DEFAULT_RULES): number[] {
  const lines = new Set<number>();
  for (const r of rules) {
    for (const m of text.matchAll(r.pattern)) {
      const start = text.slice(0, m.index).split('\n').length - 1;
      const span = m[0].split('\n').length - 1;
      for (let l = start; l <= start + span; l++) lines.add(firstLine + l);
    }
  }
  return [...lines].sort((a, b) => a - b);
}

/** Every string inside `value`, redacted (a proposal's preview, a heading, a JSON value are file text). */
export function redactStrings<T>(rules: RedactionRule[], value: T): T {
  if (typeof value === 'string') return redact(value, rules).text as T;
  if (Array.isArray(value)) return value.map((v) => redactStrings(rules, v)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactStrings(rules, v)])) as T;
  }
  return value;
}

/** The whole text of a read answer: its ranges joined, or its content. */
export function answerTextOf(r: Pick<ReadOutput, 'content' | 'ranges'>): string {
  return r.ranges ? r.ranges.map((x) => x.content).join('') : r.content;
}

const KEY_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;
const KEY_END = /-----END [A-Z0-9 ]*PRIVATE KEY-----/;
/** A key marker, or a line of base64 as long as a key body's. */
const MAY_HOLD_KEY = /PRIVATE KEY-----|^(?:\d+#[0-9a-f?]{3}\|)?[A-Za-z0-9+/=]{40,}\r?$/m;
/** Key blocks are a few dozen lines: look this far around a window for their markers. */
const KEY_CONTEXT_LINES = 200;
const PRIVATE_KEY_PLACEHOLDER = '[REDACTED:private_key]';

/**
 * Lines (1-based) within [from, to] of `path` that lie inside a private key block,
 * found with KEY_CONTEXT_LINES of context on both sides. `seen` is the text the
 * agent is about to get: without a marker or a base64 body line there is nothing
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

/** Redact `content` (lines from `firstLine`, maybe hashline-prefixed): `secret` lines whole, then the rules. */
export function redactLines(rules: RedactionRule[], content: string, firstLine: number, secret: Set<number>): Redacted {
  let count = 0;
  let text = content;
  if (secret.size) {
    text = content
      .split('\n')
      .map((line, i) => {
        if (!secret.has(firstLine + i) || line === '') return line;
        count++;
        const prefix = /^\d+#[0-9a-f?]{3}\|/.exec(line)?.[0] ?? '';
        return `${prefix}${PRIVATE_KEY_PLACEHOLDER}${line.endsWith('\r') ? '\r' : ''}`;
      })
      .join('\n');
  }
  const r = redact(text, rules);
  return { text: r.text, count: count + r.count };
}

/** One search match's text, redacted: a line inside a key block whole, else by the rules. */
export function redactMatchText(rules: RedactionRule[], text: string, lineNo: number, secret: Set<number>): Redacted {
  return secret.has(lineNo) ? { text: PRIVATE_KEY_PLACEHOLDER, count: 1 } : redact(text, rules);
}

/**
 * Redact the unified diff of `path` an agent gets back: its context and removed
 * lines are file text, so lines inside a private key block are blanked (mapped to
 * file lines by the hunk headers) and the rules run over the rest.
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
    return l !== null && l !== undefined && secret.has(l) ? `${line[0]}${PRIVATE_KEY_PLACEHOLDER}` : line;
  });
  return redact(blanked.join('\n'), rules).text;
}

/** Lines a line or byte upsert of `path` touches, and the lines its anchors name. */
async function targetLinesOf(path: string, input: Pick<UpsertInput, 'target' | 'anchors'>): Promise<Set<number>> {
  const t = input.target;
  const lines = new Set<number>();
  const span = 'replace' in t ? t.replace : 'delete' in t ? t.delete : null;
  const byteInsertAt = 'insert' in t && t.insert.units === 'bytes' ? t.insert.at : null;
  if (span && (span.units ?? 'lines') === 'lines') {
    for (let l = span.start; l <= Math.min(span.end, span.start + 10_000); l++) lines.add(l);
  } else if (span || byteInsertAt !== null) {
    // Byte targets: the lines they touch (a byte insert inside a line changes that line).
    const [from, to] = span ? [span.start, Math.max(span.start + 1, span.end)] : [byteInsertAt!, byteInsertAt! + 1];
    const r: ReadOutput | null = await readByInput({ path, start_byte: from, end_byte: to }).catch(() => null);
    if (r?.start_line) for (let l = r.start_line; l <= (r.end_line ?? r.start_line); l++) lines.add(l);
  }
  for (const a of input.anchors ?? []) {
    const n = Number(a.split('#')[0]);
    if (Number.isInteger(n) && n > 0) lines.add(n);
  }
  return lines;
}

/**
 * The lines (ascending) an upsert of `path` would change that hold something the
 * rules or a key block hide from an agent; [] when none does. `input` has a line or
 * byte target (a section or JSON target resolved first).
 */
export async function redactedTargetLines(rules: RedactionRule[], path: string, input: Pick<UpsertInput, 'target' | 'anchors'>): Promise<number[]> {
  const lines = await targetLinesOf(path, input);
  if (lines.size === 0) return [];
  const sorted = [...lines].sort((a, b) => a - b);
  const r: ReadOutput | null = await readByInput({ path, ranges: sorted.slice(0, 1000).map((l) => ({ start: l, end: l })) }).catch(() => null);
  if (!r) return []; // out-of-range targets get their own error from the engine
  // Adjacent target lines come back merged into one range; several ranges carry their own text.
  const pieces = r.ranges ?? (r.start_line === null ? [] : [{ start: r.start_line, content: r.content }]);
  const secret = await secretLinesAround(path, sorted[0]!, sorted.at(-1)!, answerTextOf(r));
  const hidden = new Set(pieces.flatMap((x) => redactedLinesIn(x.content, x.start, rules)));
  return sorted.filter((l) => secret.has(l) || hidden.has(l));
}
