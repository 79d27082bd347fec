/**
 * JSONPath filters are no oracle for redacted values. A filter (`[?…]`) tests the
 * values of the document: `$[?search(@.secret_access_key, "^wJ")]` selects
 * something for a right prefix and nothing for a wrong one, `$..[?@ == "guess"]`
 * confirms a guess, whatever the answer's text then hides. json-p3 (and PostgreSQL,
 * for jsonb values) evaluate over the real document, so for agents a query whose
 * filters may test a hidden value is refused with code `redacted`, before it is
 * evaluated.
 *
 * What a filter may test is its scope (json-select.ts filterScopeOf): the subtrees
 * of the nodes the segments before the first filter select, or the whole document
 * when a filter reads `$`. The query is refused when anything in the scope is
 * hidden from agents: text on the scope's whole lines that the rules mask, or a
 * value that a read's `json` answer would hide by its key (redactJsonValue). Both
 * depend on where secrets are and on the query, never on what a secret is, so a
 * right guess and a wrong one get the same answer. `$.items[?@.price > 10]` over a
 * file whose only secret is elsewhere is answered as usual.
 */
import type { Node } from 'jsonc-parser';
import { FolioError } from '../../engine/errors.ts';
import { compileAddress, filterScopeOf, jsonValueOf, type JsonAddress } from '../../engine/address/json-select.ts';
import type { JsonStream, StreamNode } from '../../engine/address/json-stream.ts';
import { textVersionOf } from '../../engine/read/text-version.ts';
import { loadJsonFile, type JsonDoc } from '../../engine/address/json-address.ts';
import { jsonlLine, LineTooLarge } from '../read-address.ts';
import { redactJsonValue, secretLinesAround } from './redact.ts';
import { secretSpansOf, type RedactionRule } from './secret-spans.ts';

/** The name of the member whose value `node` is, if it is one. */
const keyOf = (node: Node): string | undefined => (node.parent?.type === 'property' ? String(node.parent.children?.[0]?.value) : undefined);

/**
 * Whether anything inside `node` is hidden from agents as a read of it would hide
 * it: a secret span of its whole lines that reaches into its text (a one-line
 * document's other members do not count), or a value hidden by its key
 * (redactJsonValue).
 */
function holdsHidden(rules: RedactionRule[], doc: JsonDoc, node: Node): boolean {
  const start = node.offset;
  const end = node.offset + node.length;
  let lineStart = doc.text.lastIndexOf('\n', start - 1) + 1;
  while (lineStart < end) {
    const nl = doc.text.indexOf('\n', lineStart);
    const lineEnd = nl < 0 ? doc.text.length : nl;
    const line = doc.text.slice(lineStart, lineEnd).replace(/\r$/, '');
    if (secretSpansOf(line, rules).some((sp) => lineStart + sp.start < end && lineStart + sp.end > start)) return true;
    if (nl < 0) break;
    lineStart = nl + 1;
  }
  const value = jsonValueOf(node);
  return JSON.stringify(redactJsonValue(rules, value, keyOf(node))) !== JSON.stringify(value);
}

/**
 * Refuse (code `redacted`) a JSONPath `expr` whose filters may test a value hidden
 * from agents in the checked file or value `pinned` (its JSON Lines line
 * `jsonlLineNo`). A malformed `expr` is left to the operation's own invalid_input.
 */
export async function refuseHiddenFilter(rules: RedactionRule[], pinned: string, expr: string, jsonlLineNo?: number): Promise<void> {
  let address: ReturnType<typeof compileAddress>;
  try {
    address = compileAddress(expr);
  } catch {
    return;
  }
  if (address.kind !== 'path' || !address.query.segments.some((seg) => seg.toString().includes('?'))) return;
  if (jsonlLineNo === undefined) {
    const large = await largeHidden(rules, pinned, address);
    if (large) throw refusal(expr);
    if (large === false) return;
  }
  let doc: JsonDoc;
  try {
    doc = jsonlLineNo === undefined ? await loadJsonFile(pinned) : (await jsonlLine(pinned, jsonlLineNo, {})).doc;
  } catch (err) {
    if (!(err instanceof LineTooLarge)) throw err;
    // A JSON Lines line past the cap: streamed like a big file.
    if (await largeHidden(rules, pinned, address, jsonlLineNo)) throw refusal(expr);
    return;
  }
  const scope = filterScopeOf(doc.root, address);
  if (!scope) return;
  const hidden =
    (scope === 'document' ? [doc.root] : scope).some((n) => holdsHidden(rules, doc, n)) ||
    // A JSON Lines line may sit inside a key block of the file.
    (jsonlLineNo !== undefined && (await secretLinesAround(pinned, jsonlLineNo, jsonlLineNo, doc.text)).size > 0);
  if (hidden) throw refusal(expr);
}

