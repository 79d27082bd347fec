// @ts-check
/**
 * One SQL query over logs, in a child process of its own (log-query.ts starts
 * it, and kills it to cancel): SQLite in memory (better-sqlite3), with the
 * table `log` a virtual table whose rows stream from the files (log-rows.mjs),
 * never copied into the database. Answers { columns, rows, capped, lineAt }
 * or { error: { code, message, details } }.
 *
 * Only a single read-only SELECT (or WITH … SELECT) runs: better-sqlite3
 * refuses several statements in one prepare; the statement must be a reader
 * (returns rows) and readonly (sqlite3_stmt_readonly: ATTACH, PRAGMA writes and
 * DML are not); load_extension is refused by name (SQLite keeps the SQL function
 * off unless asked, and it is never asked); the connection is query_only.
 * Plain JS: node runs it without a TypeScript loader.
 */
import { openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { BASE_COLUMNS, keyColumnsOf, logRows } from './log-rows.mjs';

/**
 * @typedef {object} QueryJob
 * @property {string[]} files   absolute paths
 * @property {number[]} [fds]   the files, opened by the parent and passed as this process's fds (see log-query.ts)
 * @property {number[]} [parentFds]  or the parent's fds for them, reopened through /proc/<ppid>/fd (a process started ahead)
 * @property {string[]} names   what the `file` column shows for each
 * @property {string} sql
 * @property {number} limit     rows returned at most (one more is read to know the answer was capped)
 */

/**
 * @typedef {object} QueryAnswer
 * @property {string[]} columns
 * @property {(string | number | null)[][]} rows
 * @property {boolean} capped
 * @property {{ file: number, line: number } | null} link  result columns holding the log's `file` and `line`
 * @property {string[]} keyColumns
 */

/** @param {string} code @param {string} message @param {Record<string, unknown>} details */
const failure = (code, message, details) => Object.assign(new Error(message), { folio: { code, message, details } });

/** The words of `sql` (identifiers, quoted ones unquoted), lower case: which columns it may read. */
function wordsOf(/** @type {string} */ sql) {
  const words = new Set();
  for (const m of sql.matchAll(/"((?:[^"]|"")*)"|`([^`]*)`|\[([^\]]*)\]|'(?:[^']|'')*'|([A-Za-z_][\w$]*)/g)) {
    const w = m[1] ?? m[2] ?? m[3] ?? m[4];
    if (w !== undefined) words.add(w.replace(/""/g, '"').toLowerCase());
  }
  return words;
}

/**
 * Whether `sql` reads every column: a `*` where SQLite's grammar takes it as all
 * columns, which is only as a result column, right after SELECT, DISTINCT, ALL, a
 * comma or `table.` (strings, quoted names and comments set aside). A `*` after
 * anything else is a product (`amount * 100`) or count(*), which needs no column;
 * taken for all of them it made a query compute every column, about twice the
 * work. Erring towards true only costs time; false for a real `*` would leave
 * columns uncomputed, so the test lists both kinds.
 * @param {string} sql
 */
export function selectsAll(sql) {
  const bare = sql
    .replace(/'(?:[^']|'')*'/g, "''")
    .replace(/"(?:[^"]|"")*"|`(?:[^`]|``)*`|\[[^\]]*\]/g, 'q')
    .replace(/\/\*[\s\S]*?(?:\*\/|$)/g, ' ')
    .replace(/--[^\n]*/g, ' ');
  return /(?:\bselect|\bdistinct|\ball|[,.])\s*\*/i.test(bare);
}

/**
 * `near "X": syntax error` → where X first is in the SQL (SQLite's own offset is not exposed by better-sqlite3).
 * @param {string} sql @param {string} message
 */
function positionOf(sql, message) {
  const near = /near "([^"]*)"/.exec(message);
  if (!near) return undefined;
  const at = sql.indexOf(/** @type {string} */ (near[1]));
  return at >= 0 ? at : undefined;
}

/**
 * @param {QueryJob} job
 * @returns {QueryAnswer}
 */
