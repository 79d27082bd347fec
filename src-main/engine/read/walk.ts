/**
 * The entries under a directory, the way git sees a work tree, in one stable
 * order (depth first, names sorted by code unit): the order a directory search
 * answers in and resumes from (its cursor names a path in this order).
 *
 * - `.gitignore` files apply to their own directory and below, a deeper file's
 *   rules over a shallower one's (a `!pattern` can re-include), as gitignore(5)
 *   says; a directory that is ignored is not entered, so nothing under it can be
 *   re-included. The `.gitignore` files of the directories above the walked one
 *   count too, up to the top of its git work tree (the nearest directory holding
 *   `.git`). Rules are read with the `ignore` package (the gitignore matcher
 *   eslint and many others use). `.git/info/exclude` and global excludes are not
 *   read.
 * - `.git` itself is never entered; hidden files are walked (policy decides what
 *   an agent may see, not a leading dot).
 * - Symbolic links are never followed, to files or to directories (ripgrep's
 *   default): a link inside the tree cannot lead the walk outside it.
 * - Anything but regular files and directories (FIFOs, sockets, devices) is left out.
 */
import { closeSync, existsSync, fstatSync, lstatSync, openSync, readdirSync, readSync, type Dirent } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';

export interface WalkEntry {
  /** path relative to the walked directory, '/'-separated */
  rel: string;
  abs: string;
  kind: 'file' | 'dir';
  /** 1 for the walked directory's own entries */
  depth: number;
}

export interface WalkOptions {
  /** only entries whose relative path matches this glob (picomatch, dotfiles included); directories are still entered */
  glob?: string;
  /** entries deeper than this are neither yielded nor entered (default: no limit) */
  maxDepth?: number;
  /** yield directories as well as files */
  dirs?: boolean;
  /** resume: skip every entry ordered before this relative path (see comparePaths) */
  from?: string;
  /** the caller's verdict on each entry (an agent's policy); false: not yielded, a directory not entered */
  admit?: (abs: string, rel: string, kind: 'file' | 'dir') => boolean;
  /** read `.gitignore` files (default true) */
  gitignore?: boolean;
}

type IgnoreTest = (path: string) => { ignored: boolean; unignored: boolean };

/** One .gitignore in force: its rules, and how to turn a walk-relative path into a path relative to its directory. */
interface IgnoreLevel {
  test: IgnoreTest;
  /** chars of the walk-relative path to drop (the level's directory and its '/') */
  strip: number;
  /** prefix to add (the walked directory relative to the level's directory, for levels above it) */
  prepend: string;
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Walk order of two relative paths: segment by segment, so a directory's entries come right after it. */
export function comparePaths(a: string, b: string): number {
  const as = a.split('/');
  const bs = b.split('/');
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const c = byCodeUnit(as[i]!, bs[i]!);
    if (c) return c;
  }
  return as.length - bs.length;
}

/** The ignore package's regex prefix of a rule that may match at any depth (no '/' inside the pattern). */
const ANY_DEPTH = '(?:^|\\/)';

/** The regex body of a rule that only ever looks at the last path segment, else undefined. */
function basenameBody(source: string): string | undefined {
  if (!source.startsWith(ANY_DEPTH)) return undefined;
  const body = source.slice(ANY_DEPTH.length);
  const core = body
    .replace(/\(\?=\$\|\\\/\$\)$|\\\/\$$/, '')
    .replaceAll('[^\\/]', '')
    .replaceAll('[^/]', '');
  return core.includes('/') ? undefined : body;
}

/** `*.ext`: a suffix of the name (any depth, files and directories alike). */
const SUFFIX_RULE = /^\*(\.[A-Za-z0-9_.+-]+)$/;
/** `name`: the exact name (any depth, files and directories alike). */
const NAME_RULE = /^[A-Za-z0-9_.+-]+$/;

/**
 * One test for a set of rules: the commonest rules (`*.ext`, a plain name) by set
 * lookup on the last segment, other basename rules as one anchored regex on it,
 * rooted rules as one anchored regex on the path, the rest one by one.
 */
