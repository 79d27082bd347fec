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
import { withFileLock } from '../../engine/index/file-lock.ts';
import { openIndex, type OpenOptions } from '../../engine/index/store.ts';
import { lineSourceOf, printsAt, reanchorMarks, type LineSource } from './mark-anchors.ts';
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
  /** the file version the lines were last anchored at, and each line's fingerprint then (mark-anchors.ts); absent in old entries */
  etag?: string;
  prints?: string[];
}

function storedFiles(data: Record<string, unknown>): Record<string, StoredMarks> {
  const files = data.files;
  if (typeof files !== 'object' || files === null || Array.isArray(files)) return {};
  const out: Record<string, StoredMarks> = {};
  for (const [path, v] of Object.entries(files as Record<string, unknown>)) {
    const entry = v as Partial<StoredMarks> | null;
    if (!entry || !Array.isArray(entry.lines)) continue;
    const lines = entry.lines.filter((n): n is number => Number.isInteger(n) && n >= 1);
    const prints = Array.isArray(entry.prints) && entry.prints.length === entry.lines.length && lines.length === entry.lines.length ? entry.prints : undefined;
    out[path] = {
      lines,
      updated_at: typeof entry.updated_at === 'string' ? entry.updated_at : '',
      ...(prints && typeof entry.etag === 'string' && prints.every((p) => typeof p === 'string') ? { etag: entry.etag, prints } : {}),
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

/** The marked lines of `path` (its real path), ascending, as stored (not re-anchored). */
export function listMarks(path: string, env: Env = process.env): number[] {
  return storedFiles(loadJson(marksFile(env)))[markedPathOf(path)]?.lines ?? [];
}

/** The current version of a local file's lines; null for a remote value (its marks stay on their numbers). */
async function lineSourceFor(real: string, open: OpenOptions): Promise<LineSource | null> {
  if (isRemoteLocator(real)) return null;
  try {
    return lineSourceOf(await openIndex(real, open));
  } catch (err) {
    throw err instanceof FolioError ? err : fromFsError(err, real);
  }
}

/** `entry` anchored on `src`: unchanged when it was taken at this version. */
function anchored(entry: StoredMarks | undefined, src: LineSource | null): { entry: StoredMarks | undefined; lost: number[] } {
  if (!entry || !src || (entry.etag === src.etag && entry.prints)) return { entry, lost: [] };
  const { lines, prints, lost } = reanchorMarks(entry.lines, entry.etag ? entry.prints : undefined, src);
  return { entry: { ...entry, lines, prints, etag: src.etag }, lost };
}

/**
 * The marked lines of `path`, ascending, after following their lines to the
 * file's current version (mark-anchors.ts); the re-anchored marks are kept.
 * `lost` names the marks whose text was not found near where they were (their
 * line was edited or deleted): they stay at their number, moved by the shift
 * of the lines above them.
 */
export async function listMarksAnchored(path: string, opts: { env?: Env; open?: OpenOptions } = {}): Promise<{ lines: number[]; lost: number[] }> {
  const env = opts.env ?? process.env;
  const real = markedPathOf(path);
  const stored = storedFiles(loadJson(marksFile(env)))[real];
  if (!stored) return { lines: [], lost: [] };
  const src = await lineSourceFor(real, opts.open ?? {});
  if (!src || (stored.etag === src.etag && stored.prints)) return { lines: stored.lines, lost: [] };
  return updateJson(env, marksFile(env), (data) => {
    const files = storedFiles(data);
    const { entry, lost } = anchored(files[real], src);
    if (entry) files[real] = entry;
    return { stored: { files }, answer: { lines: entry?.lines ?? [], lost } };
  });
}

/** Mark (or unmark) `lineNo` of `path`; returns the file's marks, ascending. */
export async function setMark(path: string, lineNo: number, marked: boolean, opts: { env?: Env; now?: Date; open?: OpenOptions } = {}): Promise<number[]> {
  const env = opts.env ?? process.env;
  const real = markedPathOf(path);
  // The other marks follow their lines first, so the new one is taken at the same version.
  const src = await lineSourceFor(real, opts.open ?? {});
  return updateJson(env, marksFile(env), (data) => {
    const files = storedFiles(data);
    const current = anchored(files[real], src).entry;
    const prints = new Map((current?.lines ?? []).map((n, i) => [n, current?.prints?.[i] ?? ''] as const));
    if (marked) prints.set(lineNo, src ? (printsAt(src, [lineNo])[0] ?? '') : '');
    else prints.delete(lineNo);
    if (prints.size > MARKS_PER_FILE_MAX) {
      throw new FolioError('too_large', `at most ${MARKS_PER_FILE_MAX} marked lines per file`, { max: MARKS_PER_FILE_MAX, path: real });
    }
    const sorted = [...prints.keys()].sort((a, b) => a - b);
    if (sorted.length === 0) delete files[real];
    else {
      files[real] = {
        lines: sorted,
        updated_at: (opts.now ?? new Date()).toISOString(),
        ...(src ? { etag: src.etag, prints: sorted.map((n) => prints.get(n)!) } : {}),
      };
    }
    // The files changed longest ago go first past the cap.
    const kept = Object.entries(files)
      .sort((a, b) => b[1].updated_at.localeCompare(a[1].updated_at))
      .slice(0, MARKED_FILES_MAX);
    return { stored: { files: Object.fromEntries(kept) }, answer: sorted };
  });
}
