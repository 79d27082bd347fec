/**
 * source and content_type on every read answer (the partial-read guideline's
 * fields), through the CLI and an MCP SDK client: the type judged from the name the
 * caller gave (an agent's read runs on a pinned /proc/self/fd path, which has none),
 * with the charset the text was decoded from. Remote values: conformance-read.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, connectStdio, type McpSession } from '../fixtures/mcp-client.ts';
import { PNG_1x1, tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-read-facts-');
const ws = tmp.path('ws');
let mcp: McpSession;

/** name → [bytes, extra CLI args, extra MCP args, content_type] */
const FILES: Record<string, [Buffer, string[], Record<string, unknown>, string]> = {
  'notes.md': [Buffer.from('# A\n\ntext\n'), [], {}, 'text/markdown; charset=utf-8'],
  'data.json': [Buffer.from('{"a":[1,2]}\n'), ['--json-path', '$.a'], { json_path: '$.a' }, 'application/json'],
  'lines.json': [Buffer.from('{"a":[1,2]}\n'), ['--lines', '1-1'], { ranges: [{ start: 1, end: 1 }] }, 'application/json'],
  'wide.txt': [Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('wide text\n', 'utf16le')]), [], {}, 'text/plain; charset=utf-16le'],
  'app.log.gz': [gzipSync('2024-05-01 INFO up\n'), [], {}, 'text/plain; charset=utf-8'],
  'table.csv': [Buffer.from('a,b\n1,2\n'), [], {}, 'text/csv; charset=utf-8'],
  // A legacy encoding as detected (the detector's verdict, whatever it is, is the charset named).
  'latin.txt': [Buffer.from('crème brûlée, déjà vu, naïve façade, où est le café ? très élevé\n'.repeat(20), 'latin1'), [], {}, 'text/plain; charset=ENCODING'],
  'pixel.png': [PNG_1x1, ['--allow-binary'], { allow_binary: true }, 'image/png'],
  README: [Buffer.from('plain\n'), [], {}, 'text/plain; charset=utf-8'],
};

beforeAll(async () => {
  mkdirSync(ws, { recursive: true });
  for (const [name, [bytes]] of Object.entries(FILES)) writeFileSync(join(ws, name), bytes);
  mcp = await connectStdio(ws, { cacheDir: tmp.path('cache') });
});
afterAll(async () => {
  await mcp?.close();
  tmp.cleanup();
});

describe('source and content_type of a read', () => {
  it.each(Object.entries(FILES))('folio read %s --json', (name, [, args, , type]) => {
    const r = spawnSync(process.execPath, [BIN, 'read', join(ws, name), ...args, '--json'], {
      encoding: 'utf8',
      env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') },
    });
    expect(r.status, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body).toMatchObject({ source: 'file', content_type: type.replace('ENCODING', body.encoding) });
  });

  it.each(Object.entries(FILES).filter(([name]) => name !== 'pixel.png'))('an agent reading %s over MCP gets them too', async (name, [, , args, type]) => {
    const r = await mcp.call('read', { path: name, ...args });
    expect(r.isError, r.text).toBe(false);
    expect(r.body).toMatchObject({ source: 'file', content_type: type.replace('ENCODING', r.body.encoding) });
    if (type.includes('ENCODING')) expect(r.body.encoding).toMatch(/^(windows|iso)-/);
  });
});
