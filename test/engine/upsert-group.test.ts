/**
 * Several files in one call (engine/write/upsert-group.ts): all checked under their
 * locks before any is written, so one stale file leaves every file as it was; two
 * groups over the same files named in opposite orders never deadlock.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { closeIndexPools } from '../../src-main/engine/index/builder.ts';
import { read } from '../../src-main/engine/read/read.ts';
import { upsertGroup, type GroupItem } from '../../src-main/engine/write/upsert-group.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-upsert-group-');
afterAll(async () => {
  await closeIndexPools();
  tmp.cleanup();
});

const quote = (path: string, oldText: string, newText: string): GroupItem => ({
  path,
  request: { target: { kind: 'replace', start: 0, end: 0, units: 'bytes' }, content: '', quoted: [{ oldText, newText }], preconditions: {} },
});

function files(n: number, text: (i: number) => string): string[] {
  return Array.from({ length: n }, (_, i) => {
    const p = tmp.path(`f${i}-${Math.random().toString(36).slice(2)}.txt`);
    writeFileSync(p, text(i));
    return p;
  });
}

describe('upsertGroup', () => {
  it('writes every file when every check passes, answering in the order given', async () => {
    const [a, b, c] = files(3, (i) => `one ${i}\ntwo\n`);
    const rs = await upsertGroup([quote(c!, 'one 2', 'ONE'), quote(a!, 'one 0', 'ONE'), quote(b!, 'two', 'TWO')]);
    expect(rs.map((r) => r.path)).toEqual([c, a, b]);
    expect(rs.every((r) => r.applied)).toBe(true);
    expect([a, b, c].map((p) => readFileSync(p!, 'utf8'))).toEqual(['ONE\ntwo\n', 'one 1\nTWO\n', 'ONE\ntwo\n']);
  });

  it('one failing file (a stale etag, a quote not found, a missing file) leaves every file untouched, and names the file', async () => {
    for (const [k, bad] of ['stale', 'quote', 'missing'].entries()) {
      const paths = files(4, (i) => `line ${i}\n`);
      const before = paths.map((p) => [readFileSync(p), statSync(p).mtimeMs] as const);
      const items = paths.map((p, i) => quote(p, `line ${i}`, `LINE ${i}`));
      const victim = 3 - k; // the last, a middle and the second file
      if (bad === 'stale')
        items[victim] = {
          path: paths[victim]!,
          request: { target: { kind: 'insert', at: 1, units: 'lines' }, content: 'x\n', preconditions: { ifMatch: 'not-the-etag' } },
        };
      if (bad === 'quote') items[victim] = quote(paths[victim]!, 'absent text', 'y');
      if (bad === 'missing') items[victim] = quote(`${paths[victim]!}.gone`, 'line', 'y');
      const err = await upsertGroup(items).catch((e: unknown) => e);
      expect(err, bad).toMatchObject({ code: bad === 'stale' ? 'precondition_failed' : bad === 'quote' ? 'no_match' : 'not_found', details: { file: victim } });
      expect((err as Error).message).toMatch(new RegExp(`^files\\[${victim}\\]`));
      paths.forEach((p, i) => {
        expect(readFileSync(p).equals(before[i]![0]), `${bad}: ${p}`).toBe(true);
        expect(statSync(p).mtimeMs).toBe(before[i]![1]);
      });
    }
  });

  it('refuses the same file named twice (even through another name) instead of waiting on its own lock', async () => {
    const [a] = files(1, () => 'x\n');
    const other = a!.replace(/\/([^/]+)$/, '/./$1');
    await expect(upsertGroup([quote(a!, 'x', 'y'), quote(other, 'x', 'z')])).rejects.toMatchObject({ code: 'invalid_input', details: { files: [0, 1] } });
    expect(readFileSync(a!, 'utf8')).toBe('x\n');
  });

  it('a dry run previews each file and writes none', async () => {
    const [a, b] = files(2, (i) => `v${i}\n`);
    const items = [quote(a!, 'v0', 'w0'), quote(b!, 'v1', 'w1')].map((it) => ({ ...it, request: { ...it.request, dryRun: true } }));
    const rs = await upsertGroup(items);
    expect(rs.map((r) => [r.applied, r.dry_run])).toEqual([
      [false, true],
      [false, true],
    ]);
    expect(rs[1]!.preview).toMatch(/^\+w1$/m);
    expect([readFileSync(a!, 'utf8'), readFileSync(b!, 'utf8')]).toEqual(['v0\n', 'v1\n']);
  });

  it('groups over the same files in opposite orders, and single-file writers among them, all finish: no deadlock, no lost edit', async () => {
    const [a, b, c] = files(3, () => '');
    const append = (p: string, tag: string): GroupItem => ({
      path: p,
      request: { target: { kind: 'append' }, content: `${tag}\n`, preconditions: { ifNotModifiedSince: Number.MAX_SAFE_INTEGER } },
    });
    const jobs: Promise<unknown>[] = [];
    for (let n = 0; n < 30; n++) {
      const order = n % 2 ? [c!, b!, a!] : [a!, b!, c!];
      jobs.push(upsertGroup(order.map((p) => append(p, `g${n}`))));
      jobs.push(upsertGroup([append(order[1]!, `s${n}`)]));
    }
    await Promise.race([Promise.all(jobs), new Promise((_, rej) => setTimeout(() => rej(new Error('deadlock: 60 groups did not finish in 60 s')), 60_000))]);
    for (const p of [a!, b!, c!]) {
      const lines = readFileSync(p, 'utf8').trimEnd().split('\n');
      expect(lines.filter((l) => l.startsWith('g')).sort()).toEqual(Array.from({ length: 30 }, (_, n) => `g${n}`).sort());
    }
    const version = (await read(b!, { mode: 'head', lines: 1 })).version;
    expect(version.size).toBe(readFileSync(b!).length);
  });
});
