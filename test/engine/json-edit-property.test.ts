/**
 * JSON edits against a plain JavaScript oracle: on random documents (one-line and
 * indented), set, insert and delete at a random existing place give exactly the
 * value JavaScript computes, and the text stays JSON. jsonc-parser 3.3.1's modify()
 * broke this for the last item of an array when it is an array or object
 * (`[1, []]` → `[1]]`); the examples below are those cases.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { jsonEdit, parseJson, type JsonEditOp } from '../../src-main/engine/address/json-address.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { runs } from '../fixtures/effort.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Place = (string | number)[];

/** Every place below the root, with its parent's kind. */
function placesOf(value: Json, at: Place = []): Place[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => [[...at, i], ...placesOf(v, [...at, i])]);
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => [[...at, k], ...placesOf(v, [...at, k])]);
  return [];
}

const pointerOf = (place: Place) => place.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');

/** What JavaScript makes of the edit (own properties defined, never assigned: "__proto__" is a name like any other). */
function oracle(doc: Json, place: Place, edit: JsonEditOp): Json {
  const copy = JSON.parse(JSON.stringify(doc)) as Json;
  const parent = place.slice(0, -1).reduce<Json>((node, s) => (node as Record<string | number, Json>)[s]!, copy) as Json[] | Record<string, Json>;
  const last = place[place.length - 1]!;
  if (edit.op === 'delete') {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last as string];
  } else if (edit.op === 'insert') {
    const array = (parent as Record<string | number, Json>)[last] as Json[];
    array.splice(edit.index ?? array.length, 0, edit.value as Json);
  } else if (Array.isArray(parent)) {
    parent[last as number] = edit.value as Json;
  } else {
    Object.defineProperty(parent, last, { value: edit.value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

function applied(text: string, place: Place, edit: JsonEditOp): string {
  const e = jsonEdit(parseJson(text, { path: 'doc.json' }), pointerOf(place), edit, 'doc.json');
  return text.slice(0, e.start) + e.replacement + text.slice(e.end);
}

const docs = fc
  .tuple(
    fc.oneof(
      fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: 1, maxLength: 6 }),
      fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }), { minKeys: 1 }),
    ),
    fc.constantFrom(0, 2, '\t'),
  )
  .map(([value, indent]) => ({ value: JSON.parse(JSON.stringify(value)) as Json, indent }));

describe('json edits equal what JavaScript computes, and the text stays JSON', () => {
  it.each([
    ['[1, []]', [1]],
    ['[1, {}]', [1]],
    ['{"a": [1, {"b": 2}]}', ['a', 1]],
    ['[1, [2]]', [1]],
    ['[[]]', [0]],
  ] as [string, Place][])('delete in %s at %j', (text, place) => {
    const after = applied(text, place, { op: 'delete' });
    expect(JSON.parse(after)).toEqual(oracle(JSON.parse(text) as Json, place, { op: 'delete' }));
  });

  it('random documents, random places, set / insert / delete (fast-check)', () => {
    fc.assert(
      fc.property(
        docs,
        fc.nat(),
        fc.constantFrom('set', 'insert', 'delete'),
        fc.jsonValue({ maxDepth: 2 }),
        fc.nat(),
        ({ value, indent }, pick, kind, newValue, at) => {
          const places = placesOf(value);
          fc.pre(places.length > 0);
          const place = places[pick % places.length]!;
          const target = place.reduce<Json>((node, s) => (node as Record<string | number, Json>)[s]!, value);
          const fresh = JSON.parse(JSON.stringify(newValue)) as Json;
          let edit: JsonEditOp;
          if (kind === 'insert') {
            fc.pre(Array.isArray(target));
            edit = { op: 'insert', value: fresh, index: at % ((target as Json[]).length + 1) };
          } else edit = kind === 'set' ? { op: 'set', value: fresh } : { op: 'delete' };
          const text = JSON.stringify(value, null, indent);
          expect(JSON.parse(applied(text, place, edit))).toEqual(oracle(value, place, edit));
        },
      ),
      runs(600),
    );
  });

  it('through the operation table on a real file: deleting the last item, an object, leaves valid JSON', async () => {
    const tmp = engineTempDir();
    const p = tmp.path('list.json');
    writeFileSync(p, '{"items": [1, {"id": 2}]}\n');
    const H = { kind: 'human', name: 'test' } as const;
    const etag = (await handle('read', { path: p, head: 1 }, H)).version.etag;
    await handle('upsert', { path: p, target: { json: { path: '$.items[1]', op: 'delete' } }, if_match: etag }, H);
    expect(readFileSync(p, 'utf8')).toBe('{"items": [1]}\n');
  });
});
