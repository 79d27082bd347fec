/**
 * Undo of an approved create removes the file it created (not an empty file left
 * behind), redo puts it back with its bytes and mode, alone and in a batch; the
 * guards hold (a file put there since is never overwritten, text added since is
 * never lost); and a process SIGKILLed in those steps leaves the journal agreeing
 * with the disk: killed once at each fault point of an undo (a delete) and a redo
 * (a restore), src-main/engine/failpoint.ts, then at a random moment.
 */
import { appendFileSync, chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { fileInfo } from '../../src-main/engine/read/file-info.ts';
import { intentsDirOf, intentsOf } from '../../src-main/review/intents.ts';
import { approve, approveBatch, forgetStores, history, propose, redo, storeOf, undo } from '../../src-main/review/index.ts';
import { LineChild } from '../fixtures/child-lines.ts';
import { CREATED_PATH, CREATED_TEXT, PERSON } from '../fixtures/create-undo-crasher.ts';
import { scaled } from '../fixtures/effort.ts';
import { failpointEnv, killedAt, type FailpointSpec } from '../fixtures/failpoint-child.ts';
import { prng, tempDir } from '../fixtures/generate.ts';

const AGENT = { kind: 'agent', name: 'creator' } as const;
const CRASHER = join(import.meta.dirname, '../fixtures/create-undo-crasher.ts');
/**
 * The crasher undoes the create, or redoes it, from where the last kill left it:
 * each point is reached within two steps. An undo's intent written (the file still
 * there), its file deleted; a redo's file linked from its temp, and the temp gone;
 * none of them committed.
 */
const POINTS: FailpointSpec[] = ['review.intent-written', 'fileop.unlinked', 'fileop.restore-linked', 'fileop.restored'];
// Random kills beside the points: 1 per commit (10 in `npm run test:deep`); 4 random
// kills alone landed inside a step's write 0 times in 4.
const KILLS = POINTS.length + (Number(process.env.FOLIO_CREATE_UNDO_KILLS) || scaled(1));

const tmp = tempDir('folio-create-undo-');
const root = tmp.path('ws');
afterAll(() => {
  forgetStores();
  tmp.cleanup();
});
beforeEach(() => {
  rmSync(root, { recursive: true, force: true });
  forgetStores();
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'src/a.ts'), 'one\ntwo\n');
});

const at = (rel: string) => join(root, rel);
const present = (rel: string) => lstatSync(at(rel), { throwIfNoEntry: false }) !== undefined;
const modeOf = (rel: string) => lstatSync(at(rel)).mode & 0o777;

async function approvedCreate(rel: string, content: string): Promise<string> {
  const p = await propose(root, AGENT, { path: at(rel), target: { kind: 'whole' }, content, preconditions: { ifNoneMatch: '*' } });
  await approve(root, PERSON, p.proposal_id);
  return p.proposal_id;
}

