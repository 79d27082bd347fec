/**
 * `folio query` as a child process on generated logs: counts by level, a WHERE on
 * a key=value key, on a JSON body's key, a time range and several files at once
 * equal what awk and jq compute from the same files; a row links back to its
 * line (checked with sed); bad SQL, writes and a missing file fail typed; a
 * `folio query` killed mid-query takes its query process with it.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { writeQueryLog } from '../fixtures/query-log.ts';

const tmp = engineTempDir();
const BIN = join(process.cwd(), 'bin/folio.mjs');

function folio(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', cwd: tmp.path(''), env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The TSV rows of `folio query` (header dropped), sorted. */
function query(files: string[], sql: string): string[] {
  const r = folio(['query', ...files, sql]);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout.trimEnd().split('\n').slice(1).sort();
}

const sh = (script: string) =>
  execFileSync('sh', ['-c', script], { encoding: 'utf8', cwd: tmp.path(''), maxBuffer: 64 << 20 })
    .trimEnd()
    .split('\n')
    .filter(Boolean)
    .sort();

/** awk's level of a stamped line, as the table names it (continuation lines start with a space). */
const AWK_LEVEL = `function lv(w) { return w == "ERROR" ? "error" : w == "WARN" ? "warn" : w == "INFO" ? "info" : (w == "DEBUG" || w == "TRACE") ? "debug" : "other" }`;

