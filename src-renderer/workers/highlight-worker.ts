/**
 * Matches highlight rules on a window's lines off the main thread. The browser's
 * regex engine backtracks (a rule like `(a+)+$` that V8's linear-time engine
 * accepts can still run for hours in a page), so the page never runs a rule
 * itself: it asks this worker, which says which rule it starts, and terminates
 * the worker when one runs past its budget (stores/highlight-matcher.ts).
 */
import { appendRuleMatches, type HighlightRange } from '../model/highlight-rules.ts';

export interface MatchRequest {
  seq: number;
  lines: string[];
  sources: string[];
}
export type MatchReply = { seq: number; started: number } | { seq: number; ranges: HighlightRange[] };

self.onmessage = (event: MessageEvent<MatchRequest>) => {
  const { seq, lines, sources } = event.data;
  const ranges: HighlightRange[] = [];
  sources.forEach((source, rule) => {
    self.postMessage({ seq, started: rule } satisfies MatchReply);
    appendRuleMatches(ranges, lines, source, rule);
  });
  self.postMessage({ seq, ranges } satisfies MatchReply);
};
