/**
 * A JSON file past the 32 MiB in-memory cap, through `folio` child processes whose
 * V8 heap is capped at 24 MB (Node's own JSON.parse of the same file dies under a
 * 32 MB cap): reads by JSONPath are streamed, with values, lines and bytes checked
 * against Python's json module; an edit changes only its bytes and Python reads
 * the result; an error the scan meets is parse_error at the line and column
 * Python reports.
 */
import { spawnSync } from 'node:child_process';
import { openSync, readFileSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-json-large-');
afterAll(() => tmp.cleanup());
const BIN = join(process.cwd(), 'bin/folio.mjs');
const HEAP = '--max-old-space-size=24';
const folio = (args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache'), NODE_OPTIONS: HEAP },
  });
const python = (code: string, ...args: string[]) => {
  const r = spawnSync('python3', ['-c', code, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as unknown;
};

const ORDERS = 500_000;
const file = tmp.path('export.json');
const TAIL = '  ],\n  "tail": {"checksum": "abc"}\n}\n';

/** 35 MB: a small header, 500,000 one-line orders (some with non-ASCII notes), a tail. */
function writeExport(path: string): void {
  const fd = openSync(path, 'w');
  writeSync(fd, '{\n  "meta": {"generated": "2026-11-28", "count": 500000},\n  "orders": [\n');
  let chunk: string[] = [];
  for (let i = 0; i < ORDERS; i++) {
    const note = i % 1000 === 0 ? 'überprüfen €' : 'ok';
    chunk.push(`    {"id": ${i}, "customer": "c${i % 977}", "total": ${((i * 7919) % 100000) / 100}, "note": "${note}"}${i < ORDERS - 1 ? ',' : ''}`);
    if (chunk.length === 10_000) {
      writeSync(fd, chunk.join('\n') + '\n');
      chunk = [];
    }
  }
  if (chunk.length) writeSync(fd, chunk.join('\n') + '\n');
  writeSync(fd, TAIL);
  closeSync(fd);
}

beforeAll(() => writeExport(file));

describe('JSON past the cap, streamed in a 24 MB heap', () => {
  it('is over the cap, and Node parsing it whole under a 32 MB heap dies', () => {
    expect(readFileSync(file).length).toBeGreaterThan(32 * 1024 * 1024);
    const whole = spawnSync(process.execPath, ['--max-old-space-size=32', '-e', 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))', file], {
      encoding: 'utf8',
    });
    expect(whole.status).not.toBe(0);
  });

  it('reads give the values, lines and bytes Python finds', () => {
    const queries = ['$.tail', '$.orders[-1]', '$.orders[497123].note', '$.orders[-3:][?@ > 100]', '$.orders[499998:].customer', '/meta/count'];
    const want = python(
      String.raw`
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
o = d["orders"]
print(json.dumps([[d["tail"]], [o[-1]], [o[497123]["note"]], [v for x in o[-3:] for v in x.values() if type(v) in (int, float) and v > 100], [x["customer"] for x in o[499998:]], [d["meta"]["count"]]]))`,
      file,
    ) as unknown[][];
    const bytes = readFileSync(file);
    const lines = bytes.toString('utf8').split('\n');
    queries.forEach((q, k) => {
      const r = folio(['read', file, '--json-path', q, '--json']);
      expect(r.status, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.notes.join(' ')).toMatch(/streamed/);
      expect(out.json.matches.map((m: { value: unknown }) => m.value)).toEqual(want[k]);
      for (const m of out.json.matches) {
        // The bytes are the value's text, on the lines the answer names.
        expect(bytes.subarray(m.start_byte, m.end_byte).toString()).toBe(m.text);
        expect(lines[m.start_line - 1]).toContain(m.text.split('\n')[0]);
      }
    });
  });

  it('an edit changes only its bytes, and Python reads the new value', () => {
    const before = readFileSync(file);
    const etag = JSON.parse(folio(['read', file, '--json-path', '$.orders[400001].note', '--json']).stdout).version.etag as string;
    const u = folio(['upsert', file, '--json-path', '$.orders[400001].note', '--json-set', '"shipped ✓"', '--if-match', etag, '--json']);
    expect(u.status, u.stdout + u.stderr).toBe(0);
    const after = readFileSync(file);
    const at = before.indexOf('"id": 400001,');
    const old = Buffer.from('"note": "ok"');
    const start = before.indexOf(old, at);
    expect(after.subarray(0, start).equals(before.subarray(0, start))).toBe(true);
    expect(after.subarray(start, start + 21).toString()).toBe('"note": "shipped ✓"');
    expect(after.subarray(start + 21).equals(before.subarray(start + old.length))).toBe(true);
    expect(python('import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["orders"][400001]))', file)).toEqual({
      id: 400001,
      customer: `c${400001 % 977}`,
      total: ((400001 * 7919) % 100000) / 100,
      note: 'shipped ✓',
    });
    // A stale etag: precondition_failed, nothing written.
    const stale = folio(['upsert', file, '--json-path', '$.tail.checksum', '--json-set', '"x"', '--if-match', etag, '--json']);
    expect(stale.status).toBe(1);
    expect(JSON.parse(stale.stdout).error.code).toBe('precondition_failed');
    expect(readFileSync(file).equals(after)).toBe(true);
  });

  it('a missing comma the scan meets is parse_error at the line and column Python reports', () => {
    // The export without the comma after its orders.
    const broken = tmp.path('broken.json');
    const bytes = readFileSync(file);
    writeFileSync(broken, Buffer.concat([bytes.subarray(0, bytes.length - TAIL.length), Buffer.from(TAIL.replace('],', ']'))]));
    const py = spawnSync(
      'python3',
      ['-c', 'import json, sys\ntry: json.load(open(sys.argv[1]))\nexcept json.JSONDecodeError as e: print(e.lineno, e.colno)', broken],
      {
        encoding: 'utf8',
      },
    );
    const [line, column] = py.stdout.trim().split(' ').map(Number);
    const r = folio(['read', broken, '--json-path', '$.tail', '--json']);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'parse_error', line, column });
    // A query that never reaches it is answered.
    expect(JSON.parse(folio(['read', broken, '--json-path', '$.meta.count', '--json']).stdout).json.matches[0].value).toBe(500000);
  });
});
