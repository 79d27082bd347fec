/**
 * RFC 9535 queries evaluated over a streamed JSON text (json-stream.ts): names,
 * indexes, slices and wildcards resolved by scanning, in the order json-p3 gives;
 * a filter tests each child as json-p3 does, on the child's value when the child
 * is small, else on the values its relative queries (`@.price`) select, found by
 * this same evaluator. A filter's absolute queries (`$.limit`) are evaluated once
 * per query. test/engine/json-stream.test.ts runs the compliance suite through
 * this and the in-memory path.
 */
import { JSONPathNode, JSONPathNodeList, jsonpath, type JSONPathEnvironment, type JSONPathQuery, type JSONValue } from 'json-p3';
import { FolioError } from '../errors.ts';
import { MAX_DESCENT_DEPTH, type Segment } from './json-select.ts';
import { pointerText, valueOfText, type JsonStream, type StreamKind, type StreamNode } from './json-stream.ts';

type Selector = JSONPathQuery['segments'][number]['selectors'][number];
type FilterExpr = { evaluate(context: unknown): unknown };
const { NameSelector, IndexSelector, SliceSelector, WildcardSelector, FilterSelector } = jsonpath.selectors;
const { RelativeQuery, RootQuery } = jsonpath.expressions;

/** The queries a filter expression tests directly (not those inside their paths' own filters). */
function queriesOf(expr: unknown, out: { relative: FilterExpr[]; root: FilterExpr[] }): typeof out {
  if (expr instanceof RelativeQuery) out.relative.push(expr);
  else if (expr instanceof RootQuery) out.root.push(expr);
  else if (expr && typeof expr === 'object') {
    const e = expr as { expression?: unknown; left?: unknown; right?: unknown; args?: unknown[] };
    for (const part of [e.expression, e.left, e.right, ...(e.args ?? [])]) if (part) queriesOf(part, out);
  }
  return out;
}

/** A query's node list made of nodes found in the text, each value built when a test reads it. */
async function nodeListOf(js: JsonStream, nodes: AsyncIterable<StreamNode>, root: unknown): Promise<JSONPathNodeList> {
  const out: JSONPathNode[] = [];
  for await (const n of nodes) {
    const small = (await js.ended(n)).end - n.start <= js.opts.maxValueBytes;
    const node = new JSONPathNode(small ? ((await js.value(n)) as JSONValue) : null, n.segments, root as JSONValue);
    if (!small) {
      Object.defineProperty(node, 'value', {
        get: () => {
          throw new FolioError(
            'too_large',
            `a filter tests the value at ${pointerText(n.segments)}, ${n.end - n.start} bytes; values are built up to ${js.opts.maxValueBytes} bytes`,
            {
              size: n.end - n.start,
              limit: js.opts.maxValueBytes,
            },
          );
        },
      });
    }
    out.push(node);
  }
  return new JSONPathNodeList(out);
}

const queriesCache = new WeakMap<FilterExpr, { relative: FilterExpr[]; root: FilterExpr[] }>();
/** Answers of a filter's absolute queries (`$…`), computed once per compiled query. */
const rootAnswers = new WeakMap<FilterExpr, JSONPathNodeList>();
/** Answers of the relative queries (`@…`) of the filter being evaluated now, for a child too big to build. */
let relativeAnswers: Map<FilterExpr, JSONPathNodeList> | null = null;

const patched = new WeakSet<object>();
/** A filter query answers from the maps above when they hold it, else as json-p3 does (the query objects are this compile's own). */
function patch(q: FilterExpr): void {
  if (patched.has(q)) return;
  patched.add(q);
  const own = q.evaluate.bind(q);
  q.evaluate = (context: unknown) => relativeAnswers?.get(q) ?? rootAnswers.get(q) ?? own(context);
}

/** Evaluates one compiled query over a JsonStream. */
export class StreamQuery {
  constructor(
    private readonly js: JsonStream,
    private readonly query: JSONPathQuery,
    private readonly environment: JSONPathEnvironment,
  ) {}

  /** The nodes the query selects, in json-p3's order. */
  async *select(): AsyncGenerator<StreamNode> {
    yield* this.run(this.query.segments, 0, await this.js.root());
  }

  private async *run(segments: JSONPathQuery['segments'], i: number, node: StreamNode): AsyncGenerator<StreamNode> {
    if (i === segments.length) {
      yield node;
      return;
    }
    const segment = segments[i]!;
    const descendant = segment.toString().startsWith('..');
    const visited = descendant ? this.visit(node, 1) : one(node);
    for await (const n of visited) {
      for (const selector of segment.selectors) {
        for await (const r of this.resolve(selector, n)) yield* this.run(segments, i + 1, r);
      }
    }
  }

  /** A node and its descendants, parents before children (json-p3's order for `..`). */
  private async *visit(node: StreamNode, depth: number): AsyncGenerator<StreamNode> {
    if (depth >= MAX_DESCENT_DEPTH) {
      throw new FolioError('too_large', `the document nests deeper than ${MAX_DESCENT_DEPTH} levels; a descendant segment (..) stops there`, {
        limit: MAX_DESCENT_DEPTH,
        hint: 'address the deep part with a path of names and indexes, or a JSON Pointer',
      });
    }
    yield node;
    for await (const ch of this.js.children(node)) yield* this.visit(ch.node, depth + 1);
  }

