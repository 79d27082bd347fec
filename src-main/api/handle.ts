/**
 * The single dispatcher every door calls: validates input against the operation's
 * schema, runs it, and returns the output. Errors are FolioErrors (bad input
 * becomes invalid_input naming the fields).
 *
 * A guard that must look at the validated input before running (the agent guard
 * checks the path against the workspace policy) calls parseOpInput, then runOp
 * with the input it allows: the input is parsed once, the operation runs once.
 */
import * as z from 'zod';
import { FolioError } from '../engine/errors.ts';
import { withHomeExpanded } from './home-path.ts';
import { checkInputPaths } from './input-paths.ts';
import { onPlainPaths } from './compressed-paths.ts';
import { operations, type Actor, type CallContext, type OperationName, type OpInput, type OpOutput } from './operations.ts';

export { FolioError, isFolioError } from '../engine/errors.ts';
export type { Actor, CallContext, OperationName, OpInput, OpOutput } from './operations.ts';
export { operations, preloadReads } from './operations.ts';
export { withHomeExpanded } from './home-path.ts';

export function isOperationName(name: string): name is OperationName {
  return Object.hasOwn(operations, name);
}

/** `input` as the operation's schema parses it, or invalid_input naming the fields. */
export function parseOpInput<N extends OperationName>(name: N, input: unknown): OpInput<N> {
  const operation = operations[name];
  if (!operation) throw new FolioError('invalid_input', `unknown operation: ${String(name)}`, { operation: name });
  return withHomeExpanded(parseInputAs(operation.input, name, input)) as OpInput<N>;
}

/**
 * `input` parsed by `schema` (an operation's input, or an agent tool's own form of it); invalid_input naming the fields if it does not fit,
 * or if a file name in it is one no file can have (input-paths.ts).
 */
export function parseInputAs(schema: z.ZodType, name: string, input: unknown): unknown {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    throw new FolioError('invalid_input', `invalid input for ${name}: ${z.prettifyError(parsed.error)}`, {
      operation: name,
      issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  }
  checkInputPaths(name, parsed.data);
  return parsed.data;
}

/** Run the operation on input that parseOpInput already checked. */
export function runOp<N extends OperationName>(name: N, input: OpInput<N>, actor: Actor, ctx: CallContext = {}): Promise<OpOutput<N>> {
  // The table's entries differ in types; the schema already checked this input.
  const run = operations[name].run as (input: OpInput<N>, actor: Actor, ctx: CallContext) => Promise<OpOutput<N>>;
  // A compressed log runs on its plain file in the cache (compressed-paths.ts).
  return onPlainPaths(name, input, ctx, (i) => run(i, actor, ctx)) as Promise<OpOutput<N>>;
}

export async function handle<N extends OperationName>(name: N, input: unknown, actor: Actor, ctx: CallContext = {}): Promise<OpOutput<N>> {
  return runOp(name, parseOpInput(name, input), actor, ctx);
}
