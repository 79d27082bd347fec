import { writeFileSync } from 'node:fs';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { createAgentSession, runAgentTool } from '../../src-main/api/agent/session.ts';
import { handle } from '../../src-main/api/handle.ts';
import { fileInfo } from '../../src-main/engine/read/file-info.ts';
import { FileInfo } from '../../src-main/api/schemas.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { PNG_1x1 } from '../fixtures/generate.ts';
import { SNAKE_CASE, keysOf } from './wire-keys.ts';

const tmp = engineTempDir();
const HUMAN = { kind: 'human', name: 'test' } as const;

describe('the file_info answer on the wire', () => {
  const files: [string, Buffer | string][] = [
    ['text.txt', 'one\ntwo\n'],
    ['crlf.txt', 'one\r\ntwo'],
    [
      'legacy.txt',
      iconv.encode(Array.from({ length: 40 }, (_, i) => `Françoise Müller-Lefèvre ${i}, café crème à la carte, déjà vu\n`).join(''), 'windows-1252'),
    ],
    ['latin1.txt', Buffer.from('caf\xe9\n', 'latin1')],
    ['image.png', PNG_1x1],
    ['wide.txt', Buffer.from([0xff, 0xfe, 0x68, 0x00, 0x0a, 0x00])],
  ];
  for (const [name, content] of files) writeFileSync(tmp.path(name), content);

  it('uses snake_case names only (version keeps its own), and every answer parses as FileInfo', async () => {
    for (const [name] of files) {
      const r = await handle('file_info', { path: tmp.path(name) }, HUMAN);
      expect(FileInfo.parse(r)).toEqual(r);
      for (const k of keysOf(r)) expect(k, `${k} in the file_info of ${name}`).toMatch(SNAKE_CASE);
    }
  });

  it('maps the engine result field by field: newlines, encodings, validity, binary verdict, index', async () => {
    expect(await handle('file_info', { path: tmp.path('crlf.txt') }, HUMAN)).toMatchObject({
      lines: 2,
      newlines: 1,
      newline_style: 'crlf',
      final_newline: false,
      bom: false,
    });
    const legacy = await handle('file_info', { path: tmp.path('legacy.txt') }, HUMAN);
    expect(legacy.encoding).toMatch(/^(windows-125\d|iso-8859-\d+)$/);
    expect(legacy.encoding_confidence).toBeGreaterThan(0);
    expect(await handle('file_info', { path: tmp.path('latin1.txt') }, HUMAN)).toMatchObject({ utf8: { valid: false, first_invalid_offset: 3 } });
    expect(await handle('file_info', { path: tmp.path('image.png') }, HUMAN)).toMatchObject({ binary: { is_binary: true, type: 'image/png', ext: 'png' } });
    const text = await handle('file_info', { path: tmp.path('text.txt') }, HUMAN);
    expect(text).toMatchObject({ newline_style: 'lf', final_newline: true, utf8: { valid: true, first_invalid_offset: null }, binary: { is_binary: false } });
    expect(text).not.toHaveProperty('encoding_confidence');
    const engine = await fileInfo(tmp.path('text.txt'));
    expect(text.index).toEqual({
      memory_bytes: engine.index.memoryBytes,
      blocks: engine.index.blocks,
      build_ms: expect.any(Number),
      from_cache: engine.index.fromCache,
    });
  });

  it('reaches agents with the same names through the agent guard', async () => {
    const answer = await runAgentTool(createAgentSession(tmp.dir, 'wire-test'), 'file_info', { path: 'crlf.txt' });
    expect(answer).toMatchObject({ newline_style: 'crlf', final_newline: false, binary: { is_binary: false } });
    for (const k of keysOf(answer)) expect(k).toMatch(SNAKE_CASE);
  });
});