export function runQuery(job) {
  const sql = job.sql.trim();
  const words = wordsOf(sql);
  if (words.has('load_extension')) throw failure('permission_denied', 'load_extension is not allowed', { reason: 'not_read_only', sql });
  const keyColumns = keyColumnsOf(job.files, job.fds);
  const columns = [...BASE_COLUMNS, ...keyColumns];
  const all = selectsAll(sql);
  const reads = (/** @type {string} */ c) => all || words.has(c);
  const needs = {
    time: reads('time'),
    message: reads('message'),
    raw: reads('raw'),
    keys: reads('fields') || keyColumns.some((k) => reads(k.toLowerCase())),
    fields: reads('fields'),
    named: keyColumns.filter((k) => reads(k.toLowerCase())),
  };
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const db = new Database(':memory:');
  try {
    db.table('log', {
      columns,
      rows: function* () {
        yield* logRows(job.files, job.names, { needs, keyColumns, ...(job.fds ? { fds: job.fds } : {}) });
      },
    });
    db.pragma('query_only = ON');
    /** @type {import('better-sqlite3').Statement} */
    let stmt;
    try {
      stmt = db.prepare(sql);
    } catch (err) {
      const message = /** @type {Error} */ (err).message;
      if (/more than one statement/i.test(message)) throw failure('permission_denied', 'one statement per query', { reason: 'several_statements', sql });
      if (/may not be modified|readonly|not authorized/i.test(message))
        throw failure('permission_denied', `only a read-only SELECT runs over logs (${message})`, { reason: 'not_read_only', sql, sqlite: message });
      const position = positionOf(sql, message);
      throw failure('parse_error', `SQL: ${message}`, { sql, sqlite: message, ...(position !== undefined ? { position } : {}), columns });
    }
    if (!stmt.reader || !stmt.readonly) throw failure('permission_denied', 'only a read-only SELECT runs over logs', { reason: 'not_read_only', sql });
    // A reading PRAGMA is read-only too, and no SELECT.
    if (!/^(?:--[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*\(*\s*(?:select|with|values)\b/i.test(sql))
      throw failure('permission_denied', 'only a SELECT (or WITH … SELECT) runs over logs', { reason: 'not_select', sql });
    const described = stmt.columns();
    const names = described.map((c) => c.name);
    const origin = (/** @type {string} */ col) => described.findIndex((c) => c.table === 'log' && c.column === col);
    const fileAt = origin('file');
    const lineAt = origin('line');
    const link = lineAt >= 0 && (fileAt >= 0 || job.files.length === 1) ? { file: fileAt, line: lineAt } : null;
    /** @type {(string | number | null)[][]} */
    const rows = [];
    let capped = false;
    for (const row of stmt.raw(true).iterate()) {
      if (rows.length === job.limit) {
        capped = true;
        break;
      }
      rows.push(
        /** @type {unknown[]} */ (row).map((v) =>
          typeof v === 'bigint' ? Number(v) : Buffer.isBuffer(v) ? v.toString('base64') : /** @type {string | number | null} */ (v),
        ),
      );
    }
    return { columns: names, rows, capped, link, keyColumns };
  } catch (err) {
    const e = /** @type {Error & { folio?: unknown, code?: string }} */ (err);
    if (e.folio) throw e;
    if (e.code === 'ENOENT' || e.code === 'EACCES' || e.code === 'EISDIR') throw err;
    throw failure('invalid_input', `SQL: ${e.message}`, { sql, sqlite: e.message });
  } finally {
    db.close();
  }
}

/**
 * SIGKILL for this process once its parent is gone (its ppid changes): a query
 * looping inside SQLite runs no JS, so only another thread can see that, and an
 * orphan would spin on with nobody left to kill it.
 */
function dieWithParent() {
  const code = `setInterval(() => { if (process.ppid !== ${process.ppid}) process.kill(${process.pid}, 'SIGKILL'); }, 500);`;
  new Worker(code, { eval: true }).unref();
}

// Child-process entry: only when started by log-query.ts (not when imported). One job, one answer, then exit.
if (process.send && process.argv.includes('--folio-query-child')) {
  const send = /** @type {NonNullable<typeof process.send>} */ (process.send.bind(process));
  dieWithParent();
  process.once('disconnect', () => process.exit(0));
  createRequire(import.meta.url)('better-sqlite3'); // loaded while a process started ahead waits
  process.once('message', (/** @type {QueryJob} */ job) => {
    /** @type {unknown} */
    let answer;
    try {
      const fds = job.parentFds?.map((fd) => openSync(`/proc/${process.ppid}/fd/${fd}`, 'r'));
      answer = { result: runQuery(fds ? { ...job, fds } : job) };
    } catch (err) {
      const e = /** @type {Error & { folio?: unknown, code?: string, path?: string }} */ (err);
      answer = { error: e.folio ?? { code: e.code ?? 'io_error', message: e.message, details: { path: e.path } } };
    }
    send(answer, undefined, undefined, () => process.exit(0));
  });
}
