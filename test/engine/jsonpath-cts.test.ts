/**
 * The JSONPath Compliance Test Suite (RFC 9535), run through Folio's own JSON
 * addressing: the document is written as indented JSON text, parsed as Folio
 * parses a file, and each valid selector must give the suite's values, in an
 * order the suite allows, at the suite's normalized paths (as JSON Pointers),
 * with each match's source text being that value. Each invalid selector must be
 * invalid_input with the position of the error.
 *
 * The suite is vendored in test/fixtures/data/jsonpath-cts (see its README);
 * FOLIO_JSONPATH_CTS names another cts.json to run instead.
 */
import { describe, expect, it } from 'vitest';
import { FolioError } from '../../src-main/engine/errors.ts';
import { jsonValueOf, parseJson, queryJson, type JsonMatch } from '../../src-main/engine/address/json-address.ts';
import { loadCts, pointerOfNormalizedPath } from '../fixtures/jsonpath-cts.ts';

const cases = loadCts();
const valid = cases.filter((c) => !c.invalid_selector);
const invalid = cases.filter((c) => c.invalid_selector);

/** The matches of `selector` in `document` written as indented JSON text; [] when it selects nothing. */
function matchesIn(document: unknown, selector: string): { text: string; matches: JsonMatch[] } {
  const text = JSON.stringify(document, null, 2);
  const doc = parseJson(text, { path: 'cts.json' });
  try {
    return { text, matches: queryJson(doc, selector, 'cts.json') };
  } catch (err) {
    if (err instanceof FolioError && err.code === 'not_found') return { text, matches: [] };
    throw err;
  }
}

describe('JSONPath Compliance Test Suite', () => {
  it('has the suite loaded (valid and invalid selectors)', () => {
    expect(valid.length).toBeGreaterThan(400);
    expect(invalid.length).toBeGreaterThan(200);
  });

  describe('valid selectors give the expected nodes, in an order the suite allows', () => {
    it.each(valid.map((c) => [c.name, c] as const))('%s', (_name, c) => {
      const { text, matches } = matchesIn(c.document, c.selector);
      const got = { values: matches.map((m) => jsonValueOf(m.node)), pointers: matches.map((m) => m.pointer) };
      const allowed = (c.results ?? [c.result!]).map((values, k) => ({
        values,
        pointers: (c.results_paths?.[k] ?? c.result_paths ?? []).map(pointerOfNormalizedPath),
      }));
      // One of the allowed orders, values and paths together.
      expect(allowed).toContainEqual(got);
      // Each match's source text is that value.
      for (const m of matches) expect(JSON.parse(text.slice(m.node.offset, m.node.offset + m.node.length))).toEqual(jsonValueOf(m.node));
    });
  });

  describe('invalid selectors are invalid_input with the position of the error', () => {
    it.each(invalid.map((c) => [c.name, c] as const))('%s', (_name, c) => {
      let caught: unknown;
      try {
        matchesIn({ a: [1, { b: 2 }] }, c.selector);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(FolioError);
      const e = caught as FolioError;
      expect(e.code).toBe('invalid_input');
      expect(e.details.json_path).toBe(c.selector);
      expect(Number.isInteger(e.details.position)).toBe(true);
      expect(e.details.position).toBeGreaterThanOrEqual(0);
      expect(e.details.position).toBeLessThanOrEqual(c.selector.length);
    });
  });

  it('reads normalized paths as the suite writes them', () => {
    expect(pointerOfNormalizedPath("$['a'][0]['b/c~d']['\\'']")).toBe("/a/0/b~1c~0d/'");
    expect(pointerOfNormalizedPath("$['\\u000b']")).toBe('/\u000b');
    expect(pointerOfNormalizedPath('$')).toBe('');
  });
});
