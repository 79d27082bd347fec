import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { JSON_LIMITS } from '../../src-main/engine/address/json-address.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';

const tmp = engineTempDir();
const H = { kind: 'human', name: 'test' } as const;
const DOC = {
  name: 'folio',
  deps: [
    { id: 1, name: 'zod', tags: ['a', 'b'] },
    { id: 2, name: 'diff', tags: [] },
  ],
  nested: { deep: { 'we/ird~key': { n: 1.5e3, ok: true, nil: null } } },
  text: 'héllo ✓',
};
const TEXT = JSON.stringify(DOC, null, 2) + '\n';
const etag = async (p: string) => (await handle('read', { path: p, head: 1 }, H)).version.etag;

/** Bytes before `start` and after `end` of the old file are the same bytes in the new one. */
function untouchedOutside(before: Buffer, after: Buffer, start: number, end: number): void {
  // Buffer.equals: toEqual on megabytes compares element by element, far too slowly.
  expect(after.subarray(0, start).equals(before.subarray(0, start))).toBe(true);
  expect(after.subarray(after.length - (before.length - end)).equals(before.subarray(end))).toBe(true);
}

describe('json_path reads', () => {
  it('reads by JSONPath (with unions for projection) and by JSON Pointer, with exact text, bytes and lines', async () => {
    const p = tmp.path('doc.json');
    writeFileSync(p, TEXT);
    const r = await handle('read', { path: p, json_path: "$.deps[*]['id','name']" }, H);
    expect(r.mode).toBe('json');
    expect(r.json!.matches.map((m) => [m.pointer, m.value])).toEqual([
      ['/deps/0/id', 1],
      ['/deps/0/name', 'zod'],
      ['/deps/1/id', 2],
      ['/deps/1/name', 'diff'],
    ]);
    const bytes = readFileSync(p);
    for (const m of r.json!.matches) expect(bytes.subarray(m.start_byte, m.end_byte).toString()).toBe(m.text);
    const ptr = await handle('read', { path: p, json_path: '/nested/deep/we~1ird~0key' }, H);
    expect(ptr.json!.matches[0]!.value).toEqual({ n: 1500, ok: true, nil: null });
    expect(ptr.content).toBe(bytes.subarray(ptr.start_byte, ptr.end_byte).toString());
    const t = await handle('read', { path: p, json_path: '$.text', tokenizer: 'o200k_base' }, H);
    expect(t.content).toBe('"héllo ✓"');
    expect(t.start_line).toBe(t.end_line);
    expect(t.tokens!.count).toBeGreaterThan(0);
  });

  it('errors: missing path (not_found, with nearest and candidates), bad syntax, invalid JSON with line and column, streamed past the cap, jsonl_line without json_path', async () => {
    const p = tmp.path('doc.json');
    writeFileSync(p, TEXT);
    await expect(handle('read', { path: p, json_path: '/nested/deep/nope' }, H)).rejects.toMatchObject({
      code: 'not_found',
      details: { nearest: '/nested/deep', candidates: ['we/ird~key'] },
    });
    await expect(handle('read', { path: p, json_path: '$.nope' }, H)).rejects.toMatchObject({ code: 'not_found' });
    await expect(handle('read', { path: p, json_path: '$.deps[0' }, H)).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(handle('read', { path: p, json_path: 'deps' }, H)).rejects.toMatchObject({ code: 'invalid_input' });
    const bad = tmp.path('bad.json');
    writeFileSync(bad, '{\n  "a": 1,\n  "b": ,\n}\n');
    await expect(handle('read', { path: bad, json_path: '$.a' }, H)).rejects.toMatchObject({ code: 'parse_error', details: { line: 3, column: 8 } });
    // Past the cap for parsing whole the document is streamed (json-stream.test.ts), not refused.
    const limit = JSON_LIMITS.maxBytes;
    JSON_LIMITS.maxBytes = 10;
    try {
      const r = await handle('read', { path: p, json_path: '$.name' }, H);
      expect(r.json!.matches[0]).toMatchObject({ pointer: '/name', value: 'folio' });
      expect(r.notes?.join(' ')).toMatch(/streamed/);
    } finally {
      JSON_LIMITS.maxBytes = limit;
    }
    await expect(handle('read', { path: p, jsonl_line: 2 }, H)).rejects.toMatchObject({ code: 'invalid_input' });
  });
});

