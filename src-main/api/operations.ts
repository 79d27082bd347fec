/**
 * The operation table: one entry per operation, each a zod input/output schema,
 * a description (used verbatim by MCP tools, CLI help and API docs) and one run
 * function. Doors derive their routes, channels and tools from this table.
 */
import type { z } from 'zod';
import { FileInfo, FileInfoInput } from './schemas.ts';
import { fileInfo } from '../engine/file-info.ts';

export interface Actor {
  kind: 'human' | 'agent';
  name: string;
}

/** Per-call context a door may pass: progress of long work, and cancellation. */
export interface CallContext {
  onProgress?: (p: { bytesDone: number; totalBytes: number }) => void;
  signal?: AbortSignal;
}

export interface Operation<I extends z.ZodType, O extends z.ZodType> {
  input: I;
  output: O;
  description: string;
  run(input: z.infer<I>, actor: Actor, ctx: CallContext): Promise<z.infer<O>>;
}

function op<I extends z.ZodType, O extends z.ZodType>(o: Operation<I, O>): Operation<I, O> {
  return o;
}

export const operations = {
  file_info: op({
    input: FileInfoInput,
    output: FileInfo,
    description:
      'Size, line count, encoding, newline style, BOM, final newline, UTF-8 validity and binary verdict of a file, with its version. Cheap after the first call (the line index is cached).',
    run: (input, _actor, ctx) => fileInfo(input.path, ctx),
  }),
};

export type OperationName = keyof typeof operations;
export type OpInput<N extends OperationName> = z.infer<(typeof operations)[N]['input']>;
export type OpOutput<N extends OperationName> = z.infer<(typeof operations)[N]['output']>;
