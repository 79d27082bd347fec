import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prng, tempDir, writeLogFile } from '../fixtures/generate.ts';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const BIN = join(process.cwd(), 'bin/folio.mjs');
const folio = (args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') } });

const log = tmp.path('app.log');
writeLogFile(log, 400_000, 8);
const lines = readFileSync(log, 'utf8').split('\n');

describe('folio search', () => {
  it('--json prints {matches: [{line, byte_offset, text}], ...} and honours --max with a cursor', () => {
    const r = folio(['search', log, 'ERROR', '--max', '5', '--json']);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    const expected = lines.map((l, i) => [i + 1, l] as const).filter(([, l]) => l.includes('ERROR'));
    expect(out.matches.map((m: { line: number }) => m.line)).toEqual(expected.slice(0, 5).map(([n]) => n));
    expect(out.matches[0].text).toBe(expected[0]![1]);
    expect(out.truncated).toBe(true);
    const next = JSON.parse(folio(['search', log, 'ERROR', '--max', '5', '--start-byte', String(out.next_start_byte), '--json']).stdout);
    expect(next.matches[0].line).toBe(expected[5]![0]);
  });

  it('--count equals grep -c; human output is LINE:text like grep -n', () => {
    const grep = spawnSync('grep', ['-c', 'WARN', log], { encoding: 'utf8' }).stdout.trim();
    expect(folio(['search', log, 'WARN', '--count']).stdout.trim()).toBe(grep);
    const human = folio(['search', log, 'auth.*timeout', '--max', '3']).stdout.split('\n');
    const grepN = spawnSync('grep', ['-nE', 'auth.*timeout', log], { encoding: 'utf8' }).stdout.split('\n').slice(0, 3);
    expect(human.slice(0, 3)).toEqual(grepN);
    expect(human[3]).toMatch(/^-- 3 matching lines shown \(cap reached\); continue with --start-byte \d+$/);
  });

  it('a UTF-8 source concatenation with an embedded GIF is searched as UTF-8: --count equals grep -c for CJK and accents', () => {
    // Source files cat'ed together, one of them a GIF (NUL bytes, well past the sniffed head).
    const rand = prng(16);
    const files: Buffer[] = [];
    for (let f = 0; f < 40; f++) {
      const lines = Array.from({ length: 400 }, (_, i) => {
        if (rand() < 0.013) return `\t// 中文注释：读取文件的函数 ${i}`;
        if (rand() < 0.012) return `\tname = "José Müller" # ${i}`;
        return `\tdef handler_${f}_${i}(self, request, *args): return ${Math.floor(rand() * 1000)}`;
      });
      files.push(Buffer.from(lines.join('\n') + '\n'));
      if (f === 25)
        files.push(
          Buffer.concat([
            Buffer.from('GIF89a\x10\x00\x10\x00\xf7\x00\x00', 'latin1'),
            Buffer.from(Array.from({ length: 2000 }, () => Math.floor(rand() * 256))),
          ]),
        );
    }
    const file = tmp.path('concat.txt');
    writeFileSync(file, Buffer.concat(files));
    const grepC = (needle: string) => Number(spawnSync('grep', ['-a', '-c', '-F', needle, file], { encoding: 'utf8' }).stdout.trim());
    expect(grepC('中文')).toBeGreaterThan(100);
    const info = JSON.parse(folio(['info', file, '--json']).stdout);
    expect(info).toMatchObject({ encoding: 'utf-8', binary: { is_binary: false }, utf8: { valid: false } });
    expect(info.utf8.multibyte_chars).toBeGreaterThan(info.utf8.invalid_sequences);
    for (const needle of ['中文', 'é', 'ü', 'handler_3_']) {
      expect(folio(['search', file, needle, '--count']).stdout.trim(), needle).toBe(String(grepC(needle)));
    }
    const hit = JSON.parse(folio(['search', file, '中文', '--max', '1', '--json']).stdout).matches[0];
    expect(hit.text).toContain('中文注释：读取文件的函数');
  });

  it('a bad regex is a typed error (exit 1); a missing argument is a usage error (exit 2)', () => {
    const r = folio(['search', log, 'a(', '--json']);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).error.code).toBe('invalid_input');
    expect(folio(['search', log]).status).toBe(2);
    expect(folio(['search', tmp.path('missing'), 'x', '--json']).stdout).toContain('"not_found"');
  });
});
