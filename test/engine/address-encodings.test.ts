/** Sections, JSON paths and tokens address UTF-8 files; other encodings are refused with encoding_mismatch, the file untouched. */
import { readFileSync, writeFileSync } from 'node:fs';
import iconv from 'iconv-lite';
import { afterAll, describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';

const tmp = engineTempDir();
afterAll(() => tmp.cleanup());
const actor = { kind: 'agent', name: 'test' } as const;
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'no error',
    (e: { code?: string; details?: { encoding?: string } }) => `${e.code}:${e.details?.encoding}`,
  );

describe('addressing by meaning needs UTF-8', () => {
  it('a UTF-16 markdown file: outline, section read and section upsert are encoding_mismatch; line reads work', async () => {
    const p = tmp.path('wide.md');
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('# Title\n\nText é\n\n## Install\n\nrun it\n', 'utf16le')]);
    writeFileSync(p, bytes);
    expect(await codeOf(handle('outline', { path: p }, actor))).toBe('encoding_mismatch:utf-16le');
    expect(await codeOf(handle('read', { path: p, section: 'Install' }, actor))).toBe('encoding_mismatch:utf-16le');
    expect(await codeOf(handle('read', { path: p, tokenizer: 'o200k_base', token_start: 0, token_end: 5 }, actor))).toBe('encoding_mismatch:utf-16le');
    const { version } = await handle('read', { path: p, ranges: [{ start: 5, end: 5 }] }, actor);
    expect(
      await codeOf(
        handle('upsert', { path: p, target: { section: { path: 'Install', position: 'append' } }, content: 'more\n', if_match: version.etag }, actor),
      ),
    ).toBe('encoding_mismatch:utf-16le');
    expect(readFileSync(p).equals(bytes)).toBe(true);
    expect((await handle('read', { path: p, ranges: [{ start: 5, end: 5 }] }, actor)).content).toBe('## Install\n');
  });

  it('a windows-1252 JSON file: a JSONPath read is encoding_mismatch naming the encoding', async () => {
    const p = tmp.path('legacy.json');
    const names = Array.from({ length: 40 }, (_, i) => `"Françoise Müller-Lefèvre ${i}, café crème à la carte, déjà vu"`);
    const bytes = iconv.encode(`{"names": [${names.join(', ')}]}\n`, 'windows-1252');
    writeFileSync(p, bytes);
    const info = await handle('file_info', { path: p }, actor);
    expect(info.encoding).toMatch(/^(windows-125\d|iso-8859-\d+)$/);
    expect(await codeOf(handle('read', { path: p, json_path: '$.names[0]' }, actor))).toBe(`encoding_mismatch:${info.encoding}`);
    expect(readFileSync(p).equals(bytes)).toBe(true);
  });
});
