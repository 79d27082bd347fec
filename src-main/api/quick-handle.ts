/**
 * handle() for a process that runs one operation and exits (the CLI): input that
 * fits its operation's Spec (input-spec.ts: derived from the zod schema when the
 * CLI is built, scripts/build-cli.mjs) runs without loading zod or building the
 * schemas of the table; any other input, and any operation without a Spec, goes
 * through handle.ts, so an error names the fields exactly as zod does. Same
 * arguments, answers and errors as handle.ts.
 */
import type { Spec } from './input-spec.ts';
import { fitSpec } from './input-spec.ts';
import { withHomeExpanded } from './home-path.ts';
import { checkInputPaths } from './input-paths.ts';
import { onPlainPaths } from './compressed-paths.ts';
import type { Actor, CallContext, OperationName, OpOutput } from './operations.ts';
import { runs } from './runs.ts';

export { FolioError, isFolioError } from '../engine/errors.ts';
export type { Actor, CallContext, OperationName, OpInput, OpOutput } from './operations.ts';

/** Set by the CLI build (esbuild `define`); absent when the sources run (tsx): then every call goes through zod. */
declare const __FOLIO_INPUT_SPECS__: Partial<Record<keyof typeof runs, Spec>> | undefined;
const SPECS: Partial<Record<string, Spec>> = typeof __FOLIO_INPUT_SPECS__ === 'undefined' ? {} : __FOLIO_INPUT_SPECS__;

export async function handle<N extends OperationName>(name: N, input: unknown, actor: Actor, ctx: CallContext = {}): Promise<OpOutput<N>> {
  const spec = Object.hasOwn(SPECS, name) && Object.hasOwn(runs, name) ? SPECS[name] : undefined;
  const fitted = spec && fitSpec(spec, input);
  if (fitted) {
    checkInputPaths(name, fitted.data);
    const run = runs[name as keyof typeof runs] as (input: unknown, actor: Actor, ctx: CallContext) => Promise<OpOutput<N>>;
    return onPlainPaths(name, withHomeExpanded(fitted.data), ctx, (i) => run(i, actor, ctx)) as Promise<OpOutput<N>>;
  }
  return (await import('./handle.ts')).handle(name, input, actor, ctx);
}
