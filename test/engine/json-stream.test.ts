/**
 * JSON past the in-memory cap is streamed (engine/address/json-stream.ts,
 * json-large.ts). The streamed path must answer exactly as the in-memory one:
 * - the JSONPath Compliance Test Suite through both, same nodes in the same order,
 *   with blocks of a few bytes (every token crosses a block edge) and with every
 *   filter child treated as too big to build (filters answered from their queries);
 * - thousands of generated edits (set, new member, past-the-end item, insert,
 *   delete; indented by 2, 4, tabs, one line, CRLF; non-ASCII text) through both,
 *   same bytes replaced by the same text, same errors;
 * - reads and edits of real files through the operation table with the cap
 *   lowered: same matches, lines and bytes; parse_error with line and column.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { FolioError } from '../../src-main/engine/errors.ts';
import { JSON_LIMITS, jsonEdit, jsonValueOf, locate, parseJson, queryJson, type JsonEditOp } from '../../src-main/engine/address/json-address.ts';
import { JsonStream } from '../../src-main/engine/address/json-stream.ts';
import { largeJsonEdit, queryLargeJson, type LargeJson } from '../../src-main/engine/address/json-large.ts';
import { loadCts } from '../fixtures/jsonpath-cts.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { prng } from '../fixtures/generate.ts';

const tmp = engineTempDir();
const H = { kind: 'human', name: 'test' } as const;

/** A document held in memory, streamed in blocks of `blockBytes`. */
function streamed(text: string, blockBytes: number, smallValueBytes?: number): LargeJson {
  const buf = Buffer.from(text);
  const js = new JsonStream({ readAt: async (o, l) => buf.subarray(o, o + l) }, 0, buf.length, {
    blockBytes,
    maxValueBytes: 1 << 20,
    ...(smallValueBytes !== undefined ? { smallValueBytes } : {}),
  });
  return { js, path: 'doc.json', where: async () => ({ line: 0, column: 0 }) };
}

const outcome = async (fn: () => Promise<unknown> | unknown): Promise<unknown> => {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof FolioError) return { code: err.code, message: err.message, details: err.details };
    throw err;
  }
};

describe('the compliance suite gives the same nodes streamed as in memory', () => {
  const cases = loadCts().filter((c) => !c.invalid_selector);
  it.each([
    ['blocks of 7 bytes, filters on built values', 7, undefined],
    ['blocks of 3 bytes, every filter child "too big to build"', 3, 0],
    ['1 MiB blocks', 1 << 20, undefined],
  ] as const)('%s', async (_name, blockBytes, small) => {
    expect(cases.length).toBeGreaterThan(400);
    let compared = 0;
    for (const c of cases) {
      const text = JSON.stringify(c.document, null, 2);
      const want = await outcome(() => queryJson(parseJson(text, { path: 'doc.json' }), c.selector, 'doc.json').map((m) => [m.pointer, jsonValueOf(m.node)]));
      const doc = streamed(text, blockBytes, small);
      const got = await outcome(async () => {
        const out: unknown[] = [];
        for (const m of await queryLargeJson(doc, c.selector, JSON_LIMITS.maxMatches)) {
          // Each node's bytes are its value's text.
          expect(JSON.parse(Buffer.from(text).subarray(m.node.start, m.node.end).toString())).toEqual(JSON.parse(JSON.stringify(await doc.js.value(m.node))));
          out.push([m.pointer, await doc.js.value(m.node)]);
        }
        return out;
      });
      expect({ selector: c.selector, got }).toEqual({ selector: c.selector, got: want });
      compared++;
    }
    expect(compared).toBe(cases.length);
  });
});

