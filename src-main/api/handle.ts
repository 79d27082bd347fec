/**
 * The single dispatcher every door calls: validates input against the operation's
 * schema, runs it, and returns the output. Errors are FolioErrors (bad input
 * becomes invalid_input naming the fields).
 */
import { z } from 'zod';
import { FolioError } from '../engine/errors.ts';
import { operations, type Actor, type CallContext, type OperationName, type OpInput, type OpOutput } from './operations.ts';

export { FolioError, isFolioError } from '../engine/errors.ts';
export type { Actor, CallContext, OperationName, OpInput, OpOutput } from './operations.ts';
export { operations } from './operations.ts';

export function isOperationName(name: string): name is OperationName {
  return Object.hasOwn(operations, name);
}

export async function handle<N extends OperationName>(
  name: N,
  input: unknown,
  actor: Actor,
  ctx: CallContext = {},
): Promise<OpOutput<N>> {
  const operation = operations[name];
  if (!operation) throw new FolioError('invalid_input', `unknown operation: ${String(name)}`, { operation: name });
  const parsed = operation.input.safeParse(input);
  if (!parsed.success) {
    throw new FolioError('invalid_input', `invalid input for ${name}: ${z.prettifyError(parsed.error)}`, {
      operation: name,
      issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  }
  // The table's entries differ in types; the schema above already checked this input.
  const run = operation.run as (input: OpInput<N>, actor: Actor, ctx: CallContext) => Promise<OpOutput<N>>;
  return run(parsed.data as OpInput<N>, actor, ctx);
}
