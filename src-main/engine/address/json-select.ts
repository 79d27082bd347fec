/**
 * Which values of a parsed JSON document an address selects: a JSONPath query as
 * RFC 9535 defines it (json-p3, strict mode: the standard syntax and functions
 * only), or a JSON Pointer (RFC 6901). Each selected value is a node of
 * jsonc-parser's tree, so callers know its exact place in the text.
 *
 * - A singular query (names and indexes only, RFC 9535 §2.3.5.1's "singular
 *   query") walks the tree: no need to build the document's value.
 * - Any other query is evaluated by json-p3 against the document's value, built
 *   once per parsed tree; each result's location (names and indexes) leads back
 *   to its node.
 * - Objects are iterated in document order (RFC 9535 leaves member order to the
 *   implementation; a JavaScript object would put integer-like names first).
 * - Of duplicate member names (RFC 8259 §4 leaves them to the parser) the first
 *   counts, as jsonc-parser's findNodeAtLocation() and modify() see it, so what a
 *   read selects is what an edit changes.
 *
 * A malformed address is `invalid_input` with `position`: the 0-based index (in
 * UTF-16 code units) of json_path where the error was found.
 */
import {
  JSONPathEnvironment,
  JSONPathError,
  JSONPathLexerError,
  JSONPathQuery,
  JSONPathRecursionLimitError,
  TokenKind,
  jsonpath,
  type JSONValue,
} from 'json-p3';
import type { Node } from 'jsonc-parser';
import { FolioError } from '../errors.ts';

export type Segment = string | number;

/** Deepest nesting a descendant segment (`..`) visits; json-p3's default of 50 is less than real documents reach. */
export const MAX_DESCENT_DEPTH = 2000;

/** Key order of the objects the document value holds, where JavaScript's own order differs. */
const keyOrders = new WeakMap<object, string[]>();
const INTEGER_LIKE = /^(0|[1-9]\d*)$/;

/** The environment every query runs in: strict RFC 9535, objects in document order. */
class DocumentOrderEnvironment extends JSONPathEnvironment {
  override entries(obj: { [key: string]: JSONValue }): [string, JSONValue][] {
    const keys = keyOrders.get(obj);
    return keys ? keys.map((k) => [k, obj[k]!]) : Object.entries(obj);
  }
}
const environment = new DocumentOrderEnvironment({ strict: true, maxRecursionDepth: MAX_DESCENT_DEPTH });
/** The environment queries are compiled and evaluated in (json-stream.ts evaluates them too). */
export const environmentOf = (): JSONPathEnvironment => environment;

/** A node's members by name, the first of duplicates (built on first use: a big object is scanned once). */
const memberIndexes = new WeakMap<Node, Map<string, Node>>();
function memberNode(obj: Node, name: string): Node | undefined {
  let members = memberIndexes.get(obj);
  if (!members) {
    members = new Map();
    for (const p of obj.children ?? []) {
      const [k, v] = p.children ?? [];
      if (k && v && !members.has(String(k.value))) members.set(String(k.value), v);
    }
    memberIndexes.set(obj, members);
  }
  return members.get(name);
}

/** The node at `location` (names of object members, indexes of array items), or undefined. */
export function nodeAt(root: Node, location: readonly Segment[]): Node | undefined {
  let node: Node | undefined = root;
  for (const s of location) {
    if (typeof s === 'number') node = node.type === 'array' ? node.children?.[s] : undefined;
    else node = node.type === 'object' ? memberNode(node, s) : undefined;
    if (!node) return undefined;
  }
  return node;
}

/** The JavaScript value of a node (the first of duplicate names, objects remember their key order). */
export function jsonValueOf(node: Node): unknown {
  switch (node.type) {
    case 'array':
      return (node.children ?? []).map(jsonValueOf);
    case 'object': {
      const obj: Record<string, unknown> = Object.create(null);
      const keys: string[] = [];
      let reordered = false;
      for (const p of node.children ?? []) {
        const [k, v] = p.children ?? [];
        const key = String(k?.value);
        if (!v || Object.hasOwn(obj, key)) continue;
        obj[key] = jsonValueOf(v);
        keys.push(key);
        reordered ||= INTEGER_LIKE.test(key);
      }
      if (reordered) keyOrders.set(obj, keys);
      return obj;
    }
    default:
      return node.value;
  }
}

/** The document's value, built once per parsed tree (a big document's value takes a while to build). */
const values = new WeakMap<Node, unknown>();
function documentValueOf(root: Node): unknown {
  if (!values.has(root)) values.set(root, jsonValueOf(root));
  return values.get(root);
}

