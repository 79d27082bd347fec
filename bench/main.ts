/** Benchmark dispatcher: `npm run bench -- [index ...] [--size 2G] [--runs N]`; FOLIO_BENCH_SIZE sets the default size (a quick run: 256M). */
import { parseArgs } from 'node:util';
import { benchAddress, benchStreamedJson } from './address.bench.ts';
import { benchAgent } from './agent.bench.ts';
import { benchBackendsObj } from './backends-obj.bench.ts';
import { benchBackends } from './backends.bench.ts';
import { benchBackendSteps } from './backend-steps.bench.ts';
import { benchBounded } from './bounded.bench.ts';
import { benchCli, benchSearch } from './cli.bench.ts';
import { benchCompressed } from './compressed.bench.ts';
import { benchCrash } from './crash.bench.ts';
import { benchFindTyping } from './find-typing.bench.ts';
import { benchIndex } from './index.bench.ts';
import { benchJsonb } from './jsonb.bench.ts';
import { benchLineStep } from './line-step.bench.ts';
import { benchLog } from './log.bench.ts';
import { benchMarks } from './marks.bench.ts';
import { benchMcp } from './mcp.bench.ts';
import { benchMerge } from './merge.bench.ts';
import { benchRead } from './read.bench.ts';
import { benchQuery } from './query.bench.ts';
import { benchQueryStart } from './query-start.bench.ts';
import { benchReview } from './review.bench.ts';
import { benchSearchTree } from './search-tree.bench.ts';
import { benchStartup } from './startup.bench.ts';
import { benchUpsert } from './upsert.bench.ts';
import { parseSize } from './lib.ts';

export interface BenchOptions {
  size: number;
  runs: number;
}

const BENCHES: Record<string, (o: BenchOptions) => Promise<void>> = {
  index: benchIndex,
  read: benchRead,
  upsert: benchUpsert,
  mcp: benchMcp,
  address: benchAddress,
  json: benchStreamedJson,
  crash: benchCrash,
  agent: benchAgent,
  'search-tree': benchSearchTree,
  review: benchReview,
  cli: benchCli,
  search: benchSearch,
  'line-step': benchLineStep,
  log: benchLog,
  marks: benchMarks,
  'backends-obj': benchBackendsObj,
  backends: benchBackends,
  'backend-steps': benchBackendSteps,
  jsonb: benchJsonb,
  bounded: benchBounded,
  startup: benchStartup,
  merge: benchMerge,
  query: benchQuery,
  'query-start': benchQueryStart,
  'find-typing': benchFindTyping,
  compressed: benchCompressed,
};

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { size: { type: 'string', default: process.env.FOLIO_BENCH_SIZE ?? '2G' }, runs: { type: 'string', default: '3' } },
  });
  const names = positionals.length ? positionals : Object.keys(BENCHES);
  for (const name of names) {
    if (!BENCHES[name]) {
      process.stderr.write(`unknown benchmark: ${name} (have: ${Object.keys(BENCHES).join(', ')})\n`);
      return 2;
    }
  }
  const opts: BenchOptions = { size: parseSize(values.size!), runs: Number(values.runs) };
  for (const name of names) await BENCHES[name]!(opts);
  return 0;
}
