/**
 * Workspace policy: which files agents may read and write, and how their edits are
 * handled. Loaded from `<root>/folio.config.json` (all fields optional), overridable
 * by CLI flags:
 *
 *   {
 *     "roots": ["."],                       // allowed roots, relative to the workspace root
 *     "read_only": ["vendor/**"],           // readable, never written
 *     "deny": ["secrets/**"],               // added to the default deny list
 *     "caps": { "max_window_bytes": 262144, "max_full_bytes": 8388608 },
 *     "review": [{ "glob": "logs/**", "policy": "auto" }, { "glob": "**", "policy": "review" }]
 *   }
 *
 * Paths are resolved with realpath, so `..` traversal and symlinks that leave the
 * roots are refused; nothing outside the roots is ever read or written. Globs are
 * matched (picomatch, dotfiles included) against the path relative to its root.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import { FolioError, fromFsError } from '../../engine/errors.ts';

export type ReviewPolicy = 'review' | 'auto' | 'deny';

export const DEFAULT_DENY = ['**/.env', '**/.env.*', '**/*.pem', '**/*.key', '**/id_rsa*', '**/id_ed25519*', '**/.git/**', '**/.folio/**'];

export interface WorkspacePolicy {
  /** the workspace root (realpath): state lives in <root>/.folio */
  root: string;
  /** allowed roots (realpaths) */
  roots: string[];
  readOnly: string[];
  deny: string[];
  caps: { maxWindowBytes: number; maxFullBytes: number };
  review: { glob: string; policy: ReviewPolicy }[];
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
  caps?: { max_window_bytes?: number; max_full_bytes?: number };
  review?: { glob: string; policy: ReviewPolicy }[];
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
  const roots = (overrides.roots ?? config.roots ?? ['.']).map((r) => realDir(resolve(rootReal, r)));
  return {
    root: rootReal,
    roots,
    readOnly: [...(config.read_only ?? []), ...(overrides.readOnly ?? [])],
    deny: [...DEFAULT_DENY, ...(config.deny ?? []), ...(overrides.deny ?? [])],
    caps: {
      maxWindowBytes: config.caps?.max_window_bytes ?? 256 * 1024,
      maxFullBytes: config.caps?.max_full_bytes ?? 8 * 1024 * 1024,
    },
    review: [...(overrides.review ? [{ glob: '**', policy: overrides.review }] : []), ...(config.review ?? [])],
  };
}

const matchers = new Map<string, (p: string) => boolean>();

function matches(globs: string[], rel: string): string | undefined {
  for (const g of globs) {
    let m = matchers.get(g);
    if (!m) matchers.set(g, (m = picomatch(g, { dot: true })));
    if (m(rel)) return g;
  }
  return undefined;
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
  const asked = resolve(policy.root, path);
  let real: string;
  try {
    real = realpathSync(asked);
  } catch (err) {
    throw fromFsError(err, asked);
  }
  const rel = policy.roots.map((r) => within(r, real)).find((x) => x !== undefined);
  if (rel === undefined) {
    throw new FolioError('permission_denied', `${path} is outside the workspace roots${real !== asked ? ` (it resolves to ${real})` : ''}`, {
      path,
      resolved: real,
      roots: policy.roots,
    });
  }
  if (!statSync(real).isFile()) {
    throw new FolioError('permission_denied', `${path} is not a regular file: agents may only open regular files`, { path, resolved: real });
  }
  const denied = matches(policy.deny, rel);
  if (denied) throw new FolioError('permission_denied', `${path} is denied by the workspace policy (${denied})`, { path, rule: denied });
  if (access === 'write') {
    const ro = matches(policy.readOnly, rel);
    if (ro) throw new FolioError('permission_denied', `${path} is read-only by the workspace policy (${ro})`, { path, rule: ro });
  }
  return real;
}

/** How an agent's edit of `realPath` is handled: the first matching review rule, else review. */
export function reviewPolicyFor(policy: WorkspacePolicy, realPath: string): ReviewPolicy {
  const rel = policy.roots.map((r) => within(r, realPath)).find((x) => x !== undefined);
  if (rel === undefined) return 'deny';
  for (const r of policy.review) if (matches([r.glob], rel)) return r.policy;
  return 'review';
}
