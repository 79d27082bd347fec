import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, chmodSync, chownSync, existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildIndex } from '../../src-main/engine/index/builder.ts';
import { openIndex } from '../../src-main/engine/index/store.ts';
import { read } from '../../src-main/engine/read/read.ts';
import { lineHash } from '../../src-main/engine/text/hashline.ts';
import { upsert, type UpsertRequest } from '../../src-main/engine/write/upsert.ts';
import { fileSha256 } from '../../src-main/engine/write/preconditions.ts';
import { PNG_1x1 } from '../fixtures/generate.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { runs } from '../fixtures/effort.ts';

const tmp = engineTempDir();

let n = 0;
function file(content: string | Buffer): string {
  const p = tmp.path(`u${n++}.txt`);
  writeFileSync(p, content);
  return p;
}
const etag = async (p: string) => (await read(p, { mode: 'head', lines: 0 })).version.etag;
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const h = (s: string) => lineHash(Buffer.from(s));

async function edit(p: string, target: UpsertRequest['target'], content = '', extra: Partial<UpsertRequest> = {}) {
  return upsert(p, { target, content, preconditions: { ifMatch: await etag(p) }, ...extra });
}

describe('upsert targets', () => {
  it('inserts at line 1, in the middle, and at the end (total+1); past the end is out_of_bounds', async () => {
    const p = file('b\nc\n');
    await edit(p, { kind: 'insert', at: 1, units: 'lines' }, 'a');
    expect(readFileSync(p, 'utf8')).toBe('a\nb\nc\n');
    await edit(p, { kind: 'insert', at: 3, units: 'lines' }, 'b2\n');
    expect(readFileSync(p, 'utf8')).toBe('a\nb\nb2\nc\n');
    const r = await edit(p, { kind: 'insert', at: 5, units: 'lines' }, 'd');
    expect(readFileSync(p, 'utf8')).toBe('a\nb\nb2\nc\nd\n');
    expect(r.range_after).toMatchObject({ start_line: 5, end_line: 5 });
    await expect(edit(p, { kind: 'insert', at: 7, units: 'lines' }, 'x')).rejects.toMatchObject({ code: 'out_of_bounds', details: { total_lines: 5 } });
    await expect(edit(p, { kind: 'insert', at: 0, units: 'lines' }, 'x')).rejects.toMatchObject({ code: 'invalid_range' });
  });

  it('replaces and deletes line ranges; a file without a final newline keeps having none', async () => {
    const p = file('1\n2\n3\n4');
    await edit(p, { kind: 'replace', start: 2, end: 3, units: 'lines' }, 'two\nthree');
    expect(readFileSync(p, 'utf8')).toBe('1\ntwo\nthree\n4');
    await edit(p, { kind: 'replace', start: 4, end: 4, units: 'lines' }, 'four');
    expect(readFileSync(p, 'utf8')).toBe('1\ntwo\nthree\nfour');
    await edit(p, { kind: 'insert', at: 5, units: 'lines' }, 'five');
    expect(readFileSync(p, 'utf8')).toBe('1\ntwo\nthree\nfour\nfive');
    const d = await edit(p, { kind: 'delete', start: 2, end: 3, units: 'lines' });
    expect(readFileSync(p, 'utf8')).toBe('1\nfour\nfive');
    expect(d.affected.lines).toEqual({ removed: 2, inserted: 0 });
    await expect(edit(p, { kind: 'replace', start: 2, end: 9, units: 'lines' }, 'x')).rejects.toMatchObject({ code: 'out_of_bounds' });
    await expect(edit(p, { kind: 'replace', start: 3, end: 2, units: 'lines' }, 'x')).rejects.toMatchObject({ code: 'invalid_range' });
    await expect(edit(p, { kind: 'delete', start: 1, end: 1, units: 'lines' }, 'not empty')).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('byte targets: insert, replace [a, b), delete; never inside a character or the BOM', async () => {
    const p = file('héllo wörld');
    await edit(p, { kind: 'replace', start: 0, end: 6, units: 'bytes' }, 'HELLO');
    expect(readFileSync(p, 'utf8')).toBe('HELLO wörld');
    await edit(p, { kind: 'insert', at: 5, units: 'bytes' }, ',');
    expect(readFileSync(p, 'utf8')).toBe('HELLO, wörld');
    await expect(edit(p, { kind: 'delete', start: 9, end: 10, units: 'bytes' })).rejects.toMatchObject({ code: 'invalid_range' });
    await expect(edit(p, { kind: 'insert', at: 99, units: 'bytes' }, 'x')).rejects.toMatchObject({ code: 'out_of_bounds' });
    const b = file(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('x\n')]));
    await expect(edit(b, { kind: 'insert', at: 1, units: 'bytes' }, 'y')).rejects.toMatchObject({ code: 'invalid_range' });
  });

  it('empty content: an insert of nothing writes nothing; a replace with nothing deletes the lines', async () => {
    const p = file('a\nb\n');
    const before = statSync(p).ino;
    const r = await edit(p, { kind: 'insert', at: 2, units: 'lines' }, '');
    expect(r.affected.bytes).toEqual({ removed: 0, inserted: 0 });
    expect(statSync(p).ino).toBe(before);
    await edit(p, { kind: 'replace', start: 1, end: 1, units: 'lines' }, '');
    expect(readFileSync(p, 'utf8')).toBe('b\n');
  });

  it('append writes with O_APPEND: same inode, bytes added as given', async () => {
    const p = file('log 1\n');
    const ino = statSync(p).ino;
    const r = await upsert(p, { target: { kind: 'append' }, content: 'log 2\n', preconditions: { ifMatch: await etag(p) } });
    expect(readFileSync(p, 'utf8')).toBe('log 1\nlog 2\n');
    expect(statSync(p).ino).toBe(ino);
    expect(r.range_after).toMatchObject({ start_line: 2, end_line: 2, start_byte: 6, end_byte: 12 });
  });
});

