/**
 * Redaction of secrets in text returned to agents: private key blocks, cloud access
 * keys, tokens, and `SECRET=...`-style assignments become `[REDACTED:kind]`. Never
 * applied to human views or to writes. The workspace config can add patterns.
 *
 * An agent edit whose target lines hold something redactable is refused
 * (redactedLinesIn): the agent only ever saw placeholders there, and writing its
 * version back would put the placeholders into the file.
 */

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
  count: number;
  kinds: string[];
}

export function compileRules(extra: { kind: string; pattern: string; flags?: string }[] = []): RedactionRule[] {
  return [...DEFAULT_RULES, ...extra.map((e) => ({ kind: e.kind, pattern: new RegExp(e.pattern, (e.flags ?? '').replace('g', '') + 'g') }))];
}

/** Every default rule needs one of these words or prefixes: text without any is clean (one scan instead of seven). */
const MAYBE_SECRET = /KEY-----|AKIA|ASIA|AIza|gh[pousr]_|xox[abposr]-|bearer|secret|passw|token|api_?key|private_key|access_key/i;

export function redact(text: string, rules: RedactionRule[] = DEFAULT_RULES): Redacted {
  if (rules === DEFAULT_RULES && !MAYBE_SECRET.test(text)) return { text, count: 0, kinds: [] };
  let count = 0;
  const kinds = new Set<string>();
  let out = text;
  for (const r of rules) {
    out = out.replace(r.pattern, (...m: string[]) => {
      const whole = m[0] ?? '';
      if (r.kind === 'secret_assignment' && m[3]?.startsWith('[REDACTED:')) return whole; // already redacted
      count++;
      kinds.add(r.kind);
      // Keep the name of an assignment so the agent sees what is there.
      return r.kind === 'secret_assignment' ? `${m[1]}${m[2]}[REDACTED:${r.kind}]` : `[REDACTED:${r.kind}]`;
    });
  }
  return { text: out, count, kinds: [...kinds] };
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
