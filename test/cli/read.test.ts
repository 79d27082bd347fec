import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir, writeLogFile } from '../fixtures/generate.ts';

const tmp = tempDir();
chmodSync(tmp.dir, 0o755);
afterAll(() => tmp.cleanup());
const BIN = join(process.cwd(), 'bin/folio.mjs');

function folio(args: string[], opts: { uid?: number; input?: string } = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') },
    ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.uid } : {}),
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const log = tmp.path('app.log');
const { lines } = writeLogFile(log, 600_000, 4);
const buf = readFileSync(log);
const allLines = buf.toString('utf8').split(/(?<=\n)/);

describe('folio read', () => {
  it('--json: several ranges are each in ranges[i].content (each text sent once), with the etag', () => {
    const r = folio(['read', log, '--lines', '10-20,40-50', '--json']);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.content).toBe('');
    expect(out.ranges.map((x: { content: string }) => x.content)).toEqual([allLines.slice(9, 20).join(''), allLines.slice(39, 50).join('')]);
    expect(out.version.etag).toMatch(/^[\w-]{20}$/);
  });

  it('--bytes START+MAX gives next_start_byte; --page gives next_page; --range gives the adjustments', () => {
    const w = JSON.parse(folio(['read', log, '--bytes', '1000+5000', '--json']).stdout);
    expect(w.start_byte).toBeLessThanOrEqual(1000);
    expect(w.next_start_byte).toBe(w.end_byte);
    expect(buf.subarray(w.start_byte, w.end_byte).toString()).toBe(w.content);
    const p = JSON.parse(folio(['read', log, '--page', '2', '--page-chars', '10000', '--json']).stdout);
    expect(p).toMatchObject({ page: 2, next_page: 3, total_lines: lines });
    const x = JSON.parse(folio(['read', log, '--range', '100-200', '--json']).stdout);
    expect(x).toMatchObject({ requested_range: { start_byte: 100, end_byte: 200 }, file_size: buf.length });
  });

  it('human output starts with the header: path, range, total', () => {
    const r = folio(['read', log, '--lines', '100-200']);
    expect(r.status).toBe(0);
    const [sep, path, range, total] = r.stdout.split('\n');
    expect(sep).toBe('---');
    expect(path).toBe(`path: ${log}`);
    const start = Buffer.byteLength(allLines.slice(0, 99).join(''));
    const end = Buffer.byteLength(allLines.slice(0, 200).join(''));
    expect(range).toBe(`range: lines 100-200 (bytes ${start.toLocaleString('en-US')}-${end.toLocaleString('en-US')})`);
    expect(total).toMatch(new RegExp(`^total: ${lines.toLocaleString('en-US')} lines, \\d+\\.\\d KiB$`));
    expect(r.stdout.endsWith(allLines.slice(99, 200).join(''))).toBe(true);
  });

  it('the header names an encoding other than UTF-8 (a UTF-16LE file with a BOM); UTF-8 goes unsaid', () => {
    const wide = tmp.path('wide.txt');
    writeFileSync(wide, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('première ligne\nzweite Zeile\n', 'utf16le')]));
    const r = folio(['read', wide, '--lines', '2-2']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('\nencoding: utf-16le (BOM)\n');
    expect(r.stdout.endsWith('zweite Zeile\n')).toBe(true);
    expect(folio(['read', log, '--lines', '1-1']).stdout).not.toContain('encoding:');
  });

  it('--head, --tail and --hashlines', () => {
    expect(JSON.parse(folio(['read', log, '--head', '3', '--json']).stdout).content).toBe(allLines.slice(0, 3).join(''));
    expect(JSON.parse(folio(['read', log, '--tail', '2', '--json']).stdout).content).toBe(allLines.slice(-2).join(''));
    const h = JSON.parse(folio(['read', log, '--lines', '5-6', '--hashlines', '--json']).stdout).content as string;
    expect(h.split('\n')[0]).toMatch(/^5#[0-9a-f]{3}\|/);
  });

  it('typed errors exit 1 with one JSON object; usage errors exit 2', () => {
    const bad = folio(['read', log, '--range', '5-3', '--json']);
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stdout).error).toMatchObject({ code: 'invalid_range', start_byte: 5, end_byte: 3 });
    const oob = folio(['read', log, '--lines', `${lines + 5}-${lines + 6}`]);
    expect(oob.status).toBe(1);
    expect(oob.stderr).toMatch(/^folio: out_of_bounds: /);
    expect(folio(['read', log, '--lines', 'abc']).status).toBe(2);
    expect(folio(['read', log, '--lines', '1-2', '--tail', '1']).status).toBe(2);
    expect(folio(['read']).status).toBe(2);
  });

  it('permission_denied for a file the user cannot read', () => {
    const secret = tmp.path('secret.log');
    writeFileSync(secret, 'x\n');
    chmodSync(secret, 0o600);
    if (process.getuid?.() !== 0) return;
    const r = folio(['read', secret, '--head', '1', '--json'], { uid: 65534 });
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).error.code).toBe('permission_denied');
  });
});
