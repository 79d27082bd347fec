// @ts-check
/**
 * The rows of a log as the query operation's table `log` sees them, streamed
 * from the file in chunks (memory bounded by the longest row, never the file).
 *
 * A row is a stamped line and the unstamped lines under it (a stack trace belongs
 * to the line that logged it): its `raw` and `message` carry them after a "\n",
 * `line` is the stamped line's number and `lines` how many lines the row spans.
 * Lines before the first stamp, and every line of a file with no stamps, are rows
 * of their own (time null). Columns:
 *   file, line (1-based), offset (byte), lines, time (ISO 8601 UTC text or null),
 *   level (error, warn, info, debug, other: log-levels.mjs, as the histogram),
 *   message (the line after its stamp and level word), raw (the whole line),
 *   fields (JSON text: the key=value pairs and JSON body's keys), then one column
 *   per key found in the first rows (keyColumnsOf).
 * Values of keys: a number when the text is one, JSON's own scalars (true/false
 * as 1/0), nested objects as JSON text. A key=value value may be "quoted".
 * Plain JS: the query worker imports it without a TypeScript loader.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { LEVEL_NAMES, levelOfLine, levelWordEnd, stampLength } from './log-levels.mjs';
import { detectTimeFormat, timeOfLine } from './timestamps.mjs';

/** The table's own columns, before the key columns; `fields` is last of them. */
export const BASE_COLUMNS = /** @type {const} */ (['file', 'line', 'offset', 'lines', 'time', 'level', 'message', 'raw', 'fields']);
const READ_BYTES = 1 << 20;
/** At most this many key columns (the others are in `fields`). */
export const MAX_KEY_COLUMNS = 64;
/** Rows whose keys make the key columns, per file. */
const SAMPLE_ROWS = 1000;
const KV = /(?:^|[\s,;])([A-Za-z_][\w.-]*)=("(?:[^"\\]|\\.)*"|[^\s,;]*)/g;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * @typedef {object} RowNeeds  which columns a query reads (the others are left null: cheaper)
 * @property {boolean} time
 * @property {boolean} message
 * @property {boolean} raw
 * @property {boolean} keys   key columns or fields
 * @property {boolean} [fields] the fields column (its JSON is built only then)
 * @property {string[]} [named]   without fields: the only key columns read (only they are looked for)
 */

/** @param {string} v @returns {string | number} */
function scalarOf(v) {
  if (v.length > 1 && v.charCodeAt(0) === 34 && v.charCodeAt(v.length - 1) === 34) {
    try {
      return JSON.parse(v);
    } catch {
      return v.slice(1, -1);
    }
  }
  return NUMBER.test(v) ? Number(v) : v;
}

/** @param {unknown} v @returns {string | number | null} */
function sqlValueOf(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number' || typeof v === 'string') return v;
  return JSON.stringify(v);
}

/**
 * The keys of a message: its key=value pairs and the top-level keys of a JSON
 * object ending it (or being it).
 * @param {string} message
 * @returns {Record<string, string | number | null> | null}
 */
export function keysOf(message) {
  /** @type {Record<string, string | number | null> | null} */
  let out = null;
  const brace = message.indexOf('{');
  const text = brace >= 0 ? message.slice(0, brace) : message;
  KV.lastIndex = 0;
  for (let m = KV.exec(text); m; m = KV.exec(text)) {
    out ??= {};
    // The first of a key written twice, as namedKeysOf finds it.
    if (!Object.hasOwn(out, /** @type {string} */ (m[1]))) out[/** @type {string} */ (m[1])] = scalarOf(/** @type {string} */ (m[2]));
  }
  if (brace >= 0 && message.trimEnd().endsWith('}')) {
    try {
      const body = JSON.parse(message.slice(brace));
      if (body && typeof body === 'object' && !Array.isArray(body)) for (const [k, v] of Object.entries(body)) (out ??= {})[k] = sqlValueOf(v);
    } catch {
      // not JSON: its key=value pairs only
    }
  }
  return out;
}

/**
 * The values of `names` in a message, without reading its other keys: each
 * `name=` found by indexOf at a word start, and the JSON body parsed only when it
 * holds one of the names in quotes. Same values as keysOf.
 * @param {string} message @param {string[]} names
 * @returns {Record<string, string | number | null> | null}
 */
