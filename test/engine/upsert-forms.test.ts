/**
 * The edit forms agents use elsewhere, in the engine: several edits in one call
 * (all or nothing, placed on one version), append that adds lines, create
 * (if_none_match "*"), whole-file replace, and a precondition failure that carries
 * the current text with anchors so the retry needs no read.
 *
 * Multi-edit results are checked against an independent model: the edits applied
 * to the file's lines from the last to the first, in plain JavaScript.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFolioError } from '../../src-main/engine/errors.ts';
import { read } from '../../src-main/engine/read/read.ts';
import { upsert, type UpsertEdit, type UpsertRequest } from '../../src-main/engine/write/upsert.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { runs } from '../fixtures/effort.ts';

const tmp = engineTempDir();
let n = 0;
function file(content: string): string {
  const p = tmp.path(`f${n++}.txt`);
  writeFileSync(p, content);
  return p;
}
const etag = async (p: string) => (await read(p, { mode: 'head', lines: 0 })).version.etag;

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string; details: Record<string, unknown> }> {
  try {
    await p;
  } catch (err) {
    if (isFolioError(err)) return { code: err.code, message: err.message, details: err.details };
    throw err;
  }
  throw new Error('expected a FolioError');
}

async function multi(p: string, edits: UpsertEdit[], extra: Partial<UpsertRequest> = {}) {
  return upsert(p, { target: edits[0]!.target, content: edits[0]!.content, edits, preconditions: { ifMatch: await etag(p) }, ...extra });
}

/** The model: line edits applied to an array of lines, last first, so each keeps the numbers of the version read. */
function modelOf(lines: string[], edits: { kind: 'replace' | 'delete' | 'insert'; start: number; end: number; text: string[] }[]): string[] {
  const out = [...lines];
  // From the last line up; at one line the replace or delete first, then the inserts before it (the last given first).
  const order = edits
    .map((e, i) => ({ e, i }))
    .sort((a, b) => b.e.start - a.e.start || Number(a.e.kind === 'insert') - Number(b.e.kind === 'insert') || b.i - a.i);
  for (const { e } of order) {
    if (e.kind === 'insert') out.splice(e.start - 1, 0, ...e.text);
    else out.splice(e.start - 1, e.end - e.start + 1, ...(e.kind === 'replace' ? e.text : []));
  }
  return out;
}

describe('several edits in one call', () => {
  it('applies replace, insert and delete placed on the same version, and reports each hunk', async () => {
    const p = file('l1\nl2\nl3\nl4\nl5\nl6\n');
    const r = await multi(p, [
      { target: { kind: 'replace', start: 5, end: 5, units: 'lines' }, content: 'five' },
      { target: { kind: 'insert', at: 1, units: 'lines' }, content: 'zero' },
      { target: { kind: 'delete', start: 2, end: 3, units: 'lines' }, content: '' },
    ]);
    expect(readFileSync(p, 'utf8')).toBe('zero\nl1\nl4\nfive\nl6\n');
    expect(r.hunks?.map((h) => h.edit)).toEqual([1, 2, 0]);
    expect(r.hunks?.[2]).toMatchObject({ range_before: { start_line: 5, end_line: 5 }, range_after: { start_line: 4, end_line: 4 } });
    expect(r.affected.lines).toEqual({ removed: 3, inserted: 2 });
    expect(r.preview).toContain('+five');
    expect(r.preview).toContain('-l2');
  });

  it('refuses overlapping edits with invalid_range naming the pair, and writes nothing', async () => {
    const p = file('a\nb\nc\nd\n');
    const before = readFileSync(p, 'utf8');
    const f = await failure(
      multi(p, [
        { target: { kind: 'replace', start: 1, end: 1, units: 'lines' }, content: 'A' },
        { target: { kind: 'replace', start: 2, end: 3, units: 'lines' }, content: 'B' },
        { target: { kind: 'delete', start: 3, end: 4, units: 'lines' }, content: '' },
      ]),
    );
    expect(f.code).toBe('invalid_range');
    expect(f.details.edits).toEqual([1, 2]);
    expect(f.message).toContain('edits[1] (lines 2-3) and edits[2] (lines 3-4) overlap');
    expect(readFileSync(p, 'utf8')).toBe(before);
  });

  it('is all or nothing: one edit out of bounds writes none of them', async () => {
    const p = file('a\nb\n');
    const f = await failure(
      multi(p, [
        { target: { kind: 'replace', start: 1, end: 1, units: 'lines' }, content: 'A' },
        { target: { kind: 'replace', start: 7, end: 8, units: 'lines' }, content: 'B' },
      ]),
    );
    expect(f.code).toBe('out_of_bounds');
    expect(f.details.edit).toBe(1);
    expect(readFileSync(p, 'utf8')).toBe('a\nb\n');
  });

  it('matches the model for random non-overlapping line edits', { timeout: 180_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 40 }),
        fc.array(
          fc.record({
            kind: fc.constantFrom('replace' as const, 'delete' as const, 'insert' as const),
            a: fc.nat(),
            len: fc.nat({ max: 3 }),
            text: fc.array(fc.stringMatching(/^[a-z ]{0,6}$/), { minLength: 1, maxLength: 3 }),
          }),
          {
            minLength: 1,
            maxLength: 8,
          },
        ),
        async (total, raw) => {
          const lines = Array.from({ length: total }, (_, i) => `line ${i + 1}`);
          // Keep edits that do not overlap the ones kept before (the engine refuses those; that is tested above).
          const taken: [number, number][] = [];
          const edits = raw.flatMap((e) => {
            const start = (e.a % (total + (e.kind === 'insert' ? 1 : 0))) + 1;
            const end = e.kind === 'insert' ? start - 1 : Math.min(total, start + e.len);
            const span: [number, number] = e.kind === 'insert' ? [start - 0.5, start - 0.5] : [start, end];
            if (taken.some(([a, b]) => span[0] <= b && a <= span[1])) return [];
            taken.push(span);
            return [{ kind: e.kind, start, end, text: e.text }];
          });
          const p = file(lines.map((l) => `${l}\n`).join(''));
          await multi(
            p,
            edits.map((e) => ({
              target:
                e.kind === 'insert'
                  ? { kind: 'insert' as const, at: e.start, units: 'lines' as const }
                  : { kind: e.kind, start: e.start, end: e.end, units: 'lines' as const },
              content: e.kind === 'delete' ? '' : e.text.map((t) => `${t}\n`).join(''),
            })),
          );
          const want = modelOf(lines, edits);
          expect(readFileSync(p, 'utf8')).toBe(want.map((l) => `${l}\n`).join(''));
        },
      ),
      runs(60),
    );
  });
});

