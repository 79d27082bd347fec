import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { appendAudit, readAudit } from '../../src-main/api/agent/audit.ts';
import { checkAccess, loadPolicy, reviewPolicyFor } from '../../src-main/api/agent/policy.ts';
import { redact, redactedLinesIn } from '../../src-main/api/agent/redact.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const ws = tmp.path('ws');
mkdirSync(`${ws}/src`, { recursive: true });
mkdirSync(`${ws}/vendor`, { recursive: true });
mkdirSync(`${ws}/.git`, { recursive: true });
mkdirSync(`${ws}/logs`, { recursive: true });
for (const f of ['src/a.ts', 'vendor/lib.js', '.env', '.env.local', 'key.pem', '.git/config', 'logs/app.log', 'src/id_rsa']) writeFileSync(`${ws}/${f}`, 'x\n');
writeFileSync(tmp.path('outside.txt'), 'secret\n');
symlinkSync(tmp.path('outside.txt'), `${ws}/src/escape.txt`);
symlinkSync(`${ws}/src/a.ts`, `${ws}/src/inside-link.ts`);
writeFileSync(
  `${ws}/folio.config.json`,
  JSON.stringify({
    read_only: ['vendor/**'],
    review: [
      { glob: 'logs/**', policy: 'auto' },
      { glob: 'src/generated/**', policy: 'deny' },
    ],
  }),
);

describe('workspace policy', () => {
  const policy = loadPolicy(ws);

  it('allows files inside the roots, following symlinks that stay inside', () => {
    expect(checkAccess(policy, 'src/a.ts', 'write')).toBe(`${policy.root}/src/a.ts`);
    expect(checkAccess(policy, 'src/inside-link.ts', 'read')).toBe(`${policy.root}/src/a.ts`);
  });

  it('refuses traversal, symlinks leaving the roots, and device files with permission_denied', () => {
    expect(() => checkAccess(policy, '../outside.txt', 'read')).toThrow(expect.objectContaining({ code: 'permission_denied' }));
    expect(() => checkAccess(policy, 'src/../../outside.txt', 'read')).toThrow(expect.objectContaining({ code: 'permission_denied' }));
    expect(() => checkAccess(policy, 'src/escape.txt', 'read')).toThrow(
      expect.objectContaining({ code: 'permission_denied', details: expect.objectContaining({ resolved: tmp.path('outside.txt') }) }),
    );
    expect(() => checkAccess(policy, '/etc/hostname', 'read')).toThrow(expect.objectContaining({ code: 'permission_denied' }));
    const devPolicy = loadPolicy('/dev');
    expect(() => checkAccess(devPolicy, 'null', 'read')).toThrow(expect.objectContaining({ code: 'permission_denied' }));
    expect(() => checkAccess(policy, 'src/missing.ts', 'read')).toThrow(expect.objectContaining({ code: 'not_found' }));
  });

  it('denies .env*, *.pem, id_rsa* and .git internals by default, and read-only globs for writes', () => {
    for (const f of ['.env', '.env.local', 'key.pem', '.git/config', 'src/id_rsa']) {
      expect(() => checkAccess(policy, f, 'read'), f).toThrow(expect.objectContaining({ code: 'permission_denied' }));
    }
    expect(checkAccess(policy, 'vendor/lib.js', 'read')).toBe(`${policy.root}/vendor/lib.js`);
    expect(() => checkAccess(policy, 'vendor/lib.js', 'write')).toThrow(
      expect.objectContaining({ code: 'permission_denied', details: expect.objectContaining({ rule: 'vendor/**' }) }),
    );
  });

  it('review policy per glob: first match, default review; overrides win', () => {
    expect(reviewPolicyFor(policy, `${policy.root}/logs/app.log`)).toBe('auto');
    expect(reviewPolicyFor(policy, `${policy.root}/src/generated/x.ts`)).toBe('deny');
    expect(reviewPolicyFor(policy, `${policy.root}/src/a.ts`)).toBe('review');
    expect(reviewPolicyFor(loadPolicy(ws, { review: 'auto' }), `${policy.root}/src/a.ts`)).toBe('auto');
  });

  it('a broken folio.config.json is a clear invalid_input', () => {
    const bad = tmp.path('bad');
    mkdirSync(bad);
    writeFileSync(`${bad}/folio.config.json`, '{ nope');
    expect(() => loadPolicy(bad)).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  });
});

describe('redaction', () => {
  it('replaces private keys, cloud keys, tokens and SECRET= assignments, and counts them', () => {
    const text = [
      'AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE',
      'Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345',
      'db_password = "hunter2"',
      '-----BEGIN RSA PRIVATE KEY-----',
      'MIIEowIBAAKCAQEA',
      '-----END RSA PRIVATE KEY-----',
      'token ghp_' + 'a'.repeat(36),
      'nothing to see here',
    ].join('\n');
    const r = redact(text);
    expect(r.text).not.toMatch(/AKIAIOSFODNN7EXAMPLE|hunter2|MIIEowIBAAKCAQEA|abcdefghijklmnop|ghp_a/);
    expect(r.text).toContain('db_password = [REDACTED:secret_assignment]');
    expect(r.text).toContain('[REDACTED:private_key]');
    expect(r.text).toContain('nothing to see here');
    expect(r.count).toBe(5);
    expect(redactedLinesIn(text, 10)).toEqual([10, 11, 12, 13, 14, 15, 16]);
    expect(redact('plain text\n').count).toBe(0);
  });
});

describe('audit log', () => {
  it('appends JSON lines, filters by path and time, and rotates by size', () => {
    const root = tmp.path('audit-ws');
    mkdirSync(root);
    for (let i = 0; i < 30; i++) {
      appendAudit(root, { actor: { kind: 'agent', name: 'claude' }, op: 'read', path: i % 2 ? '/a' : '/b', outcome: 'ok', bytes_read: i }, 1000);
    }
    const all = readAudit(root);
    expect(all.length).toBeGreaterThan(10); // older generations beyond the kept ones are dropped
    expect(all.map((e) => e.bytes_read)).toEqual([...all.map((e) => e.bytes_read)].sort((a, b) => a! - b!));
    expect(all.at(-1)!.bytes_read).toBe(29);
    expect(readAudit(root, { path: '/a' }).every((e) => e.path === '/a')).toBe(true);
    expect(readAudit(root, { since: Date.now() + 60_000 })).toEqual([]);
  });
});
