/**
 * The log viewer's per-user state besides recent files: highlight rules (one list
 * for all files, like klogg's highlighters and lnav's highlights) and marked lines
 * (per file, by real path or a remote value's locator, like lnav's bookmarks). Both live in the config
 * directory of recent-files.ts, each one small JSON file rewritten whole and
 * atomically under the engine's file lock, so two app windows never lose a
 * change or leave half a file. A corrupt or missing file reads as empty.
 */
import { mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { FolioError, fromFsError } from '../../engine/errors.ts';
import { isLinearTimeRegex } from '../../engine/search/regex-engine.mjs';
import { formatLocator, isRemoteLocator, parseLocator } from '../../engine/backend/locator.ts';
import { writeFileAtomic } from '../../engine/write/atomic-write.ts';
import { withFileLock } from '../../engine/write/file-lock.ts';
import { HighlightColor } from '../schemas/app.ts';
import { configDir } from './recent-files.ts';

/** At most this many rules: each is matched on every window shown. */
export const HIGHLIGHT_RULES_MAX = 32;
/** At most this many marked lines per file, and files with marks (the least recently changed go first). */
export const MARKS_PER_FILE_MAX = 10_000;
export const MARKED_FILES_MAX = 200;

export const HIGHLIGHT_COLORS = HighlightColor.options;
type HighlightColor = (typeof HIGHLIGHT_COLORS)[number];

export interface HighlightRule {
  /** a JavaScript regex (the engine search's dialect), or literal text when `literal` */
  pattern: string;
  literal: boolean;
  color: HighlightColor;
  enabled: boolean;
}

type Env = NodeJS.ProcessEnv;
const highlightsFile = (env: Env) => join(configDir(env), 'highlights.json');
const marksFile = (env: Env) => join(configDir(env), 'marks.json');

function loadJson(file: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Rewrite `file` with what `change` makes of its current content, under the file lock. */
async function updateJson<T>(env: Env, file: string, change: (current: Record<string, unknown>) => { stored: Record<string, unknown>; answer: T }): Promise<T> {
  mkdirSync(configDir(env), { recursive: true, mode: 0o700 });
  return withFileLock(file, () => {
    const { stored, answer } = change(loadJson(file));
    writeFileAtomic(file, Buffer.from(JSON.stringify({ version: 1, ...stored }, null, 2) + '\n'), 0o600);
    return answer;
  });
}

/** The source a rule searches with: literal text escaped, a regex as given. */
export function ruleSource(rule: Pick<HighlightRule, 'pattern' | 'literal'>): string {
  return rule.literal ? rule.pattern.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&') : rule.pattern;
}

/**
 * Refuses a rule the engine could not run in linear time, naming it: V8's
 * linear-time engine runs no backreferences, lookarounds or large counted
 * repeats (regex-engine.mjs). Rules are case-sensitive, as that engine's `i`
 * is not available in Node 20.
 */
function checkRule(rule: HighlightRule, i: number): void {
  const source = ruleSource(rule);
  try {
    new RegExp(source);
  } catch (err) {
    throw new FolioError('invalid_input', `highlight rule ${i + 1} (${rule.pattern}) is not a valid regex: ${(err as Error).message}`, {
      field: `rules[${i}].pattern`,
      pattern: rule.pattern,
    });
  }
  if (!isLinearTimeRegex(source, '')) {
    throw new FolioError(
      'invalid_input',
      `highlight rule ${i + 1} (${rule.pattern}) cannot run in linear time: no backreferences, lookarounds or large counted repeats`,
      { field: `rules[${i}].pattern`, pattern: rule.pattern },
    );
  }
}

function storedRules(data: Record<string, unknown>): HighlightRule[] {
  const rules = data.rules;
  if (!Array.isArray(rules)) return [];
  return rules.filter(
    (r): r is HighlightRule =>
      typeof r === 'object' &&
      r !== null &&
      typeof r.pattern === 'string' &&
      r.pattern !== '' &&
      typeof r.literal === 'boolean' &&
      typeof r.enabled === 'boolean' &&
      HIGHLIGHT_COLORS.includes(r.color),
  );
}

export function listHighlights(env: Env = process.env): HighlightRule[] {
  return storedRules(loadJson(highlightsFile(env))).slice(0, HIGHLIGHT_RULES_MAX);
}

/** Replace the rules with `rules` (in order); each is checked first, so a bad one changes nothing. */
export async function setHighlights(rules: HighlightRule[], env: Env = process.env): Promise<HighlightRule[]> {
  if (rules.length > HIGHLIGHT_RULES_MAX) {
    throw new FolioError('too_large', `at most ${HIGHLIGHT_RULES_MAX} highlight rules, got ${rules.length}`, { max: HIGHLIGHT_RULES_MAX, got: rules.length });
  }
  rules.forEach(checkRule);
  const kept = rules.map(({ pattern, literal, color, enabled }) => ({ pattern, literal, color, enabled }));
  return updateJson(env, highlightsFile(env), () => ({ stored: { rules: kept }, answer: kept }));
}

interface StoredMarks {
  lines: number[];
  updated_at: string;
}

function storedFiles(data: Record<string, unknown>): Record<string, StoredMarks> {
  const files = data.files;
  if (typeof files !== 'object' || files === null || Array.isArray(files)) return {};
  const out: Record<string, StoredMarks> = {};
  for (const [path, v] of Object.entries(files as Record<string, unknown>)) {
    const entry = v as Partial<StoredMarks> | null;
    if (!entry || !Array.isArray(entry.lines)) continue;
    out[path] = {
      lines: entry.lines.filter((n): n is number => Number.isInteger(n) && n >= 1),
      updated_at: typeof entry.updated_at === 'string' ? entry.updated_at : '',
    };
  }
  return out;
}

/** The name a file's marks are kept under: its real path, or a remote value's canonical locator (it has no real path). */
export function markedPathOf(path: string): string {
  if (isRemoteLocator(path)) return formatLocator(parseLocator(path));
  try {
    return realpathSync(path);
  } catch (err) {
    throw fromFsError(err, path);
  }
}

/** The marked lines of `path` (its real path), ascending. */
export function listMarks(path: string, env: Env = process.env): number[] {
  return storedFiles(loadJson(marksFile(env)))[markedPathOf(path)]?.lines ?? [];
}

/** Mark (or unmark) `lineNo` of `path`; returns the file's marks, ascending. */
export async function setMark(path: string, lineNo: number, marked: boolean, opts: { env?: Env; now?: Date } = {}): Promise<number[]> {
  const env = opts.env ?? process.env;
  const real = markedPathOf(path);
  return updateJson(env, marksFile(env), (data) => {
    const files = storedFiles(data);
    const lines = new Set(files[real]?.lines ?? []);
    if (marked) lines.add(lineNo);
    else lines.delete(lineNo);
    if (lines.size > MARKS_PER_FILE_MAX) {
      throw new FolioError('too_large', `at most ${MARKS_PER_FILE_MAX} marked lines per file`, { max: MARKS_PER_FILE_MAX, path: real });
    }
    const sorted = [...lines].sort((a, b) => a - b);
    if (sorted.length === 0) delete files[real];
    else files[real] = { lines: sorted, updated_at: (opts.now ?? new Date()).toISOString() };
    // The files changed longest ago go first past the cap.
    const kept = Object.entries(files)
      .sort((a, b) => b[1].updated_at.localeCompare(a[1].updated_at))
      .slice(0, MARKED_FILES_MAX);
    return { stored: { files: Object.fromEntries(kept) }, answer: sorted };
  });
}
