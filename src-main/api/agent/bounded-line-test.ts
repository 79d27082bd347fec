/**
 * A regex test of one line, on the server's thread, that cannot hold it. Redaction
 * runs the agent's pattern again over a matched line once its secrets are masked
 * (redact-search.ts); the engine's search ran in workers under the search budget,
 * but this second run would not. A pattern V8's linear-time engine accepts, over a
 * line of at most CHEAP_LINE_CHARS, runs as it is (the same class the engine calls
 * provably cheap, search.ts cheapInThread); anything else runs inside a vm script
 * with a timeout, which V8 enforces by terminating the execution, a backtracking
 * regex included. The time is shared by the lines of one call: past it the call is
 * a `timeout`, not a silent guess.
 */
import { createContext, Script } from 'node:vm';
import { FolioError } from '../../engine/errors.ts';
import { isLinearTimeRegex } from '../../engine/search/regex-engine.mjs';

/** The longest line a linear-time pattern tests without a timeout (as the engine's 64 KiB in-thread limit). */
const CHEAP_LINE_CHARS = 64 * 1024;
/** The most time one call's re-tests may take on the server's thread. */
export const LINE_TEST_BUDGET_MS = 500;

const context = createContext({ re: undefined, text: undefined });
const testScript = new Script('re.test(text)');

/** Tests lines against `re` within one shared budget; `test` throws `timeout` once it is spent. */
export function boundedLineTester(re: RegExp, budgetMs = LINE_TEST_BUDGET_MS): (line: string) => boolean {
  const linear = isLinearTimeRegex(re.source, re.flags);
  const deadline = performance.now() + budgetMs;
  return (line) => {
    if (linear && line.length <= CHEAP_LINE_CHARS) return re.test(line);
    const left = Math.floor(deadline - performance.now());
    if (left < 1) throw timeoutOf(re, budgetMs);
    context.re = re;
    context.text = line;
    try {
      return testScript.runInContext(context, { timeout: left }) as boolean;
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw timeoutOf(re, budgetMs);
      throw err;
    } finally {
      context.re = undefined;
      context.text = undefined;
    }
  };
}

function timeoutOf(re: RegExp, budgetMs: number): FolioError {
  return new FolioError('timeout', `matching /${re.source}/${re.flags} against the redacted text of the matched lines ran out of its ${budgetMs} ms budget`, {
    pattern: re.source,
    flags: re.flags,
    budget_ms: budgetMs,
    hint: 'the regex backtracks too much on a line that holds a secret (backreferences, lookarounds, nested quantifiers): simplify it, or search a smaller range',
  });
}
