/**
 * Damaged review data is reported, not skipped (review/damaged.ts): a change-log
 * frame flipped in its middle, a log truncated mid-frame, garbage appended to a
 * log. Decisions are made by real `folio review` child processes (each its own
 * log, its writer gone when it exits); the logs are then damaged on disk and read
 * by new child processes and by handle(). The decisions in good frames still
 * load, the damaged bytes are kept aside byte for byte, `folio review list`
 * warns on stderr (with --json too) and review_list answers `damaged`.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { read } from '../../src-main/engine/read/read.ts';
import * as Automerge from '@automerge/automerge';
import { chunkProblemOf } from '../../src-main/review/chunk-check.ts';
import { forgetStores, propose } from '../../src-main/review/index.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-review-damaged-');
afterAll(() => tmp.cleanup());
const BIN = join(process.cwd(), 'bin/folio.mjs');
const folio = (args: string[], root: string) =>
  spawnSync(process.execPath, [BIN, ...args, '--root', root], { encoding: 'utf8', env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') } });
const AGENT = { kind: 'agent', name: 'claude' } as const;
let n = 0;

/** The frames of a change log: [header offset, payload length]. */
function framesOf(log: string): [number, number][] {
  const buf = readFileSync(log);
  const out: [number, number][] = [];
  for (let pos = 0; pos + 4 <= buf.length;) {
    const len = buf.readUInt32BE(pos);
    if (pos + 4 + len > buf.length) break;
    out.push([pos, len]);
    pos += 4 + len;
  }
  return out;
}

/**
 * Three proposals, and three decisions each by its own `folio review` process:
 * approve p1, reject p2, reject p3. Returns the log each decision went to.
 */
async function decided() {
  const root = tmp.path(`ws${++n}`);
  mkdirSync(root, { recursive: true });
  const file = join(root, 'notes.txt');
  writeFileSync(file, 'one\ntwo\nthree\n');
  const etag = (await read(file, { mode: 'head', lines: 1 })).version.etag;
  const ids: string[] = [];
  for (const line of [1, 2, 3]) {
    const p = await propose(root, AGENT, {
      path: file,
      target: { kind: 'replace', start: line, end: line, units: 'lines' },
      content: `LINE ${line}`,
      preconditions: { ifMatch: etag },
    });
    ids.push(p.proposal_id);
  }
  const changes = join(root, '.folio/review/changes');
  const logs: string[] = [];
  for (const [cmd, id] of [
    ['approve', ids[0]!],
    ['reject', ids[1]!],
    ['reject', ids[2]!],
  ] as const) {
    const before = new Set(readdirSync(changes));
    const r = folio(['review', cmd, id], root);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    const fresh = readdirSync(changes).filter((f) => !before.has(f));
    expect(fresh).toHaveLength(1);
    logs.push(join(changes, fresh[0]!));
  }
  return { root, file, ids, logs };
}

const statusOf = (list: { proposals: { id: string; status: string }[] }) => Object.fromEntries(list.proposals.map((p) => [p.id, p.status]));