/** RFC 6901 pointer of segments. */
export function pointerOf(segments: readonly Segment[]): string {
  return segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

function invalidAddress(expr: string, position: number, reason: string): FolioError {
  return new FolioError('invalid_input', `json_path "${expr}" is not valid at position ${position}: ${reason}`, {
    json_path: expr,
    position,
    error: reason,
    hint: 'a JSONPath (RFC 9535) starts with "$", e.g. $.deps[*].name, $..id, $.items[?@.price < 10]; a JSON Pointer (RFC 6901) starts with "/"',
  });
}

/** A compiled address: a JSON Pointer's segments (typed by no document yet) or a JSONPath query. */
export type JsonAddress = { kind: 'pointer'; tokens: string[] } | { kind: 'path'; query: JSONPathQuery };

/** Parse `expr`: invalid_input with the position of the first error. */
export function compileAddress(expr: string): JsonAddress {
  if (expr.startsWith('/')) {
    // RFC 6901 §3: "~" is only ever followed by "0" or "1".
    const bad = /~(?![01])/.exec(expr);
    if (bad) throw invalidAddress(expr, bad.index, 'in a JSON Pointer "~" must be followed by 0 or 1 (~0 is "~", ~1 is "/")');
    return {
      kind: 'pointer',
      tokens: expr
        .slice(1)
        .split('/')
        .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~')),
    };
  }
  if (!expr.startsWith('$')) throw invalidAddress(expr, 0, 'expected "$" (JSONPath) or "/" (JSON Pointer)');
  try {
    return { kind: 'path', query: environment.compile(expr) };
  } catch (err) {
    if (!(err instanceof JSONPathError)) throw err;
    const at = err.token.index;
    // The lexer's own messages ride on an error token; json-p3 appends "('…':index)" to the others (the position goes in details).
    let reason = err.token.kind === TokenKind.ERROR ? err.token.value : err.message.replace(/ \('.*':\d+\)$/s, '');
    if (err instanceof JSONPathLexerError) reason = at >= expr.length ? 'the path ends too soon' : `unexpected '${expr[at]}'`;
    throw invalidAddress(expr, at, reason);
  }
}

export const isFilterSegment = (seg: JSONPathQuery['segments'][number]) => seg.selectors.some((sel) => sel instanceof jsonpath.selectors.FilterSelector);

/** Most nodes filterScopeOf lists before it answers 'document'. */
export const MAX_SCOPE_NODES = 1000;

/**
 * Where the filters of `address` may look (a filter, `[?…]` of RFC 9535 §2.3.5, is
 * the only part of a query that tests values: comparisons, match, search, length,
 * count). null: no filter. 'document': a filter reads the root (`$`), or the scope
 * has too many nodes to list. Else the nodes within whose subtrees every tested
 * value lies: those the segments before the first filter select. Those segments
 * (names, indexes, slices, wildcards, ..) test no value, so the scope depends on
 * the document's shape, never on what its values are.
 */
export function filterScopeOf(root: Node, address: JsonAddress): 'document' | Node[] | null {
  if (address.kind !== 'path') return null;
  const segments = address.query.segments;
  const first = segments.findIndex(isFilterSegment);
  if (first < 0) return null;
  // A filter's absolute query ($…) may test any value of the document. (A "$" inside a string literal counts too: a refusal too many, never too few.)
  if (segments.slice(first).some((seg) => isFilterSegment(seg) && seg.toString().includes('$'))) return 'document';
  if (first === 0) return [root];
  const prefix = new JSONPathQuery(environment, segments.slice(0, first));
  const nodes: Node[] = [];
  for (const n of prefix.lazyQuery(documentValueOf(root) as JSONValue)) {
    if (nodes.length === MAX_SCOPE_NODES) return 'document';
    nodes.push(nodeAt(root, n.location as Segment[])!);
  }
  return nodes;
}

/**
 * For a JSON Pointer or a singular query: the location it names, typed by the
 * document where it exists (a pointer's "0" is an index in an array, a name in an
 * object), whether or not a value is there; null for other queries.
 */
export function intendedLocation(root: Node, address: JsonAddress): Segment[] | null {
  const out: Segment[] = [];
  let node: Node | undefined = root;
  if (address.kind === 'pointer') {
    for (const t of address.tokens) {
      const isIndex: boolean = node?.type === 'array' && INTEGER_LIKE.test(t);
      out.push(isIndex ? Number(t) : t);
      node = node ? nodeAt(node, [out.at(-1)!]) : undefined;
    }
    return out;
  }
  if (!address.query.singularQuery()) return null;
  for (const segment of address.query.segments) {
    const selector = segment.selectors[0];
    if (selector instanceof jsonpath.selectors.NameSelector) out.push(selector.name);
    else if (selector instanceof jsonpath.selectors.IndexSelector) {
      // A negative index counts from the end (RFC 9535 §2.3.3.2).
      const length = node?.type === 'array' ? (node.children?.length ?? 0) : 0;
      out.push(selector.index < 0 && node?.type === 'array' ? length + selector.index : selector.index);
    }
    node = node ? nodeAt(node, [out.at(-1)!]) : undefined;
  }
  return out;
}

export interface SelectedNode {
  segments: Segment[];
  node: Node;
}

/**
 * The nodes `address` selects in document `root`, in the order RFC 9535 gives
 * them (empty when it selects nothing), at most `maxNodes` (then `more` is set).
 */
export function selectNodes(root: Node, address: JsonAddress, maxNodes: number): { nodes: SelectedNode[]; more: boolean } {
  const named = intendedLocation(root, address);
  if (named) {
    // nodeAt takes names only in objects and indexes only in arrays (RFC 9535 §2.3.1.2, §2.3.3.2).
    const node = nodeAt(root, named);
    return { nodes: node ? [{ segments: named, node }] : [], more: false };
  }
  const query = (address as { query: JSONPathQuery }).query;
  const nodes: SelectedNode[] = [];
  try {
    for (const n of query.lazyQuery(documentValueOf(root) as JSONValue)) {
      if (nodes.length === maxNodes) return { nodes, more: true };
      const segments = n.location as Segment[];
      nodes.push({ segments, node: nodeAt(root, segments)! });
    }
  } catch (err) {
    if (err instanceof JSONPathRecursionLimitError) {
      throw new FolioError('too_large', `the document nests deeper than ${MAX_DESCENT_DEPTH} levels; a descendant segment (..) stops there`, {
        limit: MAX_DESCENT_DEPTH,
        hint: 'address the deep part with a path of names and indexes, or a JSON Pointer',
      });
    }
    throw err;
  }
  return { nodes, more: false };
}