  private async *resolve(selector: Selector, node: StreamNode): AsyncGenerator<StreamNode> {
    const js = this.js;
    if (selector instanceof NameSelector) {
      const m = await js.member(node, selector.name);
      if (m) yield m;
    } else if (selector instanceof IndexSelector) {
      if (node.kind !== 'array') return;
      let index = selector.index;
      if (index < 0) {
        const length = await js.count(node);
        if (length < -index) return;
        index += length;
      }
      const m = await js.item(node, index);
      if (m) yield m;
    } else if (selector instanceof SliceSelector) {
      if (node.kind === 'array') yield* this.slice(selector, node);
    } else if (selector instanceof WildcardSelector) {
      for await (const ch of js.children(node)) yield ch.node;
    } else if (selector instanceof FilterSelector) {
      yield* this.filtered(selector, node);
    }
  }

  private async *slice(s: InstanceType<typeof SliceSelector>, node: StreamNode): AsyncGenerator<StreamNode> {
    const step = s.step ?? 1;
    if (step === 0) return;
    if (step > 0 && (s.start ?? 0) >= 0 && (s.stop ?? 0) >= 0) {
      // Forward from a known start: no length needed.
      const start = s.start ?? 0;
      for await (const ch of this.js.children(node, true, start)) {
        const i = ch.key as number;
        if (s.stop !== undefined && i >= s.stop) return;
        if (i >= start && (i - start) % step === 0) yield ch.node;
      }
      return;
    }
    const len = await this.js.count(node);
    if (!len) return;
    const norm = (n: number | undefined, dflt: number) =>
      n === undefined ? dflt : n < 0 ? (step < 0 ? Math.max(n + len, -1) : Math.max(n + len, 0)) : step < 0 ? Math.min(n, len - 1) : Math.min(n, len);
    if (step > 0) {
      const from = norm(s.start, 0);
      const stop = norm(s.stop, len);
      for await (const ch of this.js.children(node, true, from)) {
        const i = ch.key as number;
        if (i >= stop) return;
        if (i >= from && (i - from) % step === 0) yield ch.node;
      }
      return;
    }
    // Backward: the places of the items in range, then the selected ones from the last.
    const from = norm(s.start, len - 1);
    const stop = norm(s.stop, -1);
    if (from <= stop) return;
    const starts = new Float64Array(from - stop);
    const ends = new Float64Array(from - stop);
    const kinds: StreamKind[] = [];
    for await (const ch of this.js.children(node, true, stop + 1)) {
      const i = ch.key as number;
      if (i > from) break;
      if (i > stop) {
        starts[i - stop - 1] = ch.node.start;
        ends[i - stop - 1] = ch.node.end;
        kinds[i - stop - 1] = ch.node.kind;
      }
    }
    for (let i = from; i > stop; i += step) {
      const k = i - stop - 1;
      yield { start: starts[k]!, end: ends[k]!, kind: kinds[k]!, segments: [...node.segments, i] };
    }
  }

  /** The filter's queries, its absolute ones answered (once per compiled query). */
  private async prepare(selector: InstanceType<typeof FilterSelector>): Promise<{ relative: FilterExpr[]; root: FilterExpr[] }> {
    const expression = selector.expression as unknown as FilterExpr;
    let queries = queriesCache.get(expression);
    if (!queries) queriesCache.set(expression, (queries = queriesOf(expression, { relative: [], root: [] })));
    for (const q of queries.root) {
      if (rootAnswers.has(q)) continue;
      const path = (q as unknown as { path: JSONPathQuery }).path;
      rootAnswers.set(q, await nodeListOf(this.js, new StreamQuery(this.js, path, this.environment).select(), null));
      patch(q);
    }
    return queries;
  }

  /** The children of `node` that pass a filter, in document order (a window's small children tested without an await). */
  private async *filtered(selector: InstanceType<typeof FilterSelector>, node: StreamNode): AsyncGenerator<StreamNode> {
    await this.prepare(selector);
    const seen = node.kind === 'object' ? new Set<string>() : undefined;
    for await (const batch of this.js.childBatches(node)) {
      for (const ch of batch) {
        if (seen) {
          if (seen.has(ch.key as string)) continue;
          seen.add(ch.key as string);
        }
        const n = ch.node;
        const text = n.end - n.start <= this.js.smallValueBytes ? this.js.textNow(n.start, n.end) : undefined;
        const pass = text !== undefined ? this.evaluate(selector, valueOfText(text, n.start), ch.key, null) : await this.test(selector, n, ch.key);
        if (pass) yield n;
      }
    }
  }

  /** Whether `child` passes a filter, as json-p3 decides it. */
  private async test(selector: InstanceType<typeof FilterSelector>, child: StreamNode, key: Segment): Promise<boolean> {
    const queries = await this.prepare(selector);
    if (child.end - child.start <= this.js.smallValueBytes) return this.evaluate(selector, await this.js.value(child), key, null);
    // A big child: only what the filter's relative queries select is built.
    const relatives = new Map<FilterExpr, JSONPathNodeList>();
    for (const q of queries.relative) {
      const path = (q as unknown as { path: JSONPathQuery }).path;
      const sub = new StreamQuery(this.js, path, this.environment);
      relatives.set(q, await nodeListOf(this.js, sub.run(path.segments, 0, { ...child, segments: [] }), null));
      patch(q);
    }
    return this.evaluate(selector, null, key, relatives);
  }

  /** json-p3's evaluation of the filter for one child (synchronous: the answers set here are cleared before anything else runs). */
  private evaluate(
    selector: InstanceType<typeof FilterSelector>,
    currentValue: unknown,
    key: Segment,
    relatives: Map<FilterExpr, JSONPathNodeList> | null,
  ): boolean {
    relativeAnswers = relatives;
    try {
      const expression = selector.expression as unknown as FilterExpr;
      return Boolean(expression.evaluate({ environment: this.environment, currentValue, rootValue: null, currentKey: key, lazy: false }));
    } finally {
      relativeAnswers = null;
    }
  }
}

async function* one<T>(x: T): AsyncGenerator<T> {
  yield x;
}