describe('edits are the same bytes streamed as in memory', () => {
  it('2,000 generated edits in five layouts: same replacement, same errors', async () => {
    const rand = prng(11);
    const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)]!;
    const gen = (d: number): unknown => {
      const r = rand();
      if (d > 3 || r < 0.3) return pick([1, 'é"x', null, true, 'ß€😀', -2.5, 'plain']);
      if (r < 0.65) return Array.from({ length: Math.floor(rand() * 4) }, () => gen(d + 1));
      const o: Record<string, unknown> = {};
      for (let i = 0, n = Math.floor(rand() * 4); i < n; i++) o[pick(['a', 'b', 'ké', 'd/e', 'x~y'])] = gen(d + 1);
      return o;
    };
    const paths = (v: unknown, at: string[] = []): string[][] => {
      const out = [at];
      if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...at, String(i)])));
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...at, k]));
      return out;
    };
    const seen = { ok: 0, errors: 0 };
    for (let t = 0; t < 2000; t++) {
      const value = { root: gen(0), list: [gen(1), gen(1)] };
      const layout = pick(['2', '4', 'tab', 'one line', 'crlf'] as const);
      let text = layout === 'one line' ? JSON.stringify(value) : JSON.stringify(value, null, layout === '4' ? 4 : layout === 'tab' ? '\t' : 2);
      if (layout === 'crlf') text = text.replace(/\n/g, '\r\n');
      if (rand() < 0.3) text += '\n';
      const at = pick(paths(value));
      const pointer = at.map((s) => '/' + s.replace(/~/g, '~0').replace(/\//g, '~1')).join('');
      const kind = pick(['set', 'new member', 'past the end', 'insert', 'delete'] as const);
      let expr = pointer || '$';
      let op: JsonEditOp;
      if (kind === 'set') op = { op: 'set', value: gen(2) };
      else if (kind === 'new member') {
        expr = pointer + '/new€';
        op = { op: 'set', value: gen(2) };
      } else if (kind === 'past the end') {
        const there = at.reduce<unknown>((v, s) => (v as Record<string, unknown> | undefined)?.[s], value);
        expr = `${pointer}/${Array.isArray(there) ? there.length : 0}`;
        op = { op: 'set', value: gen(2) };
      } else if (kind === 'insert') op = { op: 'insert', value: gen(2), ...(rand() < 0.5 ? { index: Math.floor(rand() * 3) } : {}) };
      else op = { op: 'delete' };
      const want = await outcome(() => {
        const e = jsonEdit(parseJson(text, { path: 'doc.json' }), expr, op, 'doc.json');
        const [a, b] = locate(text, [e.start, e.end]);
        return [a!.byte, b!.byte, e.replacement, e.pointer];
      });
      const got = await outcome(async () => {
        const e = await largeJsonEdit(streamed(text, 5), expr, op, JSON_LIMITS.maxMatches);
        return [e.start, e.end, e.replacement, e.pointer];
      });
      expect({ text, expr, op, got }).toEqual({ text, expr, op, got: want });
      if (Array.isArray(want)) seen.ok++;
      else seen.errors++;
    }
    // Both kinds of outcome were compared many times.
    expect(seen.ok).toBeGreaterThan(800);
    expect(seen.errors).toBeGreaterThan(200);
  });
});