const refusal = (expr: string) =>
  new FolioError('redacted', `json_path "${expr}" has a filter that would test values redacted from you`, {
    json_path: expr,
    hint: 'filter a part of the document without secrets (e.g. $.items[?…]), or address values by names, indexes, wildcards or ".." and filter the redacted answer yourself',
  });

/**
 * For a JSON file past the in-memory cap (streamed): whether the filter scope
 * holds anything hidden; null for a file parsed whole (checked as above). The
 * scope is read in windows of whole lines (a longer line in overlapping windows):
 * a secret span on its lines, as holdsHidden looks; and, for what a key hides
 * (redactJsonValue), a member whose value is an array under a name that would
 * hide a random-looking value (its items may sit on lines without the name):
 * a refusal too many at worst, never one too few.
 */
async function largeHidden(rules: RedactionRule[], pinned: string, address: JsonAddress, jsonlLineNo?: number): Promise<boolean | null> {
  const { isLargeJson, streamFilterScope, withLargeJson } = await import('../../engine/address/json-large.ts');
  if (jsonlLineNo === undefined && !isLargeJson(await textVersionOf(pinned))) return null;
  const { result } = await withLargeJson(
    pinned,
    async (doc) => {
      const scope = await streamFilterScope(doc, address);
      if (!scope) return false;
      const nodes = scope === 'document' ? [await doc.js.ended(await doc.js.root())] : scope;
      for (const n of nodes) if (await streamedHoldsHidden(rules, doc.js, n)) return true;
      return false;
    },
    jsonlLineNo,
  );
  return result;
}

const WINDOW_BYTES = 1 << 20;
const OVERLAP_BYTES = 4096;
const ARRAY_MEMBER = /"((?:[^"\\\n]|\\.){1,200})"\s*:\s*\[/g;
/** A value every key-based rule would hide (16+ characters, letters and digits, high entropy). */
const RANDOM_LOOKING = '"Zx9Qm2Lk7Vb4Np8Rt6Wy3Hs5"';

async function streamedHoldsHidden(rules: RedactionRule[], js: JsonStream, node: StreamNode): Promise<boolean> {
  const isLf = (c: number) => c === 0x0a;
  const from = await js.scanBack(node.start, isLf);
  const to = await js.scanForward(node.end, isLf);
  const names = new Map<string, boolean>();
  for (let p = from; p < to;) {
    let q = Math.min(to, p + WINDOW_BYTES);
    let whole = true;
    if (q < to) {
      const cut = await js.scanBack(q, isLf);
      if (cut > p) q = cut;
      else whole = false; // one line longer than the window
    }
    const text = await js.text(p, q);
    let lineByte = p;
    for (const raw of text.split('\n')) {
      const line = raw.replace(/\r$/, '');
      const bytes = Buffer.byteLength(raw) + 1;
      const inside = lineByte >= node.start && lineByte + bytes - 1 <= node.end;
      for (const sp of secretSpansOf(line, rules)) {
        if (inside) return true;
        const a = lineByte + Buffer.byteLength(line.slice(0, sp.start));
        const b = lineByte + Buffer.byteLength(line.slice(0, sp.end));
        if (a < node.end && b > node.start) return true;
      }
      lineByte += bytes;
    }
    for (const m of text.matchAll(ARRAY_MEMBER)) {
      const name = m[1]!;
      if (!names.has(name)) names.set(name, secretSpansOf(`"${name}": ${RANDOM_LOOKING}`, rules).length > 0);
      if (names.get(name)) return true;
    }
    p = whole ? q : q - OVERLAP_BYTES;
  }
  return false;
}
