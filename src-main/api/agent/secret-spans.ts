/**
 * What is secret in one line of text: the redaction rules, and the spans (UTF-16
 * code-unit offsets of the line) they mark. Redaction decides on whole lines: a
 * caller that shows an agent only a slice of a line finds the spans in the whole
 * line and masks the part of its slice that falls inside one (maskedSlice), so a
 * slice without the key name, or half a value, is masked like the whole line.
 * Pure text, no files: redact.ts brings the whole lines and the private key blocks.
 */

export interface RedactionRule {
  kind: string;
  /** global; a named group `secret` marks the part to hide (the rest, e.g. a key name, stays visible) */
  pattern: RegExp;
  /** a further test of the hidden part (the entropy rule's measure) */
  accepts?: (secret: string) => boolean;
  /** a cheaper test every match implies: a line it does not match is not searched with `pattern` */
  gate?: RegExp;
}

export interface Redacted {
  text: string;
  /** how many secrets were replaced */
  count: number;
}

export interface SecretSpan {
  start: number;
  end: number;
  kind: string;
}

/** Shannon entropy of `s` in bits per character: -Σ p·log2 p over its character frequencies. */
export function shannonEntropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/*
 * The entropy rule: a value after a key-like name that looks random. Measured over
 * 10,000 random values each: hex of 16 chars has entropy p1 2.68 / median 3.20
 * bits/char, hex of 32 p1 3.26, base64url of 16 p1 3.38; so a floor of 16 chars and
 * 2.5 bits/char catches ~99% of random tokens of 16+ chars. Identifiers pass those
 * too ("production-cluster-01" is 3.82), so the value must also mix letters and
 * digits and follow a key-like name; words alone or numbers alone never match.
 */