describe('files past the cap, through the operation table', () => {
  const DOC = {
    name: 'folio',
    orders: Array.from({ length: 300 }, (_, i) => ({ id: i, total: (i * 37) % 101, note: i % 50 ? 'ok' : 'überprüfen ✓', tags: i % 3 ? ['a'] : [] })),
    tail: { checksum: 'abc' },
  };
  const TEXT = JSON.stringify(DOC, null, 2) + '\n';

  /** Run `fn` with the in-memory cap at `bytes` (streamed above it). */
  async function withCap<T>(bytes: number, fn: () => Promise<T>): Promise<T> {
    const cap = JSON_LIMITS.maxBytes;
    JSON_LIMITS.maxBytes = bytes;
    try {
      return await fn();
    } finally {
      JSON_LIMITS.maxBytes = cap;
    }
  }

  it('reads give the same matches, lines and bytes streamed as in memory, and say they were streamed', async () => {
    for (const [name, text] of [
      ['plain', TEXT],
      ['BOM and CRLF', '\ufeff' + TEXT.replace(/\n/g, '\r\n')],
    ] as const) {
      const p = tmp.path(`orders-${name.replace(/ /g, '-')}.json`);
      writeFileSync(p, text);
      for (const q of ['$.tail', '$.orders[-1]', '$.orders[?@.total > 95].id', '$..note', '/orders/7/tags', '$.orders[290:]', '$.orders[::-97].id']) {
        const whole = await handle('read', { path: p, json_path: q }, H);
        const part = await withCap(1000, () => handle('read', { path: p, json_path: q }, H));
        expect(part.json).toEqual(whole.json);
        expect([part.start_line, part.end_line, part.start_byte, part.end_byte, part.content]).toEqual([
          whole.start_line,
          whole.end_line,
          whole.start_byte,
          whole.end_byte,
          whole.content,
        ]);
        expect(part.notes?.join(' ')).toMatch(/streamed/);
        const bytes = readFileSync(p);
        for (const m of part.json!.matches) if ('text' in m) expect(bytes.subarray(m.start_byte, m.end_byte).toString()).toBe(m.text);
      }
      const missing = await withCap(1000, () => outcome(() => handle('read', { path: p, json_path: '/orders/7/nope' }, H)));
      expect(missing).toMatchObject({ code: 'not_found', details: { nearest: '/orders/7', candidates: ['id', 'total', 'note', 'tags'] } });
    }
  });

  it('edits write the same bytes streamed as in memory; a stale etag writes nothing', async () => {
    const a = tmp.path('edit-a.json');
    const b = tmp.path('edit-b.json');
    const edits = [
      { path: '$.orders[3].total', op: 'set', value: { amount: 1, currency: 'EUR' } },
      { path: '$.tail.added', op: 'set', value: [1, 2] },
      { path: '$.orders[0].tags', op: 'insert', value: 'first', index: 0 },
      { path: '/orders/299', op: 'delete' },
      { path: '$.name', op: 'delete' },
    ] as const;
    writeFileSync(a, TEXT);
    writeFileSync(b, TEXT);
    for (const target of edits) {
      const etagOf = async (p: string) => (await handle('read', { path: p, head: 1 }, H)).version.etag;
      await handle('upsert', { path: a, target: { json: target }, if_match: await etagOf(a) }, H);
      await withCap(1000, async () => handle('upsert', { path: b, target: { json: target }, if_match: await etagOf(b) }, H));
      expect(readFileSync(b, 'utf8')).toBe(readFileSync(a, 'utf8'));
    }
    const before = readFileSync(b);
    const stale = await withCap(1000, () =>
      outcome(() => handle('upsert', { path: b, target: { json: { path: '$.tail.checksum', op: 'set', value: 'x' } }, if_match: 'stale' }, H)),
    );
    expect(stale).toMatchObject({ code: 'precondition_failed' });
    expect(readFileSync(b).equals(before)).toBe(true);
  });

  it('a JSON Lines line past the cap is streamed: the same answer and the same edit as parsed whole', async () => {
    const lines = [JSON.stringify({ n: 1 }), JSON.stringify(DOC), JSON.stringify({ n: 3 })];
    const a = tmp.path('big-line-a.jsonl');
    const b = tmp.path('big-line-b.jsonl');
    writeFileSync(a, lines.join('\n') + '\n');
    writeFileSync(b, lines.join('\n') + '\n');
    const q = { path: a, jsonl_line: 2, json_path: '$.orders[?@.total > 98]' };
    const whole = await handle('read', q, H);
    const part = await withCap(1000, () => handle('read', q, H));
    expect(part.json).toEqual(whole.json);
    expect(part.notes?.join(' ')).toMatch(/streamed: line 2 is \d+ bytes/);
    expect(part.json!.matches[0]!.start_line).toBe(2);
    const target = { json: { path: '$.orders[5].note', op: 'set', value: 'changed', jsonl_line: 2 } } as const;
    const etagOf = async (p: string) => (await handle('read', { path: p, head: 1 }, H)).version.etag;
    await handle('upsert', { path: a, target, if_match: await etagOf(a) }, H);
    await withCap(1000, async () => handle('upsert', { path: b, target, if_match: await etagOf(b) }, H));
    expect(readFileSync(b, 'utf8')).toBe(readFileSync(a, 'utf8'));
    expect(JSON.parse(readFileSync(b, 'utf8').split('\n')[1]!).orders[5].note).toBe('changed');
  });

  it('text that is not JSON where the scan reaches it is parse_error with line and column; before it, answers still come', async () => {
    const p = tmp.path('broken.json');
    // A member without its comma, on the level a query walks.
    writeFileSync(p, '{\n  "a": 1,\n  "b": [1, 2]\n  "c": 3\n}\n');
    await withCap(10, async () => {
      expect((await handle('read', { path: p, json_path: '$.a' }, H)).json!.matches[0]).toMatchObject({ value: 1 });
      expect(await outcome(() => handle('read', { path: p, json_path: '$.c' }, H))).toMatchObject({
        code: 'parse_error',
        details: { line: 4, column: 3, byte: 28 },
      });
      const before = readFileSync(p);
      const etag = (await handle('read', { path: p, head: 1 }, H)).version.etag;
      expect(await outcome(() => handle('upsert', { path: p, target: { json: { path: '$.c', op: 'set', value: 4 } }, if_match: etag }, H))).toMatchObject({
        code: 'parse_error',
      });
      expect(readFileSync(p).equals(before)).toBe(true);
    });
    // Brackets that do not match, inside a value a query skips over.
    writeFileSync(p, '{"a": [1, {"x": 2]], "b": 1}');
    await withCap(5, async () => {
      expect(await outcome(() => handle('read', { path: p, json_path: '$.b' }, H))).toMatchObject({ code: 'parse_error', details: { line: 1, column: 18 } });
    });
  });
});
