/** Which read mode a ReadInput asks for: exactly one, or page 1 when none. */
import { FolioError } from '../engine/errors.ts';
import type { ReadOptions, ReadRequest } from '../engine/read/read.ts';
import type { ReadInput } from './schemas.ts';

export function toReadRequest(input: ReadInput): { req: ReadRequest; opts: ReadOptions } {
  const modes: ReadRequest[] = [];
  if (input.ranges) modes.push({ mode: 'lines', ranges: input.ranges });
  if (input.offset !== undefined || input.limit !== undefined) {
    const offset = input.offset ?? 1;
    const limit = input.limit ?? 100;
    if (limit < 1) throw new FolioError('invalid_range', `limit must be >= 1, got ${limit}`, { limit });
    modes.push({ mode: 'lines', ranges: [{ start: offset, end: offset + limit - 1 }] });
  }
  if (input.end_byte !== undefined) {
    if (input.max_bytes !== undefined) throw new FolioError('invalid_input', 'give end_byte (exact range) or max_bytes (window), not both', {});
    modes.push({ mode: 'exact', startByte: input.start_byte ?? 0, endByte: input.end_byte });
  } else if (input.start_byte !== undefined || input.max_bytes !== undefined) {
    modes.push({ mode: 'bytes', startByte: input.start_byte ?? 0, maxBytes: input.max_bytes });
  }
  if (input.page !== undefined || input.page_chars !== undefined) modes.push({ mode: 'page', page: input.page ?? 1, pageChars: input.page_chars });
  if (input.head !== undefined) modes.push({ mode: 'head', lines: input.head });
  if (input.tail !== undefined) modes.push({ mode: 'tail', lines: input.tail });
  if (input.full) modes.push({ mode: 'full' });
  if (modes.length > 1) {
    throw new FolioError('invalid_input', `give one read mode, got ${modes.map((m) => m.mode).join(' + ')}`, {
      modes: modes.map((m) => m.mode),
    });
  }
  return {
    req: modes[0] ?? { mode: 'page', page: 1 },
    opts: { hashlines: input.hashlines, invalidUtf8: input.invalid_utf8, allowBinary: input.allow_binary, encoding: input.encoding },
  };
}
