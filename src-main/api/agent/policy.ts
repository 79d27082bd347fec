/**
 * Workspace policy: which files agents may read and write, and how their edits are
 * handled. Loaded from `<root>/folio.config.json` (all fields optional), overridable
 * by CLI flags:
 *
 *   {
 *     "roots": ["."],                       // allowed roots, relative to the workspace root
 *     "read_only": ["vendor/**"],           // readable, never written
 *     "deny": ["secrets/**"],               // added to the default deny list
 *     "caps": { "max_window_bytes": 262144, "max_full_bytes": 8388608, "max_reply_chars": 4194304 },
 *     "review": [{ "glob": "logs/**", "policy": "auto" }, { "glob": "**", "policy": "review" }],
 *     "allow_hardlinks": false,             // files with more than one link are refused by default
 *     "case_insensitive": null,             // globs ignore case; default: as the file system of the root does
 *     "remote": ["pg/docs/**", "s3/logs/2026/**"]  // remote values agents may open (none by default)
 *   }
 *
 * Remote locators (pg://TABLE/KEY/COLUMN, az://CONTAINER/BLOB, s3://BUCKET/KEY) are
 * matched by the name `pg/TABLE/KEY/COLUMN`, `az/CONTAINER/BLOB`, `s3/BUCKET/KEY`:
 * `remote` globs are their roots (allowed tables, containers, key prefixes), and the
 * deny, read_only and review globs apply to those names as to relative paths.
 *
 * Paths are resolved with realpath, so `..` traversal and symlinks that leave the
 * roots are refused; nothing outside the roots is ever read or written. Globs are
 * matched (picomatch, dotfiles included) against the path relative to its root.
 *
 * Flags only narrow what the config allows: `--allow` roots must lie inside the
 * roots the config names (if it names any), `--deny`/`--read-only` add to its lists, and `--review` applies
 * where no config rule matches, or where it is stricter than the matching rule
 * (a config `deny` always wins). The policy's own file and `.folio/` are never
 * written by agents.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import { FolioError, fromFsError } from '../../engine/errors.ts';
import { formatLocator, isRemoteLocator, parseLocator, policyNameOf } from '../../engine/backend/locator.ts';

export type ReviewPolicy = 'review' | 'auto' | 'deny';

export const DEFAULT_DENY = ['**/.env', '**/.env.*', '**/.envrc', '**/*.pem', '**/*.key', '**/id_rsa*', '**/id_ed25519*', '**/.git/**', '**/.folio/**'];

export interface WorkspacePolicy {
  /** the workspace root (realpath): state lives in <root>/.folio */
  root: string;
  /** allowed roots (realpaths) */
  roots: string[];
  readOnly: string[];
  deny: string[];
  /** maxReplyChars: the most characters one MCP tool reply may have on the wire (doors/mcp/reply.ts) */
  caps: { maxWindowBytes: number; maxFullBytes: number; maxReplyChars: number };
  review: { glob: string; policy: ReviewPolicy }[];
  /** the --review flag: applies where no review rule matches, or where it is stricter */
  reviewOverride?: ReviewPolicy;
  /** files with more than one hard link may be opened (a link may lead outside the roots) */
  allowHardlinks: boolean;
  /** a new file (if_none_match) may be created with its missing folders */
  createFolders: boolean;
  /** globs ignore case (a case-insensitive file system: `.ENV` is `.env`) */
  caseInsensitive: boolean;
  /** real paths agents never write: the policy file itself */
  protectedFiles: string[];
  /** globs of remote resource names agents may open (`pg/TABLE/KEY/COLUMN`, `az/…`, `s3/…`) */
  remote: string[];
}

export interface PolicyOverrides {
  roots?: string[];
  readOnly?: string[];
  deny?: string[];
  review?: ReviewPolicy;
}

interface ConfigFile {
  roots?: string[];
  read_only?: string[];
  deny?: string[];
  caps?: { max_window_bytes?: number; max_full_bytes?: number; max_reply_chars?: number };
  review?: { glob: string; policy: ReviewPolicy }[];
  allow_hardlinks?: boolean;
  create_folders?: boolean;
  case_insensitive?: boolean | null;
  remote?: string[];
}

const STRICTNESS: Record<ReviewPolicy, number> = { auto: 0, review: 1, deny: 2 };
const CONFIG_FILE = 'folio.config.json';

