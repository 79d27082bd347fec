import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PNG_1x1, tempDir, writeLogFile } from '../fixtures/generate.ts';

const tmp = tempDir();
chmodSync(tmp.dir, 0o755);
afterAll(() => tmp.cleanup());

const BIN = join(process.cwd(), 'bin/folio.mjs');

function folio(args: string[], opts: { uid?: number } = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') },
    ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.uid } : {}),
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function infoJson(file: string) {
  const r = folio(['info', file, '--json']);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const lines = r.stdout.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!);
}

describe('folio info', () => {
  it('describes a generated log: lines match wc -l, utf-8, lf, final newline, text', () => {
    const file = tmp.path('app.log');
    const { size, lines } = writeLogFile(file, 3 * 1024 * 1024, 2);
    const info = infoJson(file);
    expect(info).toMatchObject({
      path: file,
      size,
      lines,
      newlines: lines,
      encoding: 'utf-8',
      bom: false,
      newline_style: 'lf',
      final_newline: true,
      utf8: { valid: true, first_invalid_offset: null },
      binary: { is_binary: false },
    });
    expect(info.version.etag).toMatch(/^[\w-]{20}$/);
    expect(info.index.memory_bytes).toBeLessThanOrEqual(Math.ceil(size / 16384));
  });

  it('is right on hand-made edge files', () => {
    const cases: [string, Buffer | string, Record<string, unknown>][] = [
      ['empty', '', { size: 0, lines: 0, newline_style: 'none', final_newline: false, encoding: 'utf-8' }],
      ['no-final', 'a\nb', { lines: 2, newlines: 1, final_newline: false, newline_style: 'lf' }],
      ['crlf', 'a\r\nb\r\n', { lines: 2, newline_style: 'crlf', final_newline: true }],
      ['mixed', 'a\r\nb\n', { lines: 2, newline_style: 'mixed' }],
      ['bom', Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69, 0x0a]), { bom: true, encoding: 'utf-8', lines: 1 }],
      ['latin1', Buffer.from('caf\xe9\n', 'latin1'), { encoding: 'unknown', utf8: { valid: false, first_invalid_offset: 3 } }],
      ['png', PNG_1x1, { encoding: 'binary', binary: { is_binary: true, type: 'image/png', ext: 'png' } }],
      ['nul', Buffer.from('abc\0def\n'), { encoding: 'binary', binary: { is_binary: true, type: null } }],
      ['utf16', Buffer.from([0xff, 0xfe, 0x68, 0x00, 0x0a, 0x00]), { encoding: 'utf-16le', bom: true, binary: { is_binary: false } }],
    ];
    for (const [name, content, expected] of cases) {
      const file = tmp.path(name);
      writeFileSync(file, content);
      expect(infoJson(file), name).toMatchObject(expected);
    }
  });

  it('prints a human summary by default', () => {
    const file = tmp.path('human.txt');
    writeFileSync(file, 'héllo\nworld\n');
    const r = folio(['info', file]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^path:\s+.*human\.txt$/m);
    expect(r.stdout).toMatch(/^lines:\s+2 \(2 newlines\)$/m);
    expect(r.stdout).toMatch(/^encoding:\s+utf-8$/m);
    expect(r.stdout).toMatch(/^utf-8:\s+valid, 1 multi-byte character$/m);
    expect(r.stdout).toMatch(/^newline style:\s+lf \(2 LF, 0 CRLF, 0 lone CR\)$/m);
  });

  it('a typed error exits 1: one JSON object with --json, one stderr line without', () => {
    const missing = tmp.path('missing.txt');
    const j = folio(['info', missing, '--json']);
    expect(j.status).toBe(1);
    expect(JSON.parse(j.stdout)).toEqual({ error: { code: 'not_found', message: expect.stringContaining('missing.txt'), path: missing } });
    const h = folio(['info', missing]);
    expect(h.status).toBe(1);
    expect(h.stdout).toBe('');
    expect(h.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(h.stderr).toMatch(/not_found/);
    expect(folio(['info', tmp.dir, '--json'])).toMatchObject({ status: 1, stdout: expect.stringContaining('"is_directory"') });
    expect(folio(['info', '/dev/null', '--json'])).toMatchObject({ status: 1, stdout: expect.stringContaining('"not_regular_file"') });
  });

  it('permission_denied for a file the user cannot read', () => {
    const file = tmp.path('secret.txt');
    writeFileSync(file, 'top secret\n');
    chmodSync(file, 0o600);
    if (process.getuid?.() !== 0) {
      chmodSync(file, 0o000);
      expect(folio(['info', file, '--json']).stdout).toContain('"permission_denied"');
      return;
    }
    // Root reads everything: run the CLI as nobody.
    const r = folio(['info', file, '--json'], { uid: 65534 });
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).error.code).toBe('permission_denied');
    expect(readFileSync(file, 'utf8')).toBe('top secret\n');
  });

  it('a usage error exits 2', () => {
    expect(folio(['info']).status).toBe(2);
    expect(folio(['info', 'a', '--bogus']).status).toBe(2);
    expect(folio(['no-such-command']).status).toBe(2);
  });
});