function unionOf(rules: { regex: RegExp; pattern?: unknown }[]): ((path: string, base: string) => boolean) | undefined {
  if (!rules.length) return undefined;
  const flags = rules[0]!.regex.flags.replace(/[gy]/g, '');
  const suffixes = new Set<string>();
  const names = new Set<string>();
  const base: string[] = [];
  const rooted: string[] = [];
  const other: RegExp[] = [];
  for (const r of rules) {
    const pattern = typeof r.pattern === 'string' ? r.pattern.trim() : '';
    const suffix = SUFFIX_RULE.exec(pattern);
    if (suffix && basenameBody(r.regex.source) !== undefined) {
      suffixes.add(suffix[1]!);
      continue;
    }
    if (NAME_RULE.test(pattern) && basenameBody(r.regex.source) !== undefined) {
      names.add(pattern);
      continue;
    }
    const b = basenameBody(r.regex.source);
    if (b !== undefined) base.push(b);
    else if (r.regex.source.startsWith('^')) rooted.push(r.regex.source.slice(1));
    else other.push(r.regex);
  }
  const baseRe = base.length ? new RegExp(`^(?:${base.join('|')})`, flags) : undefined;
  const rootedRe = rooted.length ? new RegExp(`^(?:${rooted.join('|')})`, flags) : undefined;
  const bySet = (name: string) => {
    const n = name.endsWith('/') ? name.slice(0, -1) : name;
    if (names.has(n)) return true;
    if (suffixes.size) for (let i = n.indexOf('.'); i >= 0; i = n.indexOf('.', i + 1)) if (suffixes.has(n.slice(i))) return true;
    return false;
  };
  return (path, name) => bySet(name) || (baseRe?.test(name) ?? false) || (rootedRe?.test(path) ?? false) || other.some((re) => re.test(path));
}

/**
 * A fast test for one .gitignore. The ignore package tests a path rule by rule and
 * every parent directory of it again (its test()); a walk never reaches a path
 * under an ignored directory, so only the path itself needs testing, and its rules
 * can run as two anchored alternations (rules of one name on the last segment,
 * rooted rules on the path). Without negations a path is ignored when any rule
 * matches; only a path that both some rule and some negation match needs the
 * rule-by-rule pass (the last matching rule wins, gitignore(5)). Uses the
 * package's compiled rules (`_rules`: { regex, negative }, stable through 5.x);
 * without them, its test().
 */
function compiledTest(ig: Ignore): IgnoreTest {
  const rules = (ig as unknown as { _rules?: { regex?: unknown; negative?: unknown }[] })._rules;
  if (!Array.isArray(rules) || !rules.every((r) => r.regex instanceof RegExp && typeof r.negative === 'boolean')) return (p) => ig.test(p);
  const typed = rules as { regex: RegExp; negative: boolean; pattern?: unknown }[];
  const positive = unionOf(typed.filter((r) => !r.negative));
  const negative = unionOf(typed.filter((r) => r.negative));
  const none = { ignored: false, unignored: false };
  return (p) => {
    const name = p.slice(p.lastIndexOf('/', p.length - 2) + 1);
    const pos = positive?.(p, name) ?? false;
    const neg = negative?.(p, name) ?? false;
    if (!neg) return pos ? { ignored: true, unignored: false } : none;
    if (!pos) return { ignored: false, unignored: true };
    let last = none;
    for (const r of typed) if (r.regex.test(p)) last = { ignored: !r.negative, unignored: r.negative };
    return last;
  };
}

/** .gitignore files past this size are read only this far (a rule file, not data). */
const MAX_IGNORE_FILE_BYTES = 1 << 20;

