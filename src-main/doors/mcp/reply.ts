/**
 * A tool's answer as an MCP CallToolResult that never kills the client (issue 27):
 *
 * - A long `content` (a read's text) travels once. Small answers go as structuredContent
 *   and the same JSON as text (the MCP spec's backwards-compatible form). When
 *   `content` is longer than INLINE_CONTENT_CHARS, structuredContent and the first text
 *   block hold the answer without it plus `content_block: 1`, and the second text block
 *   holds the text itself, raw (no JSON escaping): a 7.6 MiB read was a 16.9 MB
 *   message before, the text in both blocks, and the SDK client dropped the connection.
 * - No reply is bigger on the wire than `maxChars` (policy caps.max_reply_chars,
 *   4 MiB by default, under the SDK client's 10 MiB and the buffers of the common
 *   clients): a bigger one is answered with `too_large` instead, saying the read to
 *   send (a page of the same file).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FolioError } from '../../api/error-payload.ts';

/** From this length a `content` string travels in its own text block, not in the JSON. */
export const INLINE_CONTENT_CHARS = 16 * 1024;
/** Characters of a page the too_large answer proposes to read instead. */
const PAGE_CHARS = 200_000;

/** The reply for `out`, the answer of tool `tool` called with `args`; too_large when it would exceed `maxChars` on the wire. */
export function replyOf(tool: string, args: Record<string, unknown>, out: Record<string, unknown>, maxChars: number): CallToolResult {
  const content = out.content;
  let reply: CallToolResult;
  if (typeof content === 'string' && content.length > INLINE_CONTENT_CHARS) {
    const { content: _text, ...rest } = out;
    const head = { ...rest, content_block: 1 };
    reply = {
      content: [
        { type: 'text', text: JSON.stringify(head) },
        { type: 'text', text: content },
      ],
      structuredContent: head,
    };
  } else {
    reply = { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
  }
  const size = JSON.stringify(reply).length;
  if (size > maxChars) throw tooLarge(tool, args, size, maxChars);
  return reply;
}

function tooLarge(tool: string, args: Record<string, unknown>, size: number, maxChars: number): FolioError {
  const path = typeof args.path === 'string' ? args.path : undefined;
  const read = tool === 'read' && path ? { path, page: 1, page_chars: Math.min(PAGE_CHARS, Math.floor(maxChars / 4)) } : undefined;
  return new FolioError('too_large', `the answer would be ${size} characters; replies are limited to ${maxChars} so the client does not drop them`, {
    reply_chars: size,
    max_reply_chars: maxChars,
    ...(read ? { read } : {}),
    hint: read
      ? 'read the file by pages (read below, then next_page), by line ranges, or search it'
      : 'ask for less: a narrower path or pattern, fewer lines, or a smaller max',
  });
}

/**
 * What a client makes of a reply of replyOf: the answer's JSON (the first text block),
 * with a long `content` put back from its own block. `text` is every block joined, as
 * a client that shows text blocks would show them. For tests and benchmarks, and
 * documented in docs/API.md for clients.
 */
export function answerOfResult(result: Record<string, unknown>): { text: string; body: unknown } {
  const blocks = (Array.isArray(result.content) ? result.content : []) as { type?: string; text?: string }[];
  const text = blocks.map((b) => b.text ?? '').join('');
  let body: unknown;
  try {
    body = JSON.parse(blocks[0]?.text ?? '');
  } catch {
    return { text, body: undefined };
  }
  const at = (body as { content_block?: unknown } | null)?.content_block;
  if (typeof at === 'number' && typeof blocks[at]?.text === 'string') {
    const { content_block: _at, ...rest } = body as Record<string, unknown>;
    body = { ...rest, content: blocks[at].text };
  }
  return { text, body };
}