describe('upsert keeps the file what it was', () => {
  it('CRLF files stay CRLF (content newlines normalized), unless normalize_newlines is off', async () => {
    const p = file('a\r\nb\r\n');
    await edit(p, { kind: 'insert', at: 2, units: 'lines' }, 'x\ny');
    expect(readFileSync(p, 'utf8')).toBe('a\r\nx\r\ny\r\nb\r\n');
    await edit(p, { kind: 'insert', at: 1, units: 'lines' }, 'raw\n', { normalizeNewlines: false });
    expect(readFileSync(p, 'utf8')).toBe('raw\na\r\nx\r\ny\r\nb\r\n');
  });

  it('the UTF-8 BOM is kept when line 1 is replaced', async () => {
    const p = file(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('first\nsecond\n')]));
    await edit(p, { kind: 'replace', start: 1, end: 1, units: 'lines' }, 'FIRST');
    expect(readFileSync(p)).toEqual(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('FIRST\nsecond\n')]));
    expect((await read(p, { mode: 'head', lines: 1 })).content).toBe('FIRST\n');
  });

  it('mode and owner are kept', async () => {
    const p = file('x\n');
    chmodSync(p, 0o640);
    if (process.getuid?.() === 0) chownSync(p, 65534, 65534);
    await edit(p, { kind: 'replace', start: 1, end: 1, units: 'lines' }, 'y');
    const st = statSync(p);
    expect(st.mode & 0o777).toBe(0o640);
    if (process.getuid?.() === 0) expect([st.uid, st.gid]).toEqual([65534, 65534]);
  });

  it('refuses binary files and files that are not valid UTF-8 or valid UTF-16', async () => {
    await expect(edit(file(PNG_1x1), { kind: 'append' }, 'x')).rejects.toMatchObject({ code: 'binary_file', details: { type: 'image/png' } });
    await expect(edit(file(Buffer.from('caf\xe9\n', 'latin1')), { kind: 'append' }, 'x')).rejects.toMatchObject({ code: 'encoding_mismatch' });
    // UTF-16LE with a lone high surrogate (D83D) before its newline.
    await expect(edit(file(Buffer.from([0xff, 0xfe, 0x3d, 0xd8, 0x0a, 0x00])), { kind: 'append' }, 'x')).rejects.toMatchObject({
      code: 'encoding_mismatch',
      details: { encoding: 'utf-16le', first_invalid_offset: 2 },
    });
    await expect(edit(tmp.path('missing.txt'), { kind: 'append' }, 'x')).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('preconditions', () => {
  it('none given: precondition_required, with the current version', async () => {
    const p = file('a\n');
    await expect(upsert(p, { target: { kind: 'append' }, content: 'b', preconditions: {} })).rejects.toMatchObject({
      code: 'precondition_required',
      details: { current_version: { etag: await etag(p) } },
    });
    expect(readFileSync(p, 'utf8')).toBe('a\n');
  });

  it('a stale etag, sha256 or mtime fails with the current version and a read request for the target', async () => {
    const p = file('a\nb\nc\n');
    const old = await etag(p);
    const oldSha = sha(readFileSync(p));
    const oldMtime = statSync(p).mtimeMs;
    appendFileSync(p, 'd\n');
    utimesSync(p, new Date(), new Date(oldMtime + 5000));
    for (const pre of [{ ifMatch: old }, { expectedSha256: oldSha }, { ifNotModifiedSince: oldMtime }]) {
      const err = await upsert(p, { target: { kind: 'replace', start: 2, end: 2, units: 'lines' }, content: 'B', preconditions: pre }).catch((e) => e);
      expect(err.code).toBe('precondition_failed');
      expect(err.details.current_version.etag).toBe(await etag(p));
      expect(err.details.read).toEqual({ path: p, ranges: [{ start: 2, end: 2 }], hashlines: true });
    }
    expect(readFileSync(p, 'utf8')).toBe('a\nb\nc\nd\n');
    // The current ones pass.
    await upsert(p, { target: { kind: 'replace', start: 2, end: 2, units: 'lines' }, content: 'B', preconditions: { expectedSha256: sha(readFileSync(p)) } });
    expect(readFileSync(p, 'utf8')).toBe('a\nB\nc\nd\n');
  });

  it('expected_sha256 uses the digest known for the version (file facts cache it) instead of reading the file again', async () => {
    const p = file('a\nb\n');
    const v = (await read(p, { mode: 'head', lines: 0 })).version;
    expect(v.sha256).toBe(sha('a\nb\n'));
    // A known digest is the answer: not even a missing file is read.
    expect(await fileSha256(tmp.path('never-written.txt'), { ...v, sha256: 'f'.repeat(64) })).toBe('f'.repeat(64));
    // Unknown: the bytes are hashed.
    expect(await fileSha256(p, { ...v, sha256: undefined })).toBe(sha('a\nb\n'));
    expect(await fileSha256(p)).toBe(sha('a\nb\n'));
    const r = await upsert(p, { target: { kind: 'append' }, content: 'c', preconditions: { expectedSha256: v.sha256!.toUpperCase() } });
    expect(r.preconditions).toEqual({ checked: ['expected_sha256'], whole_file: 'matched', range: 'not_checked' });
  });

  it('anchors: stale ones fail with the mismatched lines compacted and a ready read; the read then makes the retry succeed', async () => {
    const p = file('l1\nl2\nl3\nl4\nl5\n');
    const anchors = [`2#${h('l2')}`, `3#${h('l3')}`, `5#${h('l5')}`];
    writeFileSync(p, 'l1\nL2\nL3\nl4\nL5\n');
    const err = await upsert(p, { target: { kind: 'replace', start: 2, end: 3, units: 'lines' }, content: 'new', preconditions: { anchors } }).catch((e) => e);
    expect(err.code).toBe('precondition_failed');
    expect(err.details.mismatched_lines.map((m: { line: number }) => m.line)).toEqual([2, 3, 5]);
    expect(err.details.affected_ranges).toEqual([
      { start: 2, end: 3 },
      { start: 5, end: 5 },
    ]);
    const again = await read(p, { mode: 'lines', ranges: err.details.read.ranges }, { hashlines: true });
    const fresh = again.content
      .split('\n')
      .filter(Boolean)
      .map((l) => l.slice(0, l.indexOf('|')));
    await upsert(p, { target: { kind: 'replace', start: 2, end: 3, units: 'lines' }, content: 'new', preconditions: { anchors: fresh } });
    expect(readFileSync(p, 'utf8')).toBe('l1\nnew\nl4\nL5\n');
    await expect(upsert(p, { target: { kind: 'append' }, content: 'x', preconditions: { anchors: ['2:abc'] } })).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });

  it('a stale writer whose target lines no longer exist gets precondition_failed with a read, not out_of_bounds', async () => {
    const p = file('a\nb\nc\n');
    const anchors = [`2#${h('b')}`, `3#${h('c')}`];
    writeFileSync(p, 'a\nbc\n');
    const err = await upsert(p, { target: { kind: 'replace', start: 2, end: 3, units: 'lines' }, content: 'x', preconditions: { anchors } }).catch((e) => e);
    expect(err.code).toBe('precondition_failed');
    expect(err.details.mismatched_lines).toEqual([
      { line: 2, expected: h('b'), actual: h('bc') },
      { line: 3, expected: h('c'), actual: null },
    ]);
    expect(err.details.read.ranges).toEqual([{ start: 2, end: 2 }]);
    // With a current precondition, the range really is out of bounds.
    await expect(edit(p, { kind: 'replace', start: 2, end: 3, units: 'lines' }, 'x')).rejects.toMatchObject({ code: 'out_of_bounds' });
  });

  it('range-scoped preconditions apply even when the rest of the file changed, and say so', async () => {
    const p = file('head\nmiddle\ntail\n');
    const old = await etag(p);
    appendFileSync(p, 'appended by a logger\n');
    const r = await upsert(p, {
      target: { kind: 'replace', start: 2, end: 2, units: 'lines' },
      content: 'MIDDLE',
      preconditions: { ifMatch: old, anchors: [`2#${h('middle')}`] },
    });
    expect(r.preconditions).toMatchObject({ whole_file: 'differed', range: 'matched' });
    expect(r.notes.join()).toMatch(/whole-file version differed/);
    expect(readFileSync(p, 'utf8')).toBe('head\nMIDDLE\ntail\nappended by a logger\n');
    const bytes = readFileSync(p).subarray(5, 12);
    await upsert(p, { target: { kind: 'replace', start: 2, end: 2, units: 'lines' }, content: 'm', preconditions: { expectedRangeSha256: sha(bytes) } });
    expect(readFileSync(p, 'utf8')).toBe('head\nm\ntail\nappended by a logger\n');
    await expect(
      upsert(p, { target: { kind: 'insert', at: 1, units: 'lines' }, content: 'x', preconditions: { expectedRangeSha256: sha('') } }),
    ).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await expect(
      upsert(p, { target: { kind: 'delete', start: 1, end: 1, units: 'lines' }, content: '', preconditions: { expectedRangeSha256: sha('nope') } }),
    ).rejects.toMatchObject({
      code: 'precondition_failed',
    });
  });
});

describe('dry run and preview', () => {
  it('dry_run previews a unified diff numbered as in the file and writes nothing', async () => {
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`);
    const p = file(lines.join('\n') + '\n');
    const before = readFileSync(p);
    const r = await edit(p, { kind: 'replace', start: 43, end: 43, units: 'lines' }, 'LINE 43', { dryRun: true });
    expect(r.applied).toBe(false);
    expect(r.version_after).toBeNull();
    expect(readFileSync(p)).toEqual(before);
    expect(r.preview).toContain('@@ -40,7 +40,7 @@');
    expect(r.preview).toContain('-line 43\n+LINE 43\n');
  });
});

describe('crash leftovers and locks', () => {
  it('temp files left by an interrupted write are removed by the next upsert', async () => {
    const p = file('a\n');
    const leftover = p.replace(/u\d+\.txt$/, (m) => `.${m}.folio-tmp-99999-dead`);
    writeFileSync(leftover, 'half written');
    const r = await edit(p, { kind: 'append' }, 'b\n');
    expect(existsSync(leftover)).toBe(false);
    expect(r.notes.join()).toMatch(/removed 1 temp file/);
  });

  it('a lock held by a dead process is broken at once', async () => {
    const p = file('a\n');
    const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout.trim();
    const lock = p.replace(/u\d+\.txt$/, (m) => `.${m}.folio-lock`);
    writeFileSync(lock, `${dead}\n0\n`);
    await edit(p, { kind: 'append' }, 'b\n');
    expect(readFileSync(p, 'utf8')).toBe('a\nb\n');
    expect(readdirSync(tmp.dir).filter((f) => f.includes('folio-lock'))).toEqual([]);
  });
});

describe('the index after an upsert', () => {
  it('equals a full rebuild, for random edits on random files (several 64 KiB blocks)', async () => {
    const text = fc.array(fc.constantFrom('a', 'bb', 'é', '€', '\n', '\r\n', 'x'.repeat(100), '\n\n'), { maxLength: 40 }).map((a) => a.join(''));
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 3000 }),
        text,
        fc.nat(),
        fc.nat(),
        fc.constantFrom('insert', 'replace', 'delete'),
        async (lines, content, s0, s1, kind) => {
          const base = Array.from({ length: lines }, (_, i) => `line ${i} ${'y'.repeat(i % 97)}`).join('\n') + (lines % 2 ? '\n' : '');
          const p = file(base);
          const total = (await read(p, { mode: 'head', lines: 0 })).totalLines!;
          const a = total ? 1 + (s0 % total) : 1;
          const b = total ? a + (s1 % (total - a + 1)) : 1;
          const target: UpsertRequest['target'] =
            kind === 'insert' || total === 0
              ? { kind: 'insert', at: a, units: 'lines' }
              : kind === 'replace'
                ? { kind: 'replace', start: a, end: b, units: 'lines' }
                : { kind: 'delete', start: a, end: b, units: 'lines' };
          await edit(p, target, target.kind === 'delete' ? '' : content);
          const live = await openIndex(p);
          const fresh = await buildIndex(p, { threads: 0 });
          expect(live.newlines).toBe(fresh.newlines);
          expect(live.facts).toEqual(fresh.facts);
          expect(live.lineCount).toBe(fresh.lineCount);
          for (let line = 0; line <= fresh.lineCount; line += Math.max(1, Math.floor(fresh.lineCount / 50))) {
            expect(live.lineStart(line)).toBe(fresh.lineStart(line));
          }
        },
      ),
      runs(40),
    );
  });
});

describe('the file lock', () => {
  it('a lock file without an owner yet (being created) is not stale: the writer waits, then conflict', async () => {
    const { lockPathOf, withFileLock } = await import('../../src-main/engine/index/file-lock.ts');
    const p = file('x\n');
    writeFileSync(lockPathOf(p), '');
    let entered = false;
    await expect(withFileLock(p, () => (entered = true), { timeoutMs: 300 })).rejects.toMatchObject({ code: 'conflict' });
    expect(entered).toBe(false);
    expect(existsSync(lockPathOf(p))).toBe(true);
  });

  it('a dead breaker does not hold up the next writer: its file and the dead lock are cleared at once', async () => {
    const { breakerPathOf, lockPathOf, withFileLock } = await import('../../src-main/engine/index/file-lock.ts');
    const p = file('x\n');
    const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(lockPathOf(p), `${dead}\nlocknonce\n`);
    writeFileSync(breakerPathOf(lockPathOf(p)), `${dead}\nbreaknonce\n`);
    let entered = false;
    await withFileLock(p, () => (entered = true), { timeoutMs: 1000 }); // fresh breaker files would be waited out for 5 s
    expect(entered).toBe(true);
    expect(readdirSync(tmp.dir).filter((f) => f.includes(`${p.split('/').pop()}.folio-lock`))).toEqual([]);
    // With no lock left to break, the next upsert still removes a dead breaker's file.
    writeFileSync(breakerPathOf(lockPathOf(p)), `${dead}\nbreaknonce\n`);
    await edit(p, { kind: 'append' }, 'y\n');
    expect(existsSync(breakerPathOf(lockPathOf(p)))).toBe(false);
  });

  it('litter of a dead process taking the lock is removed by the next upsert', async () => {
    const p = file('x\n');
    const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout.trim();
    const litter = `${p.replace(/u\d+\.txt$/, (m) => `.${m}.folio-lock`)}.${dead}-abc123`;
    writeFileSync(litter, `${dead}\nabc123\n`);
    await edit(p, { kind: 'append' }, 'y\n');
    expect(existsSync(litter)).toBe(false);
  });
});