describe('folio query', () => {
  writeQueryLog(tmp.path('a.log'), { lines: 40_000, seed: 1 });
  writeQueryLog(tmp.path('b.log'), { lines: 25_000, seed: 2, startMs: Date.UTC(2024, 4, 2) });

  it('counts rows by level as awk counts stamped lines', () => {
    const got = query(['a.log'], 'SELECT level, count(*) FROM log GROUP BY level');
    const want = sh(`awk '${AWK_LEVEL} /^[0-9]/ { n[lv($2)]++ } END { for (k in n) printf "%s\\t%d\\n", k, n[k] }' a.log`);
    expect(got).toEqual(want);
    expect(got.length).toBeGreaterThan(3);
  });

  it('filters on a key=value key and sums another as awk does', () => {
    const got = query(['a.log'], 'SELECT level, count(*), sum(dur_ms) FROM log WHERE status = 500 GROUP BY level');
    const want = sh(
      `awk '${AWK_LEVEL} /^[0-9]/ && / status=500 / { match($0, /dur_ms=[0-9]+/); n[lv($2)]++; s[lv($2)] += substr($0, RSTART + 7, RLENGTH - 7) } END { for (k in n) printf "%s\\t%d\\t%d\\n", k, n[k], s[k] }' a.log`,
    );
    expect(got).toEqual(want);
    expect(got.length).toBeGreaterThan(0);
  });

  it("filters on a JSON body's key as jq does", () => {
    const got = query(['a.log'], 'SELECT user, count(*), round(sum(amount), 2) FROM log WHERE amount > 50 AND ok = 1 GROUP BY user');
    const want = sh(
      `grep -o '{.*}$' a.log | jq -r 'select(.amount > 50 and .ok) | [.user, .amount] | @tsv' | awk -F'\\t' '{ n[$1]++; s[$1] += $2 } END { for (k in n) printf "%s\\t%d\\t%.2f\\n", k, n[k], s[k] }'`,
    ).map((row) => row.replace(/\.?0+$/, '').replace(/\t(\d+)$/, '\t$1'));
    // SQLite prints 12.5 and 12.0 as 12.5 and 12.0; printf wrote 12.50 and 12.00: compare as numbers.
    const norm = (rows: string[]) =>
      rows.map((r) =>
        r
          .split('\t')
          .map((c, i) => (i === 2 ? Number(c).toFixed(2) : c))
          .join('\t'),
      );
    expect(norm(got)).toEqual(norm(want));
    expect(got.length).toBeGreaterThan(50);
  });

  it('selects a time range as awk compares the ISO stamps', () => {
    const got = query(['a.log'], "SELECT count(*), min(line), max(line) FROM log WHERE time >= '2024-05-01T00:05:00' AND time < '2024-05-01T00:10:00'");
    const want = sh(
      `awk '/^[0-9]/ && $1 >= "2024-05-01T00:05:00" && $1 < "2024-05-01T00:10:00" { n++; if (!first) first = NR; last = NR } END { printf "%d\\t%d\\t%d\\n", n, first, last }' a.log`,
    );
    expect(got).toEqual(want);
    expect(Number(got[0]!.split('\t')[0])).toBeGreaterThan(1000);
  });

  it('reads several files as one table told apart by file', () => {
    const got = query(['a.log', 'b.log'], 'SELECT file, level, count(*) FROM log GROUP BY file, level');
    const want = sh(`awk '${AWK_LEVEL} /^[0-9]/ { n[FILENAME "\\t" lv($2)]++ } END { for (k in n) printf "%s\\t%d\\n", k, n[k] }' a.log b.log`);
    expect(got).toEqual(want);
  });

  it('links each row to its line: sed prints that line as the row raw', () => {
    const r = folio(['query', '--json', 'a.log', 'b.log', "SELECT file, line, lines, raw FROM log WHERE level = 'error' AND lines > 1 LIMIT 5"]);
    expect(r.status).toBe(0);
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { file: string; line: number; lines: number; raw: string });
    expect(rows).toHaveLength(5);
    for (const row of rows) {
      const lines = execFileSync('sed', ['-n', `${row.line},${row.line + row.lines - 1}p`, row.file], { encoding: 'utf8', cwd: tmp.path('') });
      expect(row.raw + '\n').toBe(lines);
      expect(row.raw).toContain('\n    at handler');
    }
  });

  it('says a capped answer on stderr, and stops at --limit', () => {
    const r = folio(['query', '--limit', '3', 'a.log', 'SELECT line FROM log']);
    expect(r.status).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(4);
    expect(r.stderr).toMatch(/capped at 3 rows/);
  });

  it('refuses SQL that does not compile, with the position SQLite names', () => {
    const r = folio(['query', '--json', 'a.log', 'SELECT level FROM log GRUOP BY level']);
    expect(r.status).toBe(1);
    const { error } = JSON.parse(r.stdout) as { error: { code: string; position: number; sqlite: string } };
    expect(error.code).toBe('parse_error');
    expect(error.sqlite).toMatch(/near "BY": syntax error/);
    expect(error.position).toBe('SELECT level FROM log GRUOP '.length);
  });

  it.each(['DELETE FROM log', "ATTACH 'x.db' AS x", 'PRAGMA writable_schema = 1', 'SELECT 1; DROP TABLE log', "SELECT load_extension('x')"])(
    'refuses %s as permission_denied',
    (sql) => {
      const r = folio(['query', 'a.log', sql]);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/^folio: permission_denied: /);
    },
  );

  it('refuses a UTF-16 log as encoding_mismatch', () => {
    writeFileSync(tmp.path('u16.log'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('2024-05-01T00:00:00Z INFO a=1\n'.repeat(50), 'utf16le')]));
    const r = folio(['query', 'u16.log', 'SELECT count(*) FROM log']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^folio: encoding_mismatch: /);
  });

  it('answers not_found for a missing file', () => {
    const r = folio(['query', 'a.log', 'missing.log', 'SELECT count(*) FROM log']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^folio: not_found: .*missing\.log/);
  });

  it.skipIf(process.platform !== 'linux')('a folio query killed mid-query takes its query process with it', { timeout: 120_000 }, async () => {
    const cli = spawn(process.execPath, [BIN, 'query', 'a.log', 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c'], {
      cwd: tmp.path(''),
      env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') },
      stdio: 'ignore',
    });
    const exited = new Promise<void>((resolve) => cli.once('exit', () => resolve()));
    /** The query process under the CLI (argv holds --folio-query-child), once started. */
    const queryPid = (): number | undefined =>
      readdirSync('/proc')
        .filter((n) => /^\d+$/.test(n))
        .filter((n) => {
          try {
            return (
              Number(readFileSync(`/proc/${n}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === cli.pid &&
              readFileSync(`/proc/${n}/cmdline`, 'utf8').includes('--folio-query-child')
            );
          } catch {
            return false; // gone while we looked
          }
        })
        .map(Number)[0];
    /** State letter of /proc/<pid>/stat, or 'gone'. */
    const stateOf = (pid: number) => {
      try {
        return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[0]!;
      } catch {
        return 'gone';
      }
    };
    const end = Date.now() + 60_000;
    let pid: number | undefined;
    while ((pid = queryPid()) === undefined) {
      if (Date.now() > end) throw new Error('no query process within 60 s');
      await new Promise((r) => setTimeout(r, 20));
    }
    const cpuMs = (p: number) => {
      const f = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(f[11]) + Number(f[12])) * 10;
    };
    while (cpuMs(pid) < 1000) {
      // a node start is ~0.2 s of CPU: past 1 s it is in SQLite's loop, where only a kill stops it
      if (Date.now() > end) throw new Error('the query process did not spin within 60 s');
      await new Promise((r) => setTimeout(r, 20));
    }
    cli.kill('SIGKILL'); // no handler runs: only the query process's own watchdog can stop it now
    await exited;
    // An orphan is re-parented; dead, it is gone or a zombie its new parent has not reaped (no CPU either way).
    while (!['gone', 'Z'].includes(stateOf(pid))) {
      if (Date.now() > end + 30_000) throw new Error(`query process ${pid} still ${stateOf(pid)} after its CLI was killed`);
      await new Promise((r) => setTimeout(r, 20));
    }
  });
});
