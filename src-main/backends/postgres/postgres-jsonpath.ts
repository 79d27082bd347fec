/**
 * A JSONPath (RFC 9535) or JSON Pointer (RFC 6901) address of a jsonb value as ONE
 * SQL statement, so PostgreSQL selects the nodes and only they cross the wire,
 * with the answer a file read gives: each node's location (pointer), value, text
 * and byte offsets in the value's text (jsonb's own text: `col::text`).
 *
 * Why not jsonb_path_query with the query translated to a SQL/JSON path: it returns
 * values only, never where they are (a read answers with pointers and offsets, an
 * edit needs the location), and SQL/JSON's semantics are not RFC 9535's: lax mode
 * unwraps arrays (`$.a` on an array reads every item's `a`) and wraps scalars
 * (`$[0]` of an object is the object), strict mode fails the whole query on the
 * first missing member, and a comparison with nothing or of mixed types is
 * "unknown", so `!(@.a == 1)` drops items without `a` where RFC 9535 keeps them.
 *
 * So the query is evaluated segment by segment (RFC 9535 §2.5) in SQL: each segment
 * is a CTE of nodes (order, location, value, byte offset) made from the one before,
 * children enumerated with jsonb_each / jsonb_array_elements WITH ORDINALITY (the
 * order jsonb stores and prints), descendants with a recursive CTE in preorder.
 * Mapped exactly: names, indexes (negative too), wildcards, slices (any step),
 * descendant segments, filters with ==, !=, <, <=, >, >= (Nothing, mixed types and
 * deep equality as RFC 9535 §2.3.5.2.2 says; numbers compared exactly, as jsonb
 * keeps them, where json-p3 compares doubles), &&, ||, !, existence tests of any
 * query, and the functions length(), count(), value(). Not mapped: match() and
 * search(), whose I-Regexp (RFC 9485) is not PostgreSQL's regular expression
 * dialect: `Untranslatable`, and the caller evaluates the query with json-p3 over
 * the fetched text instead (docs/API.md).
 *
 * Byte offsets: jsonb prints `{"k": v, "k2": v2}` and `[v, v2]` (", " and ": "
 * separators, nothing else), so a child's offset is its parent's plus the printed
 * length of the siblings before it, summed by a window over the ordinality.
 */
import { jsonpath, type JSONPathQuery } from 'json-p3';
import type { JsonAddress } from '../../engine/address/json-select.ts';

type Filter = jsonpath.expressions.FilterExpression;
const X = jsonpath.expressions;
const S = jsonpath.selectors;

/** A construct with no exact PostgreSQL form; `construct` names it for the answer's note. */
export class Untranslatable extends Error {
  constructor(readonly construct: string) {
    super(`${construct} has no exact PostgreSQL form`);
  }
}

/** Parameters of the statement being built ($1 is the row key). */
class Params {
  readonly values: unknown[] = [];
  private n = 0;
  /** a fresh CTE name */
  name(prefix: string): string {
    return `${prefix}${this.n++}`;
  }
  add(v: unknown, cast: string): string {
    this.values.push(v);
    return `$${this.values.length + 1}::${cast}`;
  }
}

/**
 * The children of node alias `a` (columns v jsonb, off bigint): key (members), idx
 * and len (items), seg (the location step as jsonb), v, off, k (ordinality).
 */
function children(a: string): string {
  const w = 'ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING';
  return `(SELECT e.key, NULL::bigint AS idx, NULL::bigint AS len, to_jsonb(e.key) AS seg, e.value AS v,
      ${a}.off + 1 + coalesce(sum(octet_length(to_jsonb(e.key)::text) + octet_length(e.value::text) + 4) OVER (ORDER BY e.n ${w}), 0)
        + octet_length(to_jsonb(e.key)::text) + 2 AS off, e.n AS k
    FROM jsonb_each(CASE WHEN jsonb_typeof(${a}.v) = 'object' THEN ${a}.v END) WITH ORDINALITY e(key, value, n)
   UNION ALL
   SELECT NULL, i.n - 1, jsonb_array_length(${a}.v), to_jsonb(i.n - 1), i.value,
      ${a}.off + 1 + coalesce(sum(octet_length(i.value::text) + 2) OVER (ORDER BY i.n ${w}), 0), i.n
    FROM jsonb_array_elements(CASE WHEN jsonb_typeof(${a}.v) = 'array' THEN ${a}.v END) WITH ORDINALITY i(value, n))`;
}

function int(n: number, what: string): string {
  if (!Number.isSafeInteger(n)) throw new Untranslatable(`${what} ${n}`);
  return String(n);
}

