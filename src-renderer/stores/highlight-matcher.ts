/**
 * The page's side of workers/highlight-worker.ts: one worker, one request at a
 * time (a newer request stops a worker still busy with an older one, whose
 * answer is moot), and a budget per rule. A rule that runs past it has its worker terminated (the only way to stop
 * a running regex) and is named in the answer, so the store can turn it off.
 */
import type { HighlightRange } from '../model/highlight-rules.ts';
import type { MatchReply, MatchRequest } from '../workers/highlight-worker.ts';
import HighlightWorker from '../workers/highlight-worker.ts?worker';

/** How long one rule may run on one window before it is stopped. */
export const RULE_BUDGET_MS = 1_000;

export type MatchAnswer = { ranges: HighlightRange[]; slowRule: null } | { ranges: []; slowRule: number };

let worker: Worker | null = null;
let seq = 0;
/** The request the worker is busy with: a newer one stops it. */
let pending: { stop(): void } | null = null;

function stopWorker(w: Worker): void {
  w.terminate();
  if (worker === w) worker = null;
}

/** Every match of each source on `lines`; null when a newer request came first. */
export function matchHighlights(lines: string[], sources: string[]): Promise<MatchAnswer | null> {
  const mine = ++seq;
  pending?.stop();
  worker ??= new HighlightWorker();
  const w = worker;
  return new Promise((resolve) => {
    let started = 0;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const done = (answer: MatchAnswer | null) => {
      if (timer) clearTimeout(timer);
      w.removeEventListener('message', onMessage);
      w.removeEventListener('error', onError);
      if (pending === me) pending = null;
      resolve(answer);
    };
    const me = {
      stop() {
        stopWorker(w);
        done(null);
      },
    };
    pending = me;
    const arm = () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        stopWorker(w);
        done({ ranges: [], slowRule: started });
      }, RULE_BUDGET_MS);
    };
    const onMessage = (event: MessageEvent<MatchReply>) => {
      const reply = event.data;
      if (reply.seq !== mine) return;
      if ('started' in reply) {
        started = reply.started;
        arm();
        return;
      }
      done({ ranges: reply.ranges, slowRule: null });
    };
    // A worker that fails to load answers nothing: the request ends without marks.
    const onError = () => {
      w.removeEventListener('error', onError);
      stopWorker(w);
      done(null);
    };
    w.addEventListener('message', onMessage);
    w.addEventListener('error', onError);
    // The budget starts when the worker says it began a rule, not here: a new worker
    // (the first, or one after a stop) loads its script first, which took over the whole
    // budget on a loaded machine and turned the first rule off as "slow".
    w.postMessage({ seq: mine, lines, sources } satisfies MatchRequest);
  });
}
