/**
 * JSONPath filters are no oracle for redacted values. A filter (`[?…]`) tests the
 * values of the document: `$[?search(@.secret_access_key, "^wJ")]` selects
 * something for a right prefix and nothing for a wrong one, `$..[?@ == "guess"]`
 * confirms a guess, whatever the answer's text then hides. json-p3 (and PostgreSQL,
 * for jsonb values) evaluate over the real document, so for agents a query with a
 * filter over a document that holds anything redaction hides is refused with code
 * `redacted`, before it is evaluated: the refusal depends only on the query and on
 * whether the document holds a secret, never on what the secret is. Names,
 * indexes, slices, wildcards and `..` test nothing and are answered as usual (the
 * answer redacted, redact.ts); so are filters over documents with nothing hidden.
 */
import { FolioError } from '../../engine/errors.ts';
import { compileAddress, hasFilter } from '../../engine/address/json-select.ts';
import { loadJsonFile } from '../../engine/address/json-address.ts';
import { jsonlLine } from '../read-address.ts';
import { secretLinesAround } from './redact.ts';
import { redact, type RedactionRule } from './secret-spans.ts';

/** Whether the JSON text behind `path` (or its JSON Lines line) holds anything redaction hides. */
async function holdsHidden(rules: RedactionRule[], path: string, jsonlLineNo: number | undefined): Promise<boolean> {
  const text = jsonlLineNo === undefined ? (await loadJsonFile(path)).text : (await jsonlLine(path, jsonlLineNo, {})).doc.text;
  if (redact(text, rules).count > 0) return true;
  // A key block broken over lines cannot be inside a JSON string, but a JSON Lines line may sit in one.
  return jsonlLineNo !== undefined && (await secretLinesAround(path, jsonlLineNo, jsonlLineNo, text)).size > 0;
}

/**
 * Refuse (code `redacted`) a JSONPath `expr` with a filter over the checked file or
 * value `pinned` when it holds anything hidden from agents. A malformed `expr` is
 * left to the operation's own invalid_input.
 */
export async function refuseHiddenFilter(rules: RedactionRule[], pinned: string, expr: string, jsonlLineNo?: number): Promise<void> {
  let filtered: boolean;
  try {
    filtered = hasFilter(compileAddress(expr));
  } catch {
    return;
  }
  if (!filtered || !(await holdsHidden(rules, pinned, jsonlLineNo))) return;
  throw new FolioError('redacted', `json_path "${expr}" has a filter, and this document holds values redacted from you: a filter would test them`, {
    json_path: expr,
    hint: 'address values by names, indexes, slices, wildcards or ".." (no [?…]), then filter the redacted answer yourself',
  });
}