/** The condition a child `c` meets for `sel`, and its sort key among the selector's results. */
function selectorSql(sel: unknown, q: Params, root: string): { cond: string; sort: string } {
  if (sel instanceof S.NameSelector) return { cond: `c.key = ${q.add(sel.name, 'text')}`, sort: 'c.k' };
  if (sel instanceof S.IndexSelector) {
    const i = int(sel.index, 'index');
    return { cond: sel.index >= 0 ? `c.idx = ${i}` : `c.idx = c.len + (${i})`, sort: 'c.k' };
  }
  if (sel instanceof S.WildcardSelector) return { cond: 'true', sort: 'c.k' };
  if (sel instanceof S.SliceSelector) return sliceSql(sel.start, sel.stop, sel.step ?? 1);
  if (sel instanceof S.FilterSelector) return { cond: testSql(sel.expression, 'c.v', root, q), sort: 'c.k' };
  if (sel instanceof PointerToken) {
    // RFC 6901: a member of that name, or (in an array) the item of that decimal index.
    const t = q.add(sel.token, 'text');
    return { cond: `(c.key = ${t} OR (c.idx IS NOT NULL AND ${t} ~ '^(0|[1-9][0-9]*)$' AND c.idx::text = ${t}))`, sort: 'c.k' };
  }
  throw new Untranslatable(`the selector ${String(sel)}`);
}

/** RFC 9535 §2.3.4.2.2: the indexes a slice selects, in its order, from the array's length. */
function sliceSql(start: number | undefined, stop: number | undefined, step: number): { cond: string; sort: string } {
  const st = int(step, 'slice step');
  if (step === 0) return { cond: 'false', sort: 'c.k' };
  const norm = (v: number) => (v >= 0 ? int(v, 'slice bound') : `(c.len + (${int(v, 'slice bound')}))`);
  if (step > 0) {
    const lo = start === undefined ? '0' : `least(greatest(${norm(start)}, 0), c.len)`;
    const hi = stop === undefined ? 'c.len' : `least(greatest(${norm(stop)}, 0), c.len)`;
    return { cond: `(c.idx >= ${lo} AND c.idx < ${hi} AND (c.idx - ${lo}) % ${st} = 0)`, sort: 'c.idx' };
  }
  const upper = start === undefined ? '(c.len - 1)' : `least(greatest(${norm(start)}, -1), c.len - 1)`;
  const lower = stop === undefined ? '-1' : `least(greatest(${norm(stop)}, -1), c.len - 1)`;
  return { cond: `(c.idx <= ${upper} AND c.idx > ${lower} AND (${upper} - c.idx) % ${int(-step, 'slice step')} = 0)`, sort: '-c.idx' };
}

/** One token of a JSON Pointer, as a selector of the SQL walk. */
class PointerToken {
  constructor(readonly token: string) {}
}

type Segments = { descendant: boolean; selectors: unknown[] }[];

function segmentsOf(query: JSONPathQuery): Segments {
  // json-p3 exports no DescendantSegment class to test with; its text is `..[…]`.
  return query.segments.map((s) => ({ descendant: s.toString().startsWith('..'), selectors: s.selectors }));
}

/**
 * CTEs walking `segments` from the nodes of CTE `from` (columns o, p, v, off):
 * the definitions and the name of the last CTE.
 */
function walk(segments: Segments, from: string, q: Params, root: string): { ctes: string[]; last: string } {
  const ctes: string[] = [];
  let prev = from;
  for (const seg of segments) {
    const name = q.name('s');
    let branches: string[];
    if (seg.descendant) {
      // Every node under each input node, in preorder (dt: the ordinalities down from
      // the input node, 12 digits each), each with what a selector tests (key, idx,
      // len, k) as a child of its parent (pdt): RFC 9535 §2.5.2.2 applies the selectors
      // to the children of each node in turn, so a descendant ranks by (its parent's
      // dt, '!', selector, k); '!' sorts before digits, so a node's own results come
      // before its descendants'.
      const d = q.name('d');
      ctes.push(`${d} AS (SELECT s.o, ''::text AS dt, NULL::text AS pdt, s.p, s.v, s.off,
          NULL::text AS key, NULL::bigint AS idx, NULL::bigint AS len, NULL::bigint AS k, true AS self FROM ${prev} s
        UNION ALL SELECT d.o, d.dt || lpad(c.k::text, 12, '0'), d.dt, d.p || c.seg, c.v, c.off, c.key, c.idx, c.len, c.k, false
          FROM ${d} d, LATERAL ${children('d')} c WHERE jsonb_typeof(d.v) IN ('object', 'array'))`);
      branches = seg.selectors.map((sel, j) => {
        const { cond, sort } = selectorSql(sel, q, root);
        return `SELECT c.o || '.' || c.pdt || '!' AS o, ${j} AS j, ${sort} AS sk, c.p, c.v, c.off FROM ${d} c WHERE NOT c.self AND ${cond}`;
      });
    } else {
      branches = seg.selectors.map((sel, j) => {
        const { cond, sort } = selectorSql(sel, q, root);
        return `SELECT s.o || '.' AS o, ${j} AS j, ${sort} AS sk, s.p || c.seg AS p, c.v, c.off FROM ${prev} s, LATERAL ${children('s')} c WHERE ${cond}`;
      });
    }
    // The order key: the input node's, then selector and sort key in fixed widths
    // (sk may be a negated index: offset to stay positive), compared bytewise
    // (COLLATE "C"). No sort per segment: nodes (and their values) are sorted once, at the end.
    ctes.push(`${name} AS (SELECT x.o || lpad(x.j::text, 4, '0') || lpad((x.sk + 1099511627776)::text, 14, '0') AS o, x.p, x.v, x.off
      FROM (${branches.join(' UNION ALL ')}) x)`);
    prev = name;
  }
  return { ctes, last: prev };
}

