/**
 * A reply never kills the client (issue 27; doors/mcp/reply.ts), through `folio mcp`
 * and the real SDK client: a long read's text travels once, raw, in a block of its own
 * (before: a 7.6 MiB read was a 16.9 MB message, the text twice, and the SDK client
 * dropped the connection); no reply is bigger than the cap (policy
 * caps.max_reply_chars): a bigger one is too_large, saying the read to send instead,
 * and that read works; the connection stays up.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerOfResult } from '../../src-main/doors/mcp/reply.ts';
import { connectStdio, okBody as ok, type McpSession } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mcp-reply-size-');
const BIG_BYTES = Math.round(7.6 * 1024 * 1024);
let capped: McpSession; // the default cap (4 MiB)
let roomy: McpSession; // caps.max_reply_chars 12 MiB
let tight: McpSession; // caps.max_reply_chars 20,000

/** A log of ~`bytes` bytes: numbered lines with quotes and tabs (characters JSON escapes). */
function logText(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 1; size < bytes; i++) {
    const line = `2026-11-28T10:${String(i % 60).padStart(2, '0')}:00Z INFO\tworker "w${i % 7}" handled request ${i} in ${i % 97} ms\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join('').slice(0, bytes - 1) + '\n';
}

async function workspace(name: string, caps?: { max_reply_chars: number }): Promise<McpSession> {
  const ws = tmp.path(name);
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'big.log'), logText(BIG_BYTES));
  writeFileSync(join(ws, 'mid.log'), logText(100 * 1024));
  writeFileSync(join(ws, 'small.txt'), 'one\ntwo\n');
  if (caps) writeFileSync(join(ws, 'folio.config.json'), JSON.stringify({ caps }));
  return connectStdio(ws, { cacheDir: tmp.path(`cache-${name}`), clientName: `reply-${name}` });
}

beforeAll(async () => {
  [capped, roomy, tight] = await Promise.all([
    workspace('capped'),
    workspace('roomy', { max_reply_chars: 12 * 1024 * 1024 }),
    workspace('tight', { max_reply_chars: 20_000 }),
  ]);
});
afterAll(async () => {
  await Promise.all([capped?.close(), roomy?.close(), tight?.close()]);
  tmp.cleanup();
});

describe('a long text travels once', () => {
  it('a 7.6 MiB full read arrives whole, as the file, in a message about its size (not twice it)', async () => {
    const file = readFileSync(join(tmp.path('roomy'), 'big.log'), 'utf8');
    const result = await roomy.client.callTool({ name: 'read', arguments: { path: 'big.log', full: true } });
    expect(result.isError).not.toBe(true);
    const wire = JSON.stringify(result).length;
    expect(wire, 'characters on the wire per character of the file').toBeLessThan(file.length * 1.15);
    const { body } = answerOfResult(result);
    expect((body as { content: string }).content === file, 'the text is the file').toBe(true);
    expect(result.structuredContent).toMatchObject({ content_block: 1, mode: 'full', end_byte: BIG_BYTES });
    expect(result.structuredContent).not.toHaveProperty('content');
    // The connection is still up.
    expect(ok(await roomy.call('read', { path: 'small.txt' })).content).toBe('one\ntwo\n');
  });

  it('a 100 KiB read: the text in block 1, raw; structuredContent validates against the outputSchema (the SDK client checks)', async () => {
    const result = await capped.client.callTool({ name: 'read', arguments: { path: 'mid.log', full: true } });
    const blocks = result.content as { text: string }[];
    expect(blocks).toHaveLength(2);
    expect(blocks[1]!.text).toBe(readFileSync(join(tmp.path('capped'), 'mid.log'), 'utf8'));
    expect(JSON.parse(blocks[0]!.text)).toEqual(result.structuredContent);
  });

  it('a small answer is the same JSON in text and structuredContent, as before', async () => {
    const result = await capped.client.callTool({ name: 'read', arguments: { path: 'small.txt' } });
    const blocks = result.content as { text: string }[];
    expect(blocks).toHaveLength(1);
    expect(JSON.parse(blocks[0]!.text)).toEqual(result.structuredContent);
    expect(result.structuredContent).toMatchObject({ content: 'one\ntwo\n' });
  });
});

describe('no reply over the cap', () => {
  it('a read over the default 4 MiB cap is too_large with the read to send; that read works', async () => {
    const r = await capped.call('read', { path: 'big.log', full: true });
    expect(r.isError).toBe(true);
    expect(r.body.error).toMatchObject({ code: 'too_large', max_reply_chars: 4 * 1024 * 1024, read: { path: 'big.log', page: 1, page_chars: 200_000 } });
    expect(r.text.length).toBeLessThan(2000);
    const page = ok(await capped.call('read', r.body.error.read));
    expect(page.content.length).toBeGreaterThan(100_000);
    expect(readFileSync(join(tmp.path('capped'), 'big.log'), 'utf8').startsWith(page.content)).toBe(true);
  });

  it('a search whose answer is over a tight cap is too_large with a hint, and a narrower one answers', async () => {
    const r = await tight.call('search', { path: 'mid.log', pattern: 'handled', max: 1000 });
    expect(r.isError).toBe(true);
    expect(r.body.error).toMatchObject({ code: 'too_large', max_reply_chars: 20_000 });
    expect(r.body.error.hint).toMatch(/ask for less/);
    expect(r.body.error.read).toBeUndefined();
    expect(ok(await tight.call('search', { path: 'mid.log', pattern: 'handled', max: 5 })).matches).toHaveLength(5);
  });
});