describe('damaged review data', () => {
  it('a frame flipped in its middle, a log cut mid-frame and garbage appended: each kept aside byte for byte and reported; the good decisions load', async () => {
    const { root, ids, logs } = await decided();
    // 1. Flip bytes in the middle of the reject of p2 (its last frame).
    const [flipAt, flipLen] = framesOf(logs[1]!).at(-1)!;
    const b = readFileSync(logs[1]!);
    for (let i = 0; i < 4; i++) b[flipAt + 4 + Math.floor(flipLen / 2) + i]! ^= 0xff;
    writeFileSync(logs[1]!, b);
    const flipped = b.subarray(flipAt + 4, flipAt + 4 + flipLen);
    // 2. Cut the reject of p3 in the middle of its last frame.
    const [cutAt, cutLen] = framesOf(logs[2]!).at(-1)!;
    const cutTo = cutAt + 4 + Math.floor(cutLen / 2);
    const torn = readFileSync(logs[2]!).subarray(cutAt, cutTo);
    truncateSync(logs[2]!, cutTo);
    // 3. Garbage after the approve of p1.
    const garbage = Buffer.from('this is not an automerge frame\n');
    appendFileSync(logs[0]!, garbage);

    const r = folio(['review', 'list', '--json'], root);
    expect(r.status, r.stderr).toBe(0);
    const list = JSON.parse(r.stdout);
    // The approve (its frames untouched) still loads; the two damaged rejects did not.
    expect(statusOf(list)).toEqual({ [ids[0]!]: 'applied', [ids[1]!]: 'pending', [ids[2]!]: 'pending' });
    const bySource = Object.fromEntries(list.damaged.map((d: { source: string }) => [d.source, d]));
    const name = (log: string) => `changes/${log.split('/').at(-1)}`;
    expect(Object.keys(bySource).sort()).toEqual(logs.map(name).sort());
    expect(bySource[name(logs[1]!)]).toMatchObject({ kind: 'unparsable_frame', offset: flipAt, bytes: flipLen });
    expect(bySource[name(logs[2]!)]).toMatchObject({ kind: 'torn_tail', offset: cutAt, bytes: torn.length });
    expect(bySource[name(logs[0]!)]).toMatchObject({ kind: 'torn_tail', bytes: garbage.length });
    expect(readFileSync(bySource[name(logs[1]!)].file)).toEqual(flipped);
    expect(readFileSync(bySource[name(logs[2]!)].file)).toEqual(torn);
    expect(readFileSync(bySource[name(logs[0]!)].file)).toEqual(garbage);
    // The person is told on stderr, --json or not.
    expect(r.stderr.match(/warning: damaged review data/g)).toHaveLength(3);
    const human = folio(['review', 'list'], root);
    expect(human.stderr).toContain(`Kept aside in ${bySource[name(logs[1]!)].file}`);
    expect(human.stdout).toContain(ids[0]!);

    // Every later process says it again (the copies are the record), with no second copy.
    const aside = readdirSync(join(root, '.folio/review/damaged')).sort();
    expect(aside).toHaveLength(6);
    forgetStores();
    const again = await handle('review_list', {}, { kind: 'human', name: 'test' }, { workspace: root });
    expect(again.damaged.map((d) => d.file).sort()).toEqual(list.damaged.map((d: { file: string }) => d.file).sort());
    expect(readdirSync(join(root, '.folio/review/damaged')).sort()).toEqual(aside);
    expect(folio(['review', 'list', '--json'], root).stderr.match(/warning: damaged review data/g)).toHaveLength(3);

    // Deleting a kept copy acknowledges it: its record stays, so it is not kept aside again.
    rmSync(bySource[name(logs[1]!)].file);
    const acked = folio(['review', 'list', '--json'], root);
    expect(
      JSON.parse(acked.stdout)
        .damaged.map((d: { source: string }) => d.source)
        .sort(),
    ).toEqual([name(logs[0]!), name(logs[2]!)].sort());
    expect(acked.stderr.match(/warning: damaged review data/g)).toHaveLength(2);
  });

  it('a damaged frame does not take the good frames read with it: the earlier decisions load, in-process too', async () => {
    const { root, ids, logs } = await decided();
    const [at, len] = framesOf(logs[2]!).at(-1)!;
    const b = readFileSync(logs[2]!);
    b[at + 4 + Math.floor(len / 2)]! ^= 0x5a;
    writeFileSync(logs[2]!, b);
    forgetStores();
    const list = await handle('review_list', {}, { kind: 'human', name: 'test' }, { workspace: root });
    expect(statusOf(list)).toEqual({ [ids[0]!]: 'applied', [ids[1]!]: 'rejected', [ids[2]!]: 'pending' });
    expect(list.damaged).toMatchObject([{ kind: 'unparsable_frame', source: `changes/${logs[2]!.split('/').at(-1)}`, offset: at, bytes: len }]);
  });

  it('the chunk check finds every single flipped byte of change and snapshot chunks, and passes them whole', () => {
    const parse = (b: Uint8Array) => void Automerge.load(b, { allowMissingChanges: true });
    let doc = Automerge.init<Record<string, unknown>>();
    const frames: Buffer[] = [];
    for (let i = 0; i < 4; i++) {
      const heads = Automerge.getHeads(doc);
      doc = Automerge.change(doc, (d) => void (d[`k${i}`] = new Automerge.ImmutableString('x'.repeat(i * 700))));
      frames.push(Buffer.from(Automerge.saveSince(doc, heads)));
    }
    frames.push(Buffer.from(Automerge.save(doc)), Buffer.concat(frames.slice(0, 3)));
    let flips = 0;
    const missed: string[] = [];
    for (const [k, frame] of frames.entries()) {
      expect(chunkProblemOf(frame, parse), `frame ${k}`).toBeNull();
      for (let at = 0; at < frame.length; at += Math.max(1, Math.floor(frame.length / 300))) {
        const bad = Buffer.from(frame);
        bad[at]! ^= 1 << (at % 8);
        flips++;
        if (chunkProblemOf(bad, parse) === null) missed.push(`frame ${k} byte ${at}`);
      }
      expect(chunkProblemOf(frame.subarray(0, frame.length - 1), parse)).not.toBeNull();
      expect(chunkProblemOf(Buffer.concat([frame, Buffer.from('junk')]), parse)).not.toBeNull();
    }
    expect(missed).toEqual([]);
    expect(flips).toBeGreaterThan(500);
  });
});
