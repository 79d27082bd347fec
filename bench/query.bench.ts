/**
 * `npm run bench -- query [--size 1G] [--runs N]`: SQL over a log (the query
 * operation: SQLite, a virtual table streamed from the file) against awk
 * computing the same in the same run, and lnav's SQL when lnav is installed.
 * The log is test/fixtures/query-log.ts's (ISO stamps, a level, key=value pairs
 * or a JSON body, stack traces), generated once under bench/.data.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { queryLogs } from '../src-main/engine/search/log-query.ts';
import type { BenchOptions } from './main.ts';
import { DATA_DIR, fileSize, gbps, median, table, timeCommand, warmPageCache } from './lib.ts';
import { writeQueryLog } from '../test/fixtures/query-log.ts';

function queryLog(bytes: number): string {
  mkdirSync(DATA_DIR, { recursive: true });
  const file = join(DATA_DIR, `query-${bytes}.log`);
  if (!existsSync(file)) {
    process.stderr.write(`generating ${(bytes / 1024 ** 3).toFixed(2)} GiB query log at ${file} (once)...\n`);
    writeQueryLog(`${file}.tmp`, { bytes });
    renameSync(`${file}.tmp`, file);
  }
  return file;
}

const LEVEL_SQL = 'SELECT level, count(*) FROM log GROUP BY level';
const KEY_SQL = 'SELECT count(*), sum(dur_ms) FROM log WHERE status = 500';
const JSON_SQL = "SELECT count(*), sum(amount) FROM log WHERE user = 'u42' AND amount IS NOT NULL";
const AWK_LEVEL = '/^[0-9]/ { n[$2]++ } END { for (k in n) print k, n[k] }';
const AWK_KEY = '/^[0-9]/ && / status=500 / { match($0, /dur_ms=[0-9]+/); n++; s += substr($0, RSTART + 7, RLENGTH - 7) } END { print n, s }';

async function timeQuery(runs: number, file: string, sql: string): Promise<{ ms: number; rows: unknown[][] }> {
  const times: number[] = [];
  let rows: unknown[][] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    rows = (await queryLogs([file], sql, { timeoutMs: 3_600_000 })).rows;
    times.push(performance.now() - t);
  }
  return { ms: median(times), rows };
}

/** lnav's SQL over the file, or null when lnav is not installed (it keeps its config under a HOME of its own). */
function timeLnav(runs: number, file: string, sql: string): { ms: number; stdout: string } | null {
  if (spawnSync('lnav', ['-V']).status !== 0) return null;
  const home = join(DATA_DIR, 'lnav-home');
  mkdirSync(home, { recursive: true });
  const times: number[] = [];
  let stdout = '';
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = spawnSync('lnav', ['-n', '-c', `;${sql}`, '-c', ':write-csv-to -', file], { encoding: 'utf8', env: { ...process.env, HOME: home } });
    times.push(performance.now() - t);
    stdout = r.stdout;
  }
  return { ms: median(times), stdout };
}

export async function benchQuery(o: BenchOptions): Promise<void> {
  const file = queryLog(o.size);
  const size = fileSize(file);
  warmPageCache(file);
  const runs = o.runs;
  const level = await timeQuery(runs, file, LEVEL_SQL);
  const key = await timeQuery(runs, file, KEY_SQL);
  const json = await timeQuery(runs, file, JSON_SQL);
  const cli = timeCommand(Math.max(1, runs - 1), process.execPath, [join(process.cwd(), 'bin/folio.mjs'), 'query', file, LEVEL_SQL]);
  const awkLevel = timeCommand(runs, 'awk', [AWK_LEVEL, file]);
  const awkKey = timeCommand(runs, 'awk', [AWK_KEY, file]);
  const lnav = timeLnav(runs, file, 'SELECT log_level, count(*) FROM all_logs GROUP BY log_level');
  const ratio = (ms: number, base: number) => `${(ms / base).toFixed(2)}x`;
  process.stdout.write(`\n## query (${(size / 1024 ** 3).toFixed(2)} GiB, median of ${runs})\n\n`);
  process.stdout.write(
    table([
      ['measure', 'ms', 'throughput', 'vs baseline'],
      [`query: ${LEVEL_SQL}`, Math.round(level.ms), gbps(size, level.ms), ratio(level.ms, awkLevel.ms) + ' of awk'],
      ['folio query, same (whole process)', Math.round(cli.ms), gbps(size, cli.ms), ratio(cli.ms, awkLevel.ms) + ' of awk'],
      ['awk: stamped lines per level word', Math.round(awkLevel.ms), gbps(size, awkLevel.ms), 'baseline'],
      ...(lnav
        ? [['lnav -n: SELECT log_level, count(*) FROM all_logs …', Math.round(lnav.ms), gbps(size, lnav.ms), ratio(lnav.ms, awkLevel.ms) + ' of awk']]
        : []),
      [`query: ${KEY_SQL}`, Math.round(key.ms), gbps(size, key.ms), ratio(key.ms, awkKey.ms) + ' of awk'],
      ['awk: / status=500 /, sum of dur_ms', Math.round(awkKey.ms), gbps(size, awkKey.ms), 'baseline'],
      [`query: ${JSON_SQL}`, Math.round(json.ms), gbps(size, json.ms), ratio(json.ms, awkKey.ms) + ' of awk (key)'],
    ]) + '\n',
  );
  process.stdout.write(`answers: ${JSON.stringify(level.rows)} | awk ${awkLevel.stdout.trim().split('\n').join(', ')}\n`);
  process.stdout.write(`         ${JSON.stringify(key.rows)} | awk ${awkKey.stdout.trim()} | ${JSON.stringify(json.rows)}\n`);
  if (lnav) process.stdout.write(`lnav: ${lnav.stdout.trim().split('\n').join(', ')}\n`);
}