describe('json_path is RFC 9535 JSONPath', () => {
  const STORE = {
    store: {
      book: [
        { category: 'reference', author: 'Nigel Rees', title: 'Sayings of the Century', price: 8.95 },
        { category: 'fiction', author: 'Evelyn Waugh', title: 'Sword of Honour', price: 12.99 },
        { category: 'fiction', author: 'Herman Melville', title: 'Moby Dick', isbn: '0-553-21311-3', price: 8.99 },
      ],
      bicycle: { color: 'red', price: 399 },
    },
  };
  const values = async (p: string, json_path: string) => (await handle('read', { path: p, json_path }, H)).json!.matches.map((m) => [m.pointer, m.value]);

  it('filters without parentheses, step-0 slices, unions of a wildcard and a name, escaped quotes in names', async () => {
    const p = tmp.path('store.json');
    writeFileSync(p, JSON.stringify(STORE, null, 2));
    expect(await values(p, '$..book[?@.price<10].title')).toEqual([
      ['/store/book/0/title', 'Sayings of the Century'],
      ['/store/book/2/title', 'Moby Dick'],
    ]);
    expect(await values(p, '$.store.book[?@.isbn].author')).toEqual([['/store/book/2/author', 'Herman Melville']]);
    expect(await values(p, "$.store.book[?match(@.author, 'H.*')].price")).toEqual([['/store/book/2/price', 8.99]]);
    // A zero step selects nothing (RFC 9535 §2.3.4.2.2): a valid path, so not_found rather than invalid_input.
    await expect(handle('read', { path: p, json_path: '$.store.book[1:2:0]' }, H)).rejects.toMatchObject({ code: 'not_found' });
    expect(await values(p, '$.store.book[2:0:-1].price')).toEqual([
      ['/store/book/2/price', 8.99],
      ['/store/book/1/price', 12.99],
    ]);
    const q = tmp.path('quote.json');
    writeFileSync(q, JSON.stringify({ a: 1, b: 2, "'": 'quote' }));
    expect(await values(q, "$[*,'a']")).toEqual([
      ['/a', 1],
      ['/b', 2],
      ["/'", 'quote'],
      ['/a', 1],
    ]);
    expect(await values(q, "$['\\'']")).toEqual([["/'", 'quote']]);
  });

  it('a malformed path is invalid_input with the position of the error; jsonpath-plus syntax is refused', async () => {
    const p = tmp.path('doc.json');
    writeFileSync(p, TEXT);
    const cases: [string, number][] = [
      ['$.deps[0', 8],
      ['$.deps[*][id,name]', 10],
      ['$..book[?(@.price<10)', 21],
      ['deps', 0],
      [' $.name', 0],
      ['$.name ', 7],
      ['/a/~2', 3],
    ];
    for (const [json_path, position] of cases) {
      await expect(handle('read', { path: p, json_path }, H), json_path).rejects.toMatchObject({ code: 'invalid_input', details: { json_path, position } });
    }
  });

  it('objects in document order (integer-like names too); of duplicate names the first, for reads and edits alike', async () => {
    const p = tmp.path('order.json');
    writeFileSync(p, '{"b": 1, "10": 2, "a": 3, "2": 4}\n');
    expect((await values(p, '$.*')).map(([ptr]) => ptr)).toEqual(['/b', '/10', '/a', '/2']);
    const d = tmp.path('dup.json');
    writeFileSync(d, '{"a": 1, "a": 2}\n');
    expect(await values(d, '$.a')).toEqual([['/a', 1]]);
    expect(await values(d, '$[?@ == 1]')).toEqual([['/a', 1]]);
    await handle('upsert', { path: d, target: { json: { path: '$.a', op: 'set', value: 10 } }, if_match: await etag(d) }, H);
    expect(readFileSync(d, 'utf8')).toBe('{"a": 10, "a": 2}\n');
  });

  it('a descendant segment reaches past 50 levels of nesting', async () => {
    const p = tmp.path('deep.json');
    let deep: unknown = { x: 'bottom' };
    for (let i = 0; i < 300; i++) deep = { x: i, n: deep };
    writeFileSync(p, JSON.stringify(deep));
    const r = await handle('read', { path: p, json_path: "$..[?@.x == 'bottom'].x" }, H);
    expect(r.json!.matches).toHaveLength(1);
    expect(r.json!.matches[0]!.pointer).toBe('/n'.repeat(300) + '/x');
  });
});