function readIgnoreFile(path: string): Ignore | undefined {
  let text: string;
  try {
    const fd = openSync(path, 'r');
    try {
      const size = Math.min(fstatSync(fd).size, MAX_IGNORE_FILE_BYTES);
      const buf = Buffer.allocUnsafe(size);
      let got = 0;
      while (got < size) {
        const n = readSync(fd, buf, got, size - got, got);
        if (n <= 0) break;
        got += n;
      }
      text = buf.toString('utf8', 0, got);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined; // none, or unreadable: no rules
  }
  return ignore({ ignorecase: false }).add(text);
}

/** The .gitignore levels above `root` up to the top of its git work tree (none outside a work tree). */
function levelsAbove(root: string): IgnoreLevel[] {
  const dirs: string[] = [];
  let dir = root;
  for (;;) {
    if (existsSync(join(dir, '.git'))) break;
    const up = dirname(dir);
    if (up === dir) return []; // not in a work tree
    dir = up;
    dirs.unshift(dir);
  }
  const levels: IgnoreLevel[] = [];
  for (const d of dirs) {
    const ig = readIgnoreFile(join(d, '.gitignore'));
    if (ig) levels.push({ test: compiledTest(ig), strip: 0, prepend: relative(d, root).split(sep).join('/') + '/' });
  }
  return levels;
}

function isIgnored(levels: IgnoreLevel[], rel: string, isDir: boolean): boolean {
  let ignored = false;
  for (const l of levels) {
    const p = l.prepend + rel.slice(l.strip) + (isDir ? '/' : '');
    const r = l.test(p);
    if (r.ignored) ignored = true;
    else if (r.unignored) ignored = false;
  }
  return ignored;
}

function kindOf(d: Dirent, abs: string): 'file' | 'dir' | undefined {
  if (d.isFile()) return 'file';
  if (d.isDirectory()) return 'dir';
  if (d.isSymbolicLink()) return undefined;
  if (d.isFIFO() || d.isSocket() || d.isBlockDevice() || d.isCharacterDevice()) return undefined;
  // DT_UNKNOWN (some file systems): ask.
  try {
    const st = lstatSync(abs);
    return st.isFile() ? 'file' : st.isDirectory() ? 'dir' : undefined;
  } catch {
    return undefined;
  }
}

/** The entries under `root` (an existing directory, a real path), in walk order. */
export function* walkTree(root: string, opts: WalkOptions = {}): Generator<WalkEntry> {
  const useIgnore = opts.gitignore !== false;
  const glob = opts.glob ? picomatch(opts.glob, { dot: true }) : undefined;
  const maxDepth = opts.maxDepth ?? Infinity;
  const from = opts.from;
  function* walk(dirAbs: string, dirRel: string, depth: number, levels: IgnoreLevel[]): Generator<WalkEntry> {
    let names: Dirent[];
    try {
      names = readdirSync(dirAbs || sep, { withFileTypes: true });
    } catch {
      return; // gone or unreadable: nothing under it
    }
    if (useIgnore && names.some((d) => d.name === '.gitignore')) {
      const ig = readIgnoreFile(dirAbs + sep + '.gitignore');
      if (ig) levels = [...levels, { test: compiledTest(ig), strip: dirRel ? dirRel.length + 1 : 0, prepend: '' }];
    }
    names.sort((a, b) => byCodeUnit(a.name, b.name));
    for (const d of names) {
      if (d.name === '.git') continue;
      const rel = dirRel ? `${dirRel}/${d.name}` : d.name;
      // Plain concatenation: names hold no separator, and path.join's normalising costs more than the rest of the walk step.
      const abs = dirAbs + sep + d.name;
      const kind = kindOf(d, abs);
      if (!kind) continue;
      if (from !== undefined) {
        // Before the cursor: skip, unless it is a directory on the cursor's path.
        if (comparePaths(rel, from) < 0 && !(kind === 'dir' && from.startsWith(rel + '/'))) continue;
      }
      if (useIgnore && levels.length && isIgnored(levels, rel, kind === 'dir')) continue;
      if (opts.admit && !opts.admit(abs, rel, kind)) continue;
      if (kind === 'file' || opts.dirs) {
        if (!glob || glob(rel)) yield { rel, abs, kind, depth };
      }
      if (kind === 'dir' && depth < maxDepth) yield* walk(abs, rel, depth + 1, levels);
    }
  }
  // Without a trailing separator (the root directory itself is '/'), so that entries concatenate to clean paths.
  yield* walk(root.endsWith(sep) ? root.slice(0, -1) : root, '', 1, useIgnore ? levelsAbove(root) : []);
}