/** A subquery of the nodes `query` selects from the value `base` (a SQL jsonb expression): columns o, p, v, off. */
function nodesSql(query: JSONPathQuery, base: string, q: Params, root: string): string {
  const start = q.name('b');
  const { ctes, last } = walk(segmentsOf(query), start, q, root);
  return `WITH RECURSIVE ${[`${start} AS (SELECT ''::text AS o, '[]'::jsonb AS p, (${base}) AS v, 0::bigint AS off)`, ...ctes].join(', ')} SELECT * FROM ${last}`;
}

/** A singular query (names and indexes only) as a chain of -> (NULL: Nothing). */
function singularSql(query: JSONPathQuery, base: string, q: Params): string {
  let x = base;
  for (const s of query.segments) {
    const sel = s.selectors[0];
    if (sel instanceof S.NameSelector) x = `(${x} -> ${q.add(sel.name, 'text')})`;
    else if (sel instanceof S.IndexSelector) x = `(${x} -> ${int(sel.index, 'index')})`;
    else throw new Untranslatable(`the query ${query.toString()}`);
  }
  return x;
}

function queryOf(e: Filter): { query: JSONPathQuery; base: (cur: string, root: string) => string } | null {
  if (e instanceof X.RelativeQuery) return { query: e.path, base: (cur) => cur };
  if (e instanceof X.RootQuery) return { query: e.path, base: (_cur, root) => root };
  return null;
}

/** A filter's test expression as a SQL boolean that is never NULL. */
function testSql(e: Filter, cur: string, root: string, q: Params): string {
  if (e instanceof X.LogicalExpression) return testSql(e.expression, cur, root, q);
  if (e instanceof X.PrefixExpression && e.operator === '!') return `(NOT ${testSql(e.right, cur, root, q)})`;
  if (e instanceof X.InfixExpression) {
    if (e.operator === '&&' || e.operator === '||') {
      return `(${testSql(e.left, cur, root, q)} ${e.operator === '&&' ? 'AND' : 'OR'} ${testSql(e.right, cur, root, q)})`;
    }
    return compareSql(valueSql(e.left, cur, root, q), e.operator, valueSql(e.right, cur, root, q));
  }
  const fq = queryOf(e);
  if (fq) {
    // An existence test: the query selects at least one node (RFC 9535 §2.3.5.2.1).
    if (fq.query.singularQuery()) return `(${singularSql(fq.query, fq.base(cur, root), q)} IS NOT NULL)`;
    return `EXISTS (${nodesSql(fq.query, fq.base(cur, root), q, root)})`;
  }
  if (e instanceof X.FunctionExtension) throw new Untranslatable(`${e.name}()`);
  throw new Untranslatable(`the test ${e.toString()}`);
}

const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$/;