describe('json upserts', () => {
  it('set, insert and delete change only the text of that value: every byte outside the edit stays', async () => {
    const p = tmp.path('edit.json');
    writeFileSync(p, TEXT);
    let before = readFileSync(p);
    let u = await handle('upsert', { path: p, target: { json: { path: '$.deps[1].name', op: 'set', value: 'jsdiff' } }, if_match: await etag(p) }, H);
    untouchedOutside(before, readFileSync(p), u.range_before.start_byte, u.range_before.end_byte);
    expect(JSON.parse(readFileSync(p, 'utf8')).deps[1].name).toBe('jsdiff');
    before = readFileSync(p);
    u = await handle('upsert', { path: p, target: { json: { path: '/deps/0/tags', op: 'insert', value: 'mid', index: 1 } }, if_match: await etag(p) }, H);
    untouchedOutside(before, readFileSync(p), u.range_before.start_byte, u.range_before.end_byte);
    expect(JSON.parse(readFileSync(p, 'utf8')).deps[0].tags).toEqual(['a', 'mid', 'b']);
    before = readFileSync(p);
    u = await handle('upsert', { path: p, target: { json: { path: '$.nested.deep', op: 'delete' } }, if_match: await etag(p) }, H);
    untouchedOutside(before, readFileSync(p), u.range_before.start_byte, u.range_before.end_byte);
    expect(JSON.parse(readFileSync(p, 'utf8')).nested).toEqual({});
    await handle('upsert', { path: p, target: { json: { path: '$.added', op: 'set', value: { x: [1, 2] } } }, if_match: await etag(p) }, H);
    const now = JSON.parse(readFileSync(p, 'utf8'));
    expect(now.added).toEqual({ x: [1, 2] });
    expect(now.text).toBe('héllo ✓');
    expect(readFileSync(p, 'utf8')).toContain('\n  "added": {\n    "x": [');
  });

  it('edits through a filter or a negative index change only that value; set appends the item just past the end, not further', async () => {
    const p = tmp.path('filter-edit.json');
    writeFileSync(p, TEXT);
    let before = readFileSync(p);
    let u = await handle(
      'upsert',
      { path: p, target: { json: { path: "$.deps[?@.name == 'zod'].name", op: 'set', value: 'zod4' } }, if_match: await etag(p) },
      H,
    );
    untouchedOutside(before, readFileSync(p), u.range_before.start_byte, u.range_before.end_byte);
    expect(JSON.parse(readFileSync(p, 'utf8')).deps.map((d: { name: string }) => d.name)).toEqual(['zod4', 'diff']);
    before = readFileSync(p);
    u = await handle('upsert', { path: p, target: { json: { path: '$.deps[-1].id', op: 'set', value: 3 } }, if_match: await etag(p) }, H);
    untouchedOutside(before, readFileSync(p), u.range_before.start_byte, u.range_before.end_byte);
    expect(JSON.parse(readFileSync(p, 'utf8')).deps[1].id).toBe(3);
    await handle('upsert', { path: p, target: { json: { path: '$.deps[0].tags[2]', op: 'set', value: 'c' } }, if_match: await etag(p) }, H);
    expect(JSON.parse(readFileSync(p, 'utf8')).deps[0].tags).toEqual(['a', 'b', 'c']);
    await expect(
      handle('upsert', { path: p, target: { json: { path: '$.deps[0].tags[9]', op: 'set', value: 'z' } }, if_match: await etag(p) }, H),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(
      handle('upsert', { path: p, target: { json: { path: '$.deps.name', op: 'set', value: 'z' } }, if_match: await etag(p) }, H),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('edit errors: stale if_match, no precondition, ambiguous path, insert into a non-array, index out of bounds, missing value; nothing written', async () => {
    const p = tmp.path('err.json');
    writeFileSync(p, TEXT);
    const before = readFileSync(p);
    const e = await etag(p);
    await expect(handle('upsert', { path: p, target: { json: { path: '$.name', op: 'set', value: 1 } }, if_match: 'stale' }, H)).rejects.toMatchObject({
      code: 'precondition_failed',
      details: { failed: ['if_match'], read: { json_path: '$.name' } },
    });
    await expect(handle('upsert', { path: p, target: { json: { path: '$.name', op: 'set', value: 1 } } }, H)).rejects.toMatchObject({
      code: 'precondition_required',
    });
    await expect(handle('upsert', { path: p, target: { json: { path: '$.deps[*].id', op: 'delete' } }, if_match: e }, H)).rejects.toMatchObject({
      code: 'ambiguous',
      details: { candidates: ['/deps/0/id', '/deps/1/id'] },
    });
    await expect(handle('upsert', { path: p, target: { json: { path: '$.name', op: 'insert', value: 1 } }, if_match: e }, H)).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await expect(handle('upsert', { path: p, target: { json: { path: '$.deps', op: 'insert', value: 1, index: 9 } }, if_match: e }, H)).rejects.toMatchObject({
      code: 'out_of_bounds',
    });
    await expect(handle('upsert', { path: p, target: { json: { path: '$.name', op: 'set' } }, if_match: e }, H)).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await expect(handle('upsert', { path: p, target: { json: { path: '$.a.b.c', op: 'set', value: 1 } }, if_match: e }, H)).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(readFileSync(p)).toEqual(before);
  });

  it('a 200k-line .jsonl: read a path inside line N, edit it (anchored to that line), every other line byte-exact', async () => {
    const p = tmp.path('big.jsonl');
    const lines = Array.from({ length: 200_000 }, (_, i) => JSON.stringify({ i, user: { name: `u${i}`, roles: ['r'] }, msg: 'x'.repeat(i % 50) }));
    writeFileSync(p, lines.join('\n') + '\n');
    const r = await handle('read', { path: p, json_path: '$.user.name', jsonl_line: 150_000 }, H);
    expect(r.json!.matches[0]).toMatchObject({ pointer: '/user/name', value: 'u149999', start_line: 150_000 });
    expect(readFileSync(p).subarray(r.start_byte, r.end_byte).toString()).toBe('"u149999"');
    const before = readFileSync(p);
    const u = await handle(
      'upsert',
      { path: p, target: { json: { path: '$.user.roles', op: 'insert', value: 'admin', jsonl_line: 150_000 } }, if_match: r.version.etag },
      H,
    );
    expect(u.preconditions.checked).toContain('anchors');
    const after = readFileSync(p);
    untouchedOutside(before, after, u.range_before.start_byte, u.range_before.end_byte);
    const out = after.toString().split('\n');
    expect(JSON.parse(out[149_999]!).user.roles).toEqual(['r', 'admin']);
    expect(out.length).toBe(200_001);
    await expect(handle('read', { path: p, json_path: '$.i', jsonl_line: 300_000 }, H)).rejects.toMatchObject({ code: 'out_of_bounds' });
    writeFileSync(tmp.path('bad.jsonl'), '{"a":1}\n{"a":\n');
    await expect(handle('read', { path: tmp.path('bad.jsonl'), json_path: '$.a', jsonl_line: 2 }, H)).rejects.toMatchObject({
      code: 'parse_error',
      details: { line: 2 },
    });
  }, 180_000);
});