export function namedKeysOf(message, names) {
  /** @type {Record<string, string | number | null> | null} */
  let out = null;
  const brace = message.indexOf('{');
  const text = brace >= 0 ? message.slice(0, brace) : message;
  let inBody = false;
  for (const name of names) {
    for (let at = text.indexOf(name + '='); at >= 0; at = text.indexOf(name + '=', at + 1)) {
      const before = at > 0 ? text.charCodeAt(at - 1) : 32;
      if (before !== 32 && before !== 9 && before !== 44 && before !== 59) continue;
      KV.lastIndex = at > 0 ? at - 1 : 0;
      const m = KV.exec(text);
      if (m && m[1] === name) (out ??= {})[name] = scalarOf(/** @type {string} */ (m[2]));
      break;
    }
    if (brace >= 0 && !inBody && message.includes(`"${name}"`, brace)) inBody = true;
  }
  if (inBody && message.trimEnd().endsWith('}')) {
    try {
      const body = JSON.parse(message.slice(brace));
      if (body && typeof body === 'object' && !Array.isArray(body))
        for (const name of names) if (Object.hasOwn(body, name)) (out ??= {})[name] = sqlValueOf(body[name]);
    } catch {
      // not JSON: its key=value pairs only
    }
  }
  return out;
}

/**
 * Where a line's message starts: after its level word if one is in reach, else
 * after its stamp (and the separators that follow).
 * @param {Buffer} b @param {number} ls @param {number} le @param {number} skip  the stamp's fixed length
 */
function messageStart(b, ls, le, skip) {
  let p = levelWordEnd(b, ls, le, skip);
  if (p < 0) {
    p = ls + skip;
    // The rest of the stamp token (fraction, zone) when it had one.
    if (skip > 0) while (p < le && b[p] !== 32 && b[p] !== 9) p++;
  }
  while (p < le && (b[p] === 32 || b[p] === 9 || b[p] === 58 || b[p] === 93 || b[p] === 124 || b[p] === 45)) p++;
  return p;
}

/**
 * The stamp format of a file, from its first 64 KiB (null: no stamps, every line a row).
 * @param {number} fd
 */
function formatOf(fd) {
  const head = Buffer.allocUnsafe(64 * 1024);
  const n = readSync(fd, head, 0, head.length, 0);
  const nl = head.lastIndexOf(10, n - 1);
  return detectTimeFormat(head.subarray(0, n === head.length && nl > 0 ? nl + 1 : n))?.format ?? null;
}

/**
 * @typedef {object} RowsOptions
 * @property {RowNeeds} needs
 * @property {string[]} keyColumns  the key columns, in table order after BASE_COLUMNS
 * @property {number} [year]         syslog stamps' year
 * @property {number} [maxRows]      stop after this many rows per file (sampling)
 * @property {number[]} [fds]        the files already open, one per file, read at positions and left open (the query
 *                                   worker's: its parent opens and closes them, since a worker terminated mid-scan
 *                                   never runs its finally blocks)
 */

/**
 * The rows of `files`, one after the other, as arrays in column order.
 * @param {string[]} files  absolute paths, shown in `file` as `names` says
 * @param {string[]} names
 * @param {RowsOptions} o
 * @returns {Generator<(string | number | null)[]>}
 */