const ENTROPY_MIN_CHARS = 16;
const ENTROPY_MIN_BITS_PER_CHAR = 2.5;
function looksRandom(value: string): boolean {
  const v = value.replace(/^["']|["']$/g, '');
  return v.length >= ENTROPY_MIN_CHARS && /[0-9]/.test(v) && /[A-Za-z]/.test(v) && shannonEntropy(v) >= ENTROPY_MIN_BITS_PER_CHAR;
}

/** A secret's name, then an optional closing quote (JSON, YAML keys), then `:` or `=`. */
const NAME_THEN = String.raw`(?:["']?\s*[:=]\s*)`;
// Names are bounded ({0,64} around the word) so a long run of name characters costs linear time, not quadratic.
const SECRET_WORD = String.raw`(?:SECRET|PASSWORD|PASSWD|TOKEN|API[_-]?KEY|PRIVATE[_-]?KEY|ACCESS[_-]?KEY)`;
const KEY_LIKE_WORD = String.raw`(?:KEY|SESSION|AUTH|CRED|COOKIE|SIG|SALT|NONCE|PASS|PWD|SECRET|TOKEN|PRIVATE|CSRF|JWT|SID)`;
const SECRET_NAME = String.raw`[A-Za-z0-9_.-]{0,64}${SECRET_WORD}[A-Za-z0-9_.-]{0,64}`;
const KEY_LIKE_NAME = String.raw`[A-Za-z0-9_.-]{0,64}${KEY_LIKE_WORD}[A-Za-z0-9_.-]{0,64}`;
/**
 * The word, the rest of the name and the `:`/`=` after it: what every match of the
 * name rules holds, found without trying 64 name characters before every word
 * boundary of a line (a log line that says "session timeout" skips them at once).
 */
const gateOf = (word: string): RegExp => new RegExp(String.raw`${word}[A-Za-z0-9_.-]{0,64}${NAME_THEN}`, 'i');
const VALUE = String.raw`"[^"\n]*"|'[^'\n]*'|[^\s"',;&]+`;

export const DEFAULT_RULES: RedactionRule[] = [
  { kind: 'private_key', pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----/g, gate: /PRIVATE KEY-----/ },
  { kind: 'aws_access_key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, gate: /AKIA|ASIA/ },
  { kind: 'gcp_api_key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g, gate: /AIza/ },
  { kind: 'github_token', pattern: /\bgh[pousr]_[A-Za-z0-9]{36,}\b/g, gate: /gh[pousr]_/ },
  { kind: 'slack_token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g, gate: /xox[abposr]-/ },
  { kind: 'bearer_token', pattern: /\b[Bb]earer\s+[A-Za-z0-9._~+/-]{16,}=*/g, gate: /[Bb]earer\s/ },
  // The credential of an Authorization header whatever its scheme or length (Basic, short bearer tokens).
  {
    kind: 'authorization',
    pattern: new RegExp(String.raw`\bAuthorization${NAME_THEN}["']?(?:(?:Bearer|Basic|Token|Digest|Negotiate)\s+)?(?<secret>[^\s"',;]+)`, 'gi'),
    gate: /authorization/i,
  },
  // The password of a URL's userinfo (RFC 3986 §3.2.1: user:password@host); scheme, user and host stay visible.
  {
    kind: 'url_credentials',
    pattern: /\b[A-Za-z][A-Za-z0-9+.-]{0,30}:\/\/[^\s/?#@:"'<>]*:(?<secret>[^\s/?#@"'<>]+)@/g,
    gate: /:\/\/[^\s/@]*:[^\s/@]*@/,
  },
  { kind: 'secret_assignment', pattern: new RegExp(String.raw`\b${SECRET_NAME}${NAME_THEN}(?<secret>${VALUE})`, 'gi'), gate: gateOf(SECRET_WORD) },
  {
    kind: 'high_entropy',
    pattern: new RegExp(String.raw`\b${KEY_LIKE_NAME}${NAME_THEN}(?<secret>${VALUE})`, 'gi'),
    accepts: looksRandom,
    gate: gateOf(KEY_LIKE_WORD),
  },
];

/** Every rule needs one of these words or prefixes: a line without any is clean (one scan instead of nine). */
const MAYBE_SECRET =
  /KEY-----|:\/\/|AKIA|ASIA|AIza|gh[pousr]_|xox[abposr]-|bearer|authorization|secret|passw|token|key|session|auth|cred|cookie|sig|salt|nonce|pass|pwd|private|csrf|jwt|sid/i;

const withIndices = new WeakMap<RegExp, RegExp>();
/** The rule's pattern with the `d` flag, for the offsets of its `secret` group. */
function indexed(p: RegExp): RegExp {
  let d = withIndices.get(p);
  if (!d) withIndices.set(p, (d = new RegExp(p.source, p.flags.includes('d') ? p.flags : `${p.flags}d`)));
  return d;
}

/** The secret spans of one line (no newline in it), merged where they overlap, ascending. */
export function secretSpansOf(line: string, rules: RedactionRule[] = DEFAULT_RULES): SecretSpan[] {
  if (rules === DEFAULT_RULES && !MAYBE_SECRET.test(line)) return [];
  const found: (SecretSpan & { rank: number })[] = [];
  rules.forEach((r, rank) => {
    if (r.gate && !r.gate.test(line)) return;
    for (const m of line.matchAll(indexed(r.pattern))) {
      const [start, end] = m.indices?.groups?.secret ?? m.indices![0]!;
      if (end <= start || line.startsWith('[REDACTED:', start)) continue;
      if (r.accepts && !r.accepts(line.slice(start, end))) continue;
      found.push({ start, end, kind: r.kind, rank });
    }
  });
  found.sort((a, b) => a.start - b.start);
  const merged: (SecretSpan & { rank: number })[] = [];
  for (const s of found) {
    const last = merged.at(-1);
    if (last && s.start < last.end) {
      // Overlapping finds are one secret, named by the earlier (more specific) rule.
      last.end = Math.max(last.end, s.end);
      if (s.rank < last.rank) Object.assign(last, { kind: s.kind, rank: s.rank });
    } else merged.push({ ...s });
  }
  return merged.map(({ start, end, kind }) => ({ start, end, kind }));
}

export const placeholderOf = (kind: string): string => `[REDACTED:${kind}]`;

/**
 * The part [from, from + length) of a line whose secret spans are `spans`, with every
 * piece inside a span replaced by its placeholder (one per span it touches).
 */
export function maskedSlice(line: string, spans: SecretSpan[], from = 0, length = line.length - from): Redacted {
  const to = from + length;
  let text = '';
  let at = from;
  let count = 0;
  for (const s of spans) {
    if (s.end <= from || s.start >= to) continue;
    text += line.slice(at, Math.max(at, s.start));
    text += placeholderOf(s.kind);
    at = Math.min(to, s.end);
    count++;
  }
  return { text: text + line.slice(at, to), count };
}

const KEY_BLOCK = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----/g;

/**
 * `text` (whole lines, or a string such as a heading or an error message) redacted
 * line by line, after whole private key blocks in it. Text that is a slice of a line
 * is redacted with maskedSlice instead.
 */
export function redact(text: string, rules: RedactionRule[] = DEFAULT_RULES): Redacted {
  let count = 0;
  const withoutKeys = rules.some((r) => r.kind === 'private_key')
    ? text.replace(KEY_BLOCK, () => {
        count++;
        return placeholderOf('private_key');
      })
    : text;
  const lines = withoutKeys.split('\n').map((line) => {
    const r = maskedSlice(line, secretSpansOf(line, rules));
    count += r.count;
    return r.text;
  });
  return { text: lines.join('\n'), count };
}

/** 1-based line numbers (counted from `firstLine`) of whole lines `text` that hold anything redactable. */
export function redactedLinesIn(text: string, firstLine: number, rules: RedactionRule[] = DEFAULT_RULES): number[] {
  const lines = new Set<number>();
  for (const m of text.matchAll(KEY_BLOCK)) {
    const start = text.slice(0, m.index).split('\n').length - 1;
    for (let l = 0; l <= m[0].split('\n').length - 1; l++) lines.add(firstLine + start + l);
  }
  text.split('\n').forEach((line, i) => {
    if (secretSpansOf(line, rules).length) lines.add(firstLine + i);
  });
  return [...lines].sort((a, b) => a - b);
}
