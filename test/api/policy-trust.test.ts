/**
 * The workspace policy against an agent that tries to get around it: hard links to
 * files outside the roots or to denied files, rewriting the policy itself, a
 * --review flag over a config deny, --allow past the config's roots, and deny
 * globs on a case-insensitive file system.
 */
import { linkSync, mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAccess, loadPolicy, matches, reviewPolicyFor } from '../../src-main/api/agent/policy.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const ws = tmp.path('ws');
mkdirSync(`${ws}/src/generated`, { recursive: true });
mkdirSync(`${ws}/docs`, { recursive: true });
writeFileSync(tmp.path('outside-secret.txt'), 'token=outside\n');
writeFileSync(`${ws}/.env`, 'API_KEY=x\n');
writeFileSync(`${ws}/src/a.ts`, 'a\n');
// Hard links: one to a file outside the root, one to a denied file, made by someone with shell access.
linkSync(tmp.path('outside-secret.txt'), `${ws}/src/notes.txt`);
linkSync(`${ws}/.env`, `${ws}/src/env-copy.txt`);
const CONFIG = {
  roots: ['src', 'docs'],
  review: [
    { glob: 'generated/**', policy: 'deny' },
    { glob: 'a.ts', policy: 'review' },
  ],
};
writeFileSync(`${ws}/folio.config.json`, JSON.stringify(CONFIG));

/** Run `check` with folio.config.json holding `config`, then put the test's config back. */
function withConfig(config: object, check: () => void): void {
  writeFileSync(`${ws}/folio.config.json`, JSON.stringify(config));
  try {
    check();
  } finally {
    writeFileSync(`${ws}/folio.config.json`, JSON.stringify(CONFIG));
  }
}
writeFileSync(`${ws}/src/folio.config.json`, '{}\n');

const denied = expect.objectContaining({ code: 'permission_denied' });

describe('policy against an adversary', () => {
  const policy = loadPolicy(ws);

  it('refuses a hard link inside the root to a file outside it, for reads and writes', () => {
    expect(() => checkAccess(policy, 'src/notes.txt', 'read')).toThrow(
      expect.objectContaining({ code: 'permission_denied', details: expect.objectContaining({ links: 2 }) }),
    );
    expect(() => checkAccess(policy, 'src/notes.txt', 'write')).toThrow(denied);
  });

  it('refuses a hard link to a denied file (.env)', () => {
    expect(() => checkAccess(policy, 'src/env-copy.txt', 'read')).toThrow(denied);
  });

  it('allows hard links only when the config says so', () => {
    withConfig({ roots: ['src', 'docs'], allow_hardlinks: true }, () => {
      const p = loadPolicy(ws);
      expect(checkAccess(p, 'src/notes.txt', 'read')).toBe(`${p.root}/src/notes.txt`);
    });
  });

  it('never lets an agent write the policy file, even when the root is the workspace', () => {
    const whole = loadPolicy(ws, {});
    const wide = { ...whole, roots: [whole.root] };
    expect(checkAccess(wide, 'folio.config.json', 'read')).toBe(`${whole.root}/folio.config.json`);
    expect(() => checkAccess(wide, 'folio.config.json', 'write')).toThrow(
      expect.objectContaining({ code: 'permission_denied', details: expect.objectContaining({ rule: 'folio.config.json' }) }),
    );
    // A file of the same name elsewhere is an ordinary file.
    expect(checkAccess(wide, 'src/folio.config.json', 'write')).toBe(`${whole.root}/src/folio.config.json`);
  });

  it('keeps .folio/ (review state, audit) out of reach', () => {
    mkdirSync(`${ws}/src/.folio`, { recursive: true });
    writeFileSync(`${ws}/src/.folio/journal.json`, '{}\n');
    expect(() => checkAccess(policy, 'src/.folio/journal.json', 'write')).toThrow(denied);
    expect(() => checkAccess(policy, 'src/.folio/journal.json', 'read')).toThrow(denied);
  });

  it('a --review flag never overrides a config deny, and does not widen a config review to auto', () => {
    const flagged = loadPolicy(ws, { review: 'auto' });
    expect(reviewPolicyFor(flagged, `${flagged.root}/src/generated/x.ts`)).toBe('deny');
    expect(reviewPolicyFor(flagged, `${flagged.root}/src/a.ts`)).toBe('review');
    // Where no config rule matches, the flag replaces the default.
    expect(reviewPolicyFor(flagged, `${flagged.root}/docs/readme.md`)).toBe('auto');
    // A stricter flag narrows a rule.
    expect(reviewPolicyFor(loadPolicy(ws, { review: 'deny' }), `${flagged.root}/src/a.ts`)).toBe('deny');
  });

  it('--allow may narrow the config roots but not leave them', () => {
    expect(loadPolicy(ws, { roots: ['src'] }).roots).toEqual([`${policy.root}/src`]);
    expect(() => loadPolicy(ws, { roots: ['.'] })).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(() => loadPolicy(ws, { roots: [tmp.path('')] })).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  });

  it('deny and read-only globs ignore case on a case-insensitive file system', () => {
    expect(matches(['**/.env'], 'sub/.ENV', true)).toBe('**/.env');
    expect(matches(['**/.env'], 'sub/.ENV', false)).toBeUndefined();
    expect(matches(['**/*.pem'], 'Keys/Server.PEM', true)).toBe('**/*.pem');
    // The policy turns it on from the config (or from the root's file system, probed).
    withConfig({ roots: ['src', 'docs'], case_insensitive: true, read_only: ['docs/**'] }, () => {
      const p = loadPolicy(ws);
      expect(p.caseInsensitive).toBe(true);
      writeFileSync(`${ws}/src/Server.PEM`, 'k\n');
      expect(() => checkAccess(p, 'src/Server.PEM', 'read')).toThrow(denied);
    });
    // Linux ext4/tmpfs is case-sensitive: probed as such.
    expect(loadPolicy(ws).caseInsensitive).toBe(false);
  });
});