export function* logRows(files, names, o) {
  const keyIndex = new Map(o.keyColumns.map((k, i) => [k, BASE_COLUMNS.length + i]));
  const width = BASE_COLUMNS.length + o.keyColumns.length;
  const { needs } = o;
  for (let f = 0; f < files.length; f++) {
    const name = /** @type {string} */ (names[f]);
    const given = o.fds?.[f];
    const fd = given ?? openSync(/** @type {string} */ (files[f]), 'r');
    try {
      const format = formatOf(fd);
      const year = o.year ?? new Date().getUTCFullYear();
      let buf = Buffer.allocUnsafe(READ_BYTES);
      let pos = 0;
      let lineNo = 0;
      let emitted = 0;
      /** @type {(string | number | null)[] | null} the stamped row waiting for its continuation lines */
      let pending = null;
      /** @type {string[]} continuation lines' text (only when message or raw is read) */
      let tail = [];
      const finish = () => {
        const row = /** @type {(string | number | null)[]} */ (pending);
        if (tail.length) {
          const more = '\n' + tail.join('\n');
          if (row[6] !== null) row[6] += more;
          if (row[7] !== null) row[7] += more;
          tail = [];
        }
        pending = null;
        emitted++;
        return row;
      };
      for (;;) {
        const got = readSync(fd, buf, 0, buf.length, pos);
        if (got <= 0) break;
        let n = got;
        const nl = buf.lastIndexOf(10, got - 1);
        if (nl >= 0) n = nl + 1;
        else if (got === buf.length) {
          // A line longer than the buffer: read it whole.
          const bigger = Buffer.allocUnsafe(buf.length * 2);
          buf = bigger;
          continue;
        }
        let ls = 0;
        while (ls < n) {
          let le = buf.indexOf(10, ls);
          if (le < 0 || le >= n) le = n;
          const next = le + 1;
          if (le > ls && buf[le - 1] === 13) le--;
          lineNo++;
          // Whether a line is stamped: by its stamp's shape where that says it (no parsing, the time unread), else parsed.
          const shape = !needs.time && (format === 'iso8601' || format === 'syslog') ? stampLength(buf, ls, le, format) : 0;
          const ms = !format ? NaN : shape > 0 ? 0 : timeOfLine(buf, ls, le, format, year);
          if (Number.isNaN(ms) && pending) {
            // A continuation line: part of the row above.
            const row = /** @type {(string | number | null)[]} */ (pending);
            row[3] = /** @type {number} */ (row[3]) + 1;
            if (needs.message || needs.raw) tail.push(buf.toString('utf8', ls, le));
            ls = next;
            continue;
          }
          if (pending) {
            yield finish();
            if (o.maxRows !== undefined && emitted >= o.maxRows) return;
          }
          const skip = shape || (format ? stampLength(buf, ls, le, format) : 0);
          /** @type {(string | number | null)[]} */
          const row = new Array(width).fill(null);
          row[0] = name;
          row[1] = lineNo;
          row[2] = pos + ls;
          row[3] = 1;
          row[4] = needs.time && !Number.isNaN(ms) ? new Date(ms).toISOString() : null;
          row[5] = /** @type {string} */ (LEVEL_NAMES[levelOfLine(buf, ls, le, skip)]);
          if (needs.message || needs.keys) {
            const message = buf.toString('utf8', messageStart(buf, ls, le, skip), le);
            if (needs.message) row[6] = message;
            if (needs.keys) {
              const keys = needs.fields || !needs.named ? keysOf(message) : namedKeysOf(message, needs.named);
              if (keys) {
                if (needs.fields) row[8] = JSON.stringify(keys);
                for (const k in keys) {
                  const at = keyIndex.get(k);
                  if (at !== undefined) row[at] = /** @type {string | number | null} */ (keys[k]);
                }
              }
            }
          }
          if (needs.raw) row[7] = buf.toString('utf8', ls, le);
          pending = row;
          if (Number.isNaN(ms)) {
            // Before the first stamp, or a file without stamps: a row of its own.
            yield finish();
            if (o.maxRows !== undefined && emitted >= o.maxRows) return;
          }
          ls = next;
        }
        pos += n;
        // The chunk's rows are out; a buffer grown for one long line goes back to its size.
        if (buf.length > READ_BYTES && n < buf.length / 4) buf = Buffer.allocUnsafe(READ_BYTES);
      }
      if (pending) yield finish();
    } finally {
      if (given === undefined) closeSync(fd);
    }
  }
}

/**
 * The key columns of `files`: the keys of the first SAMPLE_ROWS rows of each, in
 * the order first seen, less those named like a column of the table (SQLite's
 * names ignore case), at most MAX_KEY_COLUMNS.
 * @param {string[]} files
 * @param {number[]} [fds]  the files already open (RowsOptions.fds)
 * @returns {string[]}
 */
export function keyColumnsOf(files, fds) {
  const taken = new Set(BASE_COLUMNS.map((c) => c.toLowerCase()));
  /** @type {string[]} */
  const keys = [];
  const needs = { time: false, message: false, raw: false, keys: true, fields: true };
  for (const row of logRows(files, files, { needs, keyColumns: [], maxRows: SAMPLE_ROWS, ...(fds ? { fds } : {}) })) {
    if (row[8] === null) continue;
    for (const k of Object.keys(JSON.parse(/** @type {string} */ (row[8])))) {
      if (keys.length >= MAX_KEY_COLUMNS) return keys;
      if (taken.has(k.toLowerCase())) continue;
      taken.add(k.toLowerCase());
      keys.push(k);
    }
  }
  return keys;
}
