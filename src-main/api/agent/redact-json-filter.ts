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
import { compileAddress, filterScopeOf, jsonValueOf } from '../../engine/address/json-select.ts';
import { loadJsonFile, type JsonDoc } from '../../engine/address/json-address.ts';
import { jsonlLine } from '../read-address.ts';
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
  const doc = jsonlLineNo === undefined ? await loadJsonFile(pinned) : (await jsonlLine(pinned, jsonlLineNo, {})).doc;
  const scope = filterScopeOf(doc.root, address);
  if (!scope) return;
  const hidden =
    (scope === 'document' ? [doc.root] : scope).some((n) => holdsHidden(rules, doc, n)) ||
    // A JSON Lines line may sit inside a key block of the file.
    (jsonlLineNo !== undefined && (await secretLinesAround(pinned, jsonlLineNo, jsonlLineNo, doc.text)).size > 0);
  if (!hidden) return;
  throw new FolioError('redacted', `json_path "${expr}" has a filter that would test values redacted from you`, {
    json_path: expr,
    hint: 'filter a part of the document without secrets (e.g. $.items[?…]), or address values by names, indexes, wildcards or ".." and filter the redacted answer yourself',
  });
}