describe('undo of an approved create', () => {
  it('removes the file; redo brings it back with its bytes and mode; undo again removes it', async () => {
    await approvedCreate('src/new.ts', 'export const x = 1;\n');
    chmodSync(at('src/new.ts'), 0o600);
    const undone = await undo(root, PERSON);
    expect(present('src/new.ts')).toBe(false);
    expect(undone.entry).toMatchObject({ undone: true, last_version: { etag: 'absent' } });
    await redo(root, PERSON);
    expect(readFileSync(at('src/new.ts'), 'utf8')).toBe('export const x = 1;\n');
    expect(modeOf('src/new.ts')).toBe(0o600);
    await undo(root, PERSON);
    expect(present('src/new.ts')).toBe(false);
    const [e] = history(root);
    expect(e!.history.map((h) => h.action)).toEqual(['apply', 'undo', 'redo', 'undo']);
    expect(intentsOf(storeOf(root))).toEqual([]);
  });

  it('in a batch, with an edit of another file: one undo takes both back, the created file away; redo puts both back', async () => {
    const { version } = await fileInfo(at('src/a.ts'));
    await propose(root, AGENT, {
      path: at('src/a.ts'),
      target: { kind: 'replace', start: 2, end: 2, units: 'lines' },
      content: 'TWO\n',
      preconditions: { ifMatch: version.etag },
    });
    await propose(root, AGENT, { path: at('src/b.ts'), target: { kind: 'whole' }, content: 'b\n', preconditions: { ifNoneMatch: '*' } });
    await approveBatch(root, PERSON, { all: true });
    expect([readFileSync(at('src/a.ts'), 'utf8'), readFileSync(at('src/b.ts'), 'utf8')]).toEqual(['one\nTWO\n', 'b\n']);
    await undo(root, PERSON);
    expect(readFileSync(at('src/a.ts'), 'utf8')).toBe('one\ntwo\n');
    expect(present('src/b.ts')).toBe(false);
    await redo(root, PERSON);
    expect([readFileSync(at('src/a.ts'), 'utf8'), readFileSync(at('src/b.ts'), 'utf8')]).toEqual(['one\nTWO\n', 'b\n']);
  });

  it('text a person added since stays: undo takes out only the created text, and the file stays', async () => {
    await approvedCreate('src/new.ts', 'created\n');
    appendFileSync(at('src/new.ts'), 'mine\n');
    await undo(root, PERSON);
    expect(readFileSync(at('src/new.ts'), 'utf8')).toBe('mine\n');
  });

  it('a file put at the name after the undo is never overwritten: redo is a conflict and writes nothing', async () => {
    await approvedCreate('src/new.ts', 'created\n');
    await undo(root, PERSON);
    writeFileSync(at('src/new.ts'), 'a person made it\n');
    await expect(redo(root, PERSON)).rejects.toMatchObject({ code: 'conflict' });
    expect(readFileSync(at('src/new.ts'), 'utf8')).toBe('a person made it\n');
  });

  it('an undo whose file changed in place (same size) is a conflict and deletes nothing', async () => {
    await approvedCreate('src/new.ts', 'created\n');
    writeFileSync(at('src/new.ts'), 'CREATED\n');
    await expect(undo(root, PERSON)).rejects.toMatchObject({ code: 'conflict' });
    expect(readFileSync(at('src/new.ts'), 'utf8')).toBe('CREATED\n');
  });
});

describe('a process killed while it undoes or redoes a create', () => {
  it(`leaves the journal and the disk agreeing, and the next undo/redo working (${KILLS} kills)`, async () => {
    await approvedCreate(CREATED_PATH, CREATED_TEXT);
    const rand = prng(20261127);
    const problems: string[] = [];
    let inFlight = 0;
    for (let k = 0; k < KILLS; k++) {
      forgetStores();
      const point = POINTS[k];
      const child = new LineChild(CRASHER, [root], point ? failpointEnv(process.env, point) : process.env);
      expect(JSON.parse((await child.next())!)).toEqual({ ready: true });
      child.proc.stdin.write('go\n');
      if (point) await killedAt(child, point);
      // At random: killed after 0 to 3 steps done: every other kill as soon as a step's intent is on disk (inside its write), else at once.
      const steps = point ? 0 : Math.floor(rand() * 4);
      for (let s = 0; s < steps; s++) await child.next();
      if (!point && k % 2 === 0) {
        const dir = intentsDirOf(storeOf(root));
        mkdirSync(dir, { recursive: true });
        await new Promise<void>((resolve) => {
          const watcher = watch(dir, () => {
            watcher.close();
            resolve();
          });
          if (readdirSync(dir).some((n) => n.endsWith('.json'))) {
            watcher.close();
            resolve();
          }
        });
      }
      child.proc.kill('SIGKILL');
      await child.exited;
      forgetStores();
      const killedInFlight = intentsOf(storeOf(root)).length > 0;
      // The next writer: a locked no-op settles any intent the killed step left.
      await storeOf(root).locked(() => undefined);
      const [e] = history(root);
      const onDisk = present(CREATED_PATH) ? readFileSync(at(CREATED_PATH), 'utf8') : null;
      if (intentsOf(storeOf(root)).length) problems.push(`kill ${k}: an intent is left`);
      if (killedInFlight) inFlight++;
      if (e!.undone ? onDisk !== null : onDisk !== CREATED_TEXT)
        problems.push(`kill ${k}: journal says ${e!.undone ? 'undone' : 'applied'}, disk holds ${onDisk === null ? 'nothing' : `${onDisk.length} chars`}`);
    }
    console.log(`[measure] create undo/redo: ${KILLS} kills, ${inFlight} inside a journaled step (an intent left)`);
    expect(problems).toEqual([]);
    // Every point is inside a journaled step: its intent is left.
    expect(inFlight).toBeGreaterThanOrEqual(POINTS.length);
    // Still steps both ways.
    const [e] = history(root);
    await (e!.undone ? redo : undo)(root, PERSON);
    expect(present(CREATED_PATH)).toBe(e!.undone);
  }, 120_000);
});