/** Whether names in `dir` are matched without regard to case (macOS, Windows defaults). */
function isCaseInsensitiveDir(dir: string): boolean {
  const flipped = dir.replace(/[a-zA-Z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
  if (flipped === dir) return false;
  try {
    const a = statSync(dir);
    const b = statSync(flipped);
    return a.ino === b.ino && a.dev === b.dev;
  } catch {
    return false;
  }
}

function insideAny(roots: string[], real: string): boolean {
  return roots.some((r) => within(r, real) !== undefined);
}

function realDir(path: string): string {
  try {
    return realpathSync(path);
  } catch (err) {
    throw fromFsError(err, path);
  }
}

/** The policy of the workspace at `root`: its folio.config.json, then the overrides. */
export function loadPolicy(root: string, overrides: PolicyOverrides = {}): WorkspacePolicy {
  const rootReal = realDir(resolve(root));
  let config: ConfigFile = {};
  try {
    config = JSON.parse(readFileSync(resolve(rootReal, 'folio.config.json'), 'utf8')) as ConfigFile;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new FolioError('invalid_input', `folio.config.json in ${rootReal} is not valid JSON: ${(err as Error).message}`, { root: rootReal });
    }
  }
  for (const r of config.review ?? []) {
    if (!['review', 'auto', 'deny'].includes(r.policy)) {
      throw new FolioError('invalid_input', `folio.config.json: review policy "${r.policy}" for ${r.glob} must be review, auto or deny`, { glob: r.glob });
    }
  }
  const configRoots = (config.roots ?? ['.']).map((r) => realDir(resolve(rootReal, r)));
  const roots = overrides.roots ? overrides.roots.map((r) => realDir(resolve(rootReal, r))) : configRoots;
  // Roots the config names are a ceiling: a flag may narrow them, never widen them.
  // Without them, the person starting Folio chooses the roots with --allow.
  for (const r of config.roots ? roots : []) {
    if (!insideAny(configRoots, r)) {
      throw new FolioError('invalid_input', `--allow ${r} is outside the roots ${CONFIG_FILE} allows (${configRoots.join(', ')})`, {
        root: r,
        allowed: configRoots,
      });
    }
  }
  return {
    root: rootReal,
    roots,
    readOnly: [...(config.read_only ?? []), ...(overrides.readOnly ?? [])],
    deny: [...DEFAULT_DENY, ...(config.deny ?? []), ...(overrides.deny ?? [])],
    caps: {
      maxWindowBytes: config.caps?.max_window_bytes ?? 256 * 1024,
      maxFullBytes: config.caps?.max_full_bytes ?? 8 * 1024 * 1024,
      maxReplyChars: config.caps?.max_reply_chars ?? 4 * 1024 * 1024,
    },
    review: config.review ?? [],
    ...(overrides.review ? { reviewOverride: overrides.review } : {}),
    allowHardlinks: config.allow_hardlinks === true,
    createFolders: config.create_folders === true,
    caseInsensitive: typeof config.case_insensitive === 'boolean' ? config.case_insensitive : isCaseInsensitiveDir(rootReal),
    protectedFiles: [resolve(rootReal, CONFIG_FILE)],
    remote: config.remote ?? [],
  };
}

const matchers = new Map<string, (p: string) => boolean>();

/** The first glob that matches `rel` (case-insensitively when `nocase`). */
export function matches(globs: string[], rel: string, nocase = false): string | undefined {
  for (const g of globs) {
    const key = `${nocase ? 'i' : 's'}:${g}`;
    let m = matchers.get(key);
    if (!m) matchers.set(key, (m = picomatch(g, { dot: true, nocase })));
    if (m(rel)) return g;
  }
  return undefined;
}

/**
 * The deny glob that names `rel`, if any. The built-in globs (DEFAULT_DENY) ignore
 * case on every disk: on a case-sensitive one `.ENV`, `KEY.PEM` or `ID_RSA` is
 * another file than `.env`, but it holds the same kind of secret. Globs of the
 * config and flags follow the disk (case_insensitive).
 */
export function deniedBy(policy: Pick<WorkspacePolicy, 'deny' | 'caseInsensitive'>, rel: string): string | undefined {
  const builtIn = policy.deny.filter((g) => DEFAULT_DENY.includes(g));
  return matches(builtIn, rel, true) ?? matches(policy.deny, rel, policy.caseInsensitive);
}

function within(root: string, real: string): string | undefined {
  const rel = relative(root, real);
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}

/**
 * The real path of `path` (relative paths resolve against the workspace root) if
 * `access` to it is allowed, else permission_denied naming the rule. The file must
 * exist (reads and edits both need it): a missing one is not_found.
 */
export function checkAccess(policy: WorkspacePolicy, path: string, access: 'read' | 'write'): string {
  if (isRemoteLocator(path)) return checkRemoteAccess(policy, path, access);
  const asked = resolve(policy.root, path);
  let real: string;
  try {
    // One realpath(3) call: the JS walk reads links one by one and fails oddly (EINVAL) when a component is swapped mid-walk.
    real = realpathSync.native(asked);
  } catch (err) {
    // A missing name outside the roots is refused like an existing one: no probing what exists out there.
    if (![policy.root, ...policy.roots].some((r) => within(r, asked) !== undefined)) {
      throw new FolioError('permission_denied', `${path} is outside the workspace roots`, { path, roots: policy.roots });
    }
    // Nor what exists under a denied name.
    const lexical = [policy.root, ...policy.roots].map((r) => within(r, asked)).find((x) => x !== undefined)!;
    const denied = deniedBy(policy, lexical);
    if (denied) throw new FolioError('permission_denied', `${path} is denied by the workspace policy (${denied})`, { path, rule: denied });
    throw fromFsError(err, asked);
  }
  const rel = policy.roots.map((r) => within(r, real)).find((x) => x !== undefined);
  if (rel === undefined) throw outsideRoots(policy, path, asked, real);
  let st: ReturnType<typeof statSync> & object;
  try {
    st = statSync(real);
  } catch (err) {
    throw fromFsError(err, real); // gone (or swapped) since realpath
  }
  if (!st.isFile()) {
    throw new FolioError('permission_denied', `${path} is not a regular file: agents may only open regular files`, { path, resolved: real });
  }
  const denied = deniedBy(policy, rel);
  if (denied) throw new FolioError('permission_denied', `${path} is denied by the workspace policy (${denied})`, { path, rule: denied });
  // Another name of the same file may lie outside the roots or be denied (a hard link to ~/.ssh/id_rsa or .env).
  if (st.nlink > 1 && !policy.allowHardlinks) {
    throw new FolioError(
      'permission_denied',
      `${path} has ${st.nlink} hard links; one may be outside the workspace or denied (set allow_hardlinks in ${CONFIG_FILE} to allow)`,
      {
        path,
        resolved: real,
        links: st.nlink,
      },
    );
  }
  if (access === 'write') checkWritable(policy, path, asked, real, rel);
  return real;
}

function checkWritable(policy: WorkspacePolicy, path: string, asked: string, real: string, rel: string): void {
  if (policy.protectedFiles.some((f) => samePath(f, real, policy.caseInsensitive) || samePath(f, asked, policy.caseInsensitive))) {
    throw new FolioError('permission_denied', `${path} is the workspace policy: agents may not edit it`, { path, rule: CONFIG_FILE });
  }
  const ro = matches(policy.readOnly, rel, policy.caseInsensitive);
  if (ro) throw new FolioError('permission_denied', `${path} is read-only by the workspace policy (${ro})`, { path, rule: ro });
}

/**
 * The real path a new file `path` would have, if an agent may create it: its
 * nearest existing folder resolved with realpath, inside the roots, the name
 * neither denied nor read-only, and missing folders only where the config sets
 * create_folders. Whether something is already there is the engine's to say
 * (if_none_match fails with precondition_failed).
 */
export function checkCreate(policy: WorkspacePolicy, path: string): string {
  if (isRemoteLocator(path)) return checkRemoteAccess(policy, path, 'write');
  const asked = resolve(policy.root, path);
  const missing: string[] = [];
  let dir = dirname(asked);
  while (!existsSync(dir) && dirname(dir) !== dir) {
    missing.unshift(basename(dir));
    dir = dirname(dir);
  }
  if (missing.length && !policy.createFolders) {
    throw new FolioError(
      'permission_denied',
      `${path}: its folder ${missing.join('/')} does not exist, and the workspace policy does not let agents create folders`,
      {
        path,
        missing_folders: missing,
        hint: `set create_folders: true in ${CONFIG_FILE} to allow it`,
      },
    );
  }
  let realDir: string;
  try {
    realDir = realpathSync.native(dir);
  } catch (err) {
    throw fromFsError(err, dir);
  }
  const real = join(realDir, ...missing, basename(asked));
  const rel = policy.roots.map((r) => within(r, real)).find((x) => x !== undefined);
  if (rel === undefined) throw outsideRoots(policy, path, asked, real);
  const denied = deniedBy(policy, rel);
  if (denied) throw new FolioError('permission_denied', `${path} is denied by the workspace policy (${denied})`, { path, rule: denied });
  checkWritable(policy, path, asked, real, rel);
  return real;
}

function samePath(a: string, b: string, nocase: boolean): boolean {
  return nocase ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/**
 * How an agent's edit of `realPath` is handled: the first matching review rule of the
 * config, else review. The --review flag replaces the default, and narrows a matching
 * rule (auto -> review -> deny) but never widens it: a config deny always wins.
 */
export function reviewPolicyFor(policy: WorkspacePolicy, realPath: string): ReviewPolicy {
  const rel = isRemoteLocator(realPath) ? policyNameOf(parseLocator(realPath)) : policy.roots.map((r) => within(r, realPath)).find((x) => x !== undefined);
  if (rel === undefined) return 'deny';
  const rule = policy.review.find((r) => matches([r.glob], rel, policy.caseInsensitive));
  const flag = policy.reviewOverride;
  if (!rule) return flag ?? 'review';
  return flag && STRICTNESS[flag] > STRICTNESS[rule.policy] ? flag : rule.policy;
}

/**
 * The canonical locator of a remote value if `access` to it is allowed: its name
 * (`pg/TABLE/KEY/COLUMN` …) must match a `remote` glob, and no deny glob (nor, to
 * write, a read_only glob). A bad locator is invalid_input.
 */
function checkRemoteAccess(policy: WorkspacePolicy, path: string, access: 'read' | 'write'): string {
  const l = parseLocator(path);
  const name = policyNameOf(l);
  if (!matches(policy.remote, name, false)) {
    throw new FolioError('permission_denied', `${path} is not among the remote values agents may open (remote in ${CONFIG_FILE})`, {
      path,
      name,
      remote: policy.remote,
    });
  }
  const denied = matches(policy.deny, name, false);
  if (denied) throw new FolioError('permission_denied', `${path} is denied by the workspace policy (${denied})`, { path, rule: denied });
  if (access === 'write') {
    const ro = matches(policy.readOnly, name, false);
    if (ro) throw new FolioError('permission_denied', `${path} is read-only by the workspace policy (${ro})`, { path, rule: ro });
  }
  return formatLocator(l);
}

// --- Directories (issue 14: search over a directory, list) ---

/** Whether a directory (relative to its root) is denied: a glob names it, or a `…/**` glob denies everything in it. */
function deniedDirectory(policy: WorkspacePolicy, rel: string): string | undefined {
  return deniedBy(policy, rel) ?? deniedBy({ ...policy, deny: policy.deny.filter((g) => g.endsWith('/**')) }, `${rel}/x`);
}

/**
 * The real path of the directory `path` if an agent may walk it, and a filter for
 * what the walk meets: the directory must lie inside the roots (after realpath) and
 * not be denied; under it, every file and directory a deny glob names is left out
 * silently (never listed, never opened). The walk follows no symlinks, so nothing
 * it yields leaves the directory.
 */
export function checkDirectoryAccess(
  policy: WorkspacePolicy,
  path: string,
): { real: string; admit: (abs: string, rel: string, kind: 'file' | 'dir') => boolean } {
  const asked = resolve(policy.root, path);
  let real: string;
  try {
    real = realpathSync.native(asked);
  } catch (err) {
    throw fromFsError(err, asked);
  }
  const base = policy.roots.map((r) => within(r, real)).find((x) => x !== undefined);
  if (base === undefined) throw outsideRoots(policy, path, asked, real);
  if (!statSync(real).isDirectory()) throw new FolioError('invalid_input', `${path} is not a directory`, { path, resolved: real });
  const denied = base === '' ? undefined : deniedDirectory(policy, base);
  if (denied) throw new FolioError('permission_denied', `${path} is denied by the workspace policy (${denied})`, { path, rule: denied });
  const prefix = base === '' ? '' : `${base}/`;
  const admit = (_abs: string, rel: string, kind: 'file' | 'dir') =>
    kind === 'dir' ? deniedDirectory(policy, prefix + rel) === undefined : deniedBy(policy, prefix + rel) === undefined;
  return { real, admit };
}

function outsideRoots(policy: WorkspacePolicy, path: string, asked: string, real: string): FolioError {
  return new FolioError('permission_denied', `${path} is outside the workspace roots${real !== asked ? ` (it resolves to ${real})` : ''}`, {
    path,
    resolved: real,
    roots: policy.roots,
  });
}