/** A comparable (literal, singular query, function) as a SQL jsonb expression; NULL is Nothing. */
function valueSql(e: Filter, cur: string, root: string, q: Params): string {
  if (e instanceof X.NullLiteral) return `'null'::jsonb`;
  if (e instanceof X.BooleanLiteral) return e.value ? `'true'::jsonb` : `'false'::jsonb`;
  if (e instanceof X.StringLiteral) return q.add(JSON.stringify(e.value), 'jsonb');
  if (e instanceof X.NumberLiteral) {
    // The literal as written (exact, as jsonb keeps numbers): 1e400 is not a double's Infinity (JSON null).
    const written = e.token.value;
    return q.add(JSON_NUMBER.test(written) ? written : JSON.stringify(e.value), 'jsonb');
  }
  const fq = queryOf(e);
  if (fq) {
    if (fq.query.singularQuery()) return singularSql(fq.query, fq.base(cur, root), q);
    throw new Untranslatable(`the non-singular query ${e.toString()} as a value`);
  }
  if (e instanceof X.FunctionExtension) {
    const [arg] = e.args;
    if (e.name === 'length' && arg) {
      const x = valueSql(arg, cur, root, q);
      // RFC 9535 §2.4.4: characters (Unicode scalar values), items, members; Nothing for the rest.
      return `(SELECT CASE jsonb_typeof(l.x) WHEN 'string' THEN to_jsonb(char_length(l.x #>> '{}')) WHEN 'array' THEN to_jsonb(jsonb_array_length(l.x))
        WHEN 'object' THEN to_jsonb((SELECT count(*) FROM jsonb_object_keys(l.x))) END FROM (SELECT ${x} AS x) l)`;
    }
    const aq = arg ? queryOf(arg) : null;
    if (e.name === 'count' && aq) return `to_jsonb((SELECT count(*) FROM (${nodesSql(aq.query, aq.base(cur, root), q, root)}) n))`;
    if (e.name === 'value' && aq) {
      if (aq.query.singularQuery()) return singularSql(aq.query, aq.base(cur, root), q);
      return `(SELECT CASE WHEN count(*) = 1 THEN (array_agg(n.v))[1] END FROM (${nodesSql(aq.query, aq.base(cur, root), q, root)}) n)`;
    }
    throw new Untranslatable(`${e.name}()`);
  }
  throw new Untranslatable(`the value ${e.toString()}`);
}

/**
 * RFC 9535 §2.3.5.2.2: == is deep equality with Nothing equal only to Nothing (jsonb's
 * = is deep and numeric); < holds between two numbers or two strings only (strings by
 * code point: COLLATE "C" on UTF-8); <=, >= are < or ==.
 */
function compareSql(a: string, op: string, b: string): string {
  const eq = (l: string, r: string) => `(${l} IS NOT DISTINCT FROM ${r})`;
  const lt = (l: string, r: string) =>
    `(CASE WHEN jsonb_typeof(${l}) = 'number' AND jsonb_typeof(${r}) = 'number' THEN (${l})::numeric < (${r})::numeric
       WHEN jsonb_typeof(${l}) = 'string' AND jsonb_typeof(${r}) = 'string' THEN (${l} #>> '{}') COLLATE "C" < (${r} #>> '{}') COLLATE "C"
       ELSE false END)`;
  switch (op) {
    case '==':
      return eq(a, b);
    case '!=':
      return `(NOT ${eq(a, b)})`;
    case '<':
      return lt(a, b);
    case '>':
      return lt(b, a);
    case '<=':
      return `(${lt(a, b)} OR ${eq(a, b)})`;
    case '>=':
      return `(${lt(b, a)} OR ${eq(a, b)})`;
    default:
      throw new Untranslatable(`the operator ${op}`);
  }
}

export interface JsonbSelectSql {
  /** the statement: $1 is the row key; rows x, c, n (the version), then per node p (location as a jsonb array), text, off, o */
  text: string;
  values: unknown[];
}

/**
 * The statement selecting what `address` names in column `column` of the row
 * `table`.`keyColumn` = $1, at most `limit` nodes, with the row's version in the same
 * snapshot (no match: one row with p NULL; no row: none). Untranslatable if a
 * construct has no exact form.
 */
export function jsonbSelectSql(address: JsonAddress, t: { table: string; keyColumn: string; column: string }, limit: number): JsonbSelectSql {
  const q = new Params();
  const root = '(SELECT r.v FROM r)';
  const segments: Segments =
    address.kind === 'pointer' ? address.tokens.map((tok) => ({ descendant: false, selectors: [new PointerToken(tok)] })) : segmentsOf(address.query);
  const { ctes, last } = walk(segments, 's_root', q, root);
  const text = `WITH RECURSIVE
    r AS (SELECT xmin::text AS x, ctid::text AS c, octet_length(${t.column}::text) AS n, ${t.column} AS v FROM ${t.table} WHERE ${t.keyColumn} = $1),
    s_root AS (SELECT ''::text AS o, '[]'::jsonb AS p, r.v, 0::bigint AS off FROM r WHERE r.v IS NOT NULL)
    ${ctes.map((c) => `, ${c}`).join('\n')},
    m AS (SELECT * FROM ${last} ORDER BY o COLLATE "C" LIMIT ${int(limit, 'limit')})
    SELECT r.x, r.c, r.n::text AS n, m.p, m.v::text AS text, m.off::text AS off, m.o FROM r LEFT JOIN m ON true ORDER BY m.o COLLATE "C"`;
  return { text, values: q.values };
}