describe('append adds lines', () => {
  const append = async (p: string, content: string, units?: 'bytes') =>
    upsert(p, { target: units ? { kind: 'append', units } : { kind: 'append' }, content, preconditions: { ifMatch: await etag(p) } });

  it('a\\nb\\n + c + d is a\\nb\\nc\\nd\\n; a file without a final newline gets one before the new line', async () => {
    const p = file('a\nb\n');
    await append(p, 'c');
    await append(p, 'd');
    expect(readFileSync(p, 'utf8')).toBe('a\nb\nc\nd\n');
    const q = file('a\nb');
    await append(q, 'c\n');
    expect(readFileSync(q, 'utf8')).toBe('a\nb\nc\n');
  });

  it('keeps a CRLF file CRLF, and writes bytes exactly in byte units', async () => {
    const p = file('a\r\nb\r\n');
    await append(p, 'c');
    expect(readFileSync(p, 'utf8')).toBe('a\r\nb\r\nc\r\n');
    const q = file('x');
    await append(q, 'y', 'bytes');
    expect(readFileSync(q, 'utf8')).toBe('xy');
  });
});

describe('create: if_none_match "*"', () => {
  it('creates a new file with its text, and refuses when anything is there (a file or a symlink)', async () => {
    const p = tmp.path('new-one.md');
    const r = await upsert(p, { target: { kind: 'whole' }, content: '# Title\n\nbody\n', preconditions: { ifNoneMatch: '*' } });
    expect(r.created).toBe(true);
    expect(readFileSync(p, 'utf8')).toBe('# Title\n\nbody\n');
    const again = await failure(upsert(p, { target: { kind: 'whole' }, content: 'x', preconditions: { ifNoneMatch: '*' } }));
    expect(again.code).toBe('precondition_failed');
    expect(again.details.failed).toEqual(['if_none_match']);
    expect(readFileSync(p, 'utf8')).toBe('# Title\n\nbody\n');
  });

  it('without if_none_match a missing file stays not_found; a dry run creates nothing', async () => {
    const p = tmp.path('never.txt');
    expect((await failure(upsert(p, { target: { kind: 'whole' }, content: 'x', preconditions: { ifMatch: 'abc' } }))).code).toBe('not_found');
    const dry = await upsert(p, { target: { kind: 'whole' }, content: 'x\ny\n', preconditions: { ifNoneMatch: '*' }, dryRun: true });
    expect(dry).toMatchObject({ applied: false, version_before: { etag: 'absent' }, affected: { lines: { inserted: 2 } } });
    expect(dry.preview).toContain('+y');
    expect(existsSync(p)).toBe(false);
  });

  it('creates missing folders only when asked, and leaves no temp or lock files', async () => {
    const p = join(tmp.dir, 'deep/er/file.txt');
    expect((await failure(upsert(p, { target: { kind: 'whole' }, content: 'x', preconditions: { ifNoneMatch: '*' } }))).code).toBe('not_found');
    await upsert(p, { target: { kind: 'whole' }, content: 'x\n', preconditions: { ifNoneMatch: '*' }, createParents: true });
    expect(readFileSync(p, 'utf8')).toBe('x\n');
    expect(readdirSync(join(tmp.dir, 'deep/er'))).toEqual(['file.txt']);
  });

  it('a whole-file replace of an existing file needs if_match', async () => {
    const p = file('old\ntext\n');
    await upsert(p, { target: { kind: 'whole' }, content: 'new\n', preconditions: { ifMatch: await etag(p) } });
    expect(readFileSync(p, 'utf8')).toBe('new\n');
  });
});

describe('a stale edit carries the fix', () => {
  it('precondition_failed has the current text of the target lines with anchors, and those anchors make the retry work', async () => {
    const p = file('one\ntwo\nthree\nfour\n');
    const old = await etag(p);
    writeFileSync(p, 'one\nTWO\nthree\nfour\n');
    const f = await failure(upsert(p, { target: { kind: 'replace', start: 2, end: 3, units: 'lines' }, content: 'x\n', preconditions: { ifMatch: old } }));
    expect(f.code).toBe('precondition_failed');
    const current = f.details.current as { start: number; end: number; text: string }[];
    expect(current).toHaveLength(1);
    expect(current[0]).toMatchObject({ start: 2, end: 3 });
    expect(current[0]!.text).toMatch(/^2#[0-9a-f]{3}\|TWO\n3#[0-9a-f]{3}\|three\n?$/);
    const anchors = current[0]!.text
      .trimEnd()
      .split('\n')
      .map((l) => l.split('|')[0]!);
    await upsert(p, { target: { kind: 'replace', start: 2, end: 3, units: 'lines' }, content: 'x\n', preconditions: { anchors } });
    expect(readFileSync(p, 'utf8')).toBe('one\nx\nfour\n');
  });
});
