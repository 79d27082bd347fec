/**
 * Next / previous matching line over a whole log (the viewer's e / E and h / H,
 * src-renderer/model/line-step.ts), through the operation table as the app's
 * calls go, against `grep` in the same run: a match nearby (one small search),
 * a rare line far away in either direction, and a pattern found nowhere (the
 * whole file, around the end). Baselines: `grep -m1` for the near case (it stops
 * at the first match) and `grep -c -F` over the whole file for the far ones
 * (reading the whole file once is what any answer to them costs).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { handle } from '../src-main/api/handle.ts';
import { closeSearchPools } from '../src-main/engine/search/search.ts';
import { stepToMatch, type StepSearch } from '../src-renderer/model/line-step.ts';
import type { BenchOptions } from './main.ts';
import { DATA_DIR, gbps, syntheticLog, table, timeCommand, timeMedian, warmPageCache } from './lib.ts';

const me = { kind: 'human' as const, name: 'bench' };

export async function benchLineStep(o: BenchOptions): Promise<void> {
  process.env.FOLIO_CACHE_DIR = join(DATA_DIR, 'cache');
  const file = syntheticLog(o.size);
  warmPageCache(file);
  const info = await handle('file_info', { path: file }, me);
  let calls = 0;
  const search: StepSearch = (input) => {
    calls++;
    return handle('search', { path: file, ...input }, me);
  };
  const reqOf = (line: string) => /"req":"([0-9a-f]+)"/.exec(line)![1]!;
  const firstReq = reqOf(execFileSync('head', ['-n', '1', file], { encoding: 'utf8' }));
  const lastReq = reqOf(execFileSync('tail', ['-n', '1', file], { encoding: 'utf8' }));
  const middle = Math.floor(info.lines / 2);
  process.stdout.write(
    `\n## line-step: next / previous matching line of a ${(info.size / 1024 ** 3).toFixed(2)} GiB log (${info.lines.toLocaleString('en-US')} lines), ` +
      `${o.runs} runs after a warm-up (page cache warm)\n\n`,
  );
  const grepAll = (pattern: string) => timeCommand(o.runs, 'grep', ['-c', '-F', pattern, file], [0, 1]);
  const cases: { name: string; pattern: string; fromLine: number; direction: 1 | -1; baseline: () => { ms: number }; baselineName: string }[] = [
    {
      name: 'next ERROR from the middle (near)',
      pattern: '\\bERROR\\b',
      fromLine: middle,
      direction: 1,
      baseline: () => timeCommand(o.runs, 'grep', ['-m1', '-n', '-w', 'ERROR', file]),
      baselineName: 'grep -m1 (from the top)',
    },
    {
      name: 'next: the last line, from line 1 (far)',
      pattern: `"req":"${lastReq}"`,
      fromLine: 1,
      direction: 1,
      baseline: () => grepAll(`"req":"${lastReq}"`),
      baselineName: 'grep -c -F (whole file)',
    },
    {
      name: 'previous: line 1, from the last line (far)',
      pattern: `"req":"${firstReq}"`,
      fromLine: info.lines,
      direction: -1,
      baseline: () => grepAll(`"req":"${firstReq}"`),
      baselineName: 'grep -c -F (whole file)',
    },
    {
      name: 'next: found nowhere (whole file, wraps)',
      pattern: 'no-such-token-anywhere',
      fromLine: middle,
      direction: 1,
      baseline: () => grepAll('no-such-token-anywhere'),
      baselineName: 'grep -c -F (whole file)',
    },
    {
      name: 'previous: found nowhere (whole file, wraps)',
      pattern: 'no-such-token-anywhere',
      fromLine: middle,
      direction: -1,
      baseline: () => grepAll('no-such-token-anywhere'),
      baselineName: 'grep -c -F (whole file)',
    },
  ];
  const rows: (string | number)[][] = [['case', 'baseline', 'baseline ms', 'step ms', 'ratio', 'searches', 'found line']];
  for (const c of cases) {
    const base = c.baseline();
    let found: Awaited<ReturnType<typeof stepToMatch>> = null;
    const ms = await timeMedian(o.runs, async () => {
      calls = 0;
      found = await stepToMatch(search, { pattern: c.pattern, fromLine: c.fromLine, direction: c.direction, totalLines: info.lines, fileBytes: info.size });
    });
    const at = found as Awaited<ReturnType<typeof stepToMatch>>;
    rows.push([
      c.name,
      c.baselineName,
      base.ms.toFixed(0),
      `${ms.toFixed(0)}${c.name.includes('nowhere') ? ` (${gbps(info.size, ms)})` : ''}`,
      `${(ms / base.ms).toFixed(2)}x`,
      calls,
      at ? `${at.lineNo.toLocaleString('en-US')}${at.wrapped ? ' (wrapped)' : ''}` : 'none',
    ]);
  }
  process.stdout.write(table(rows) + '\n');
  await closeSearchPools();
}
