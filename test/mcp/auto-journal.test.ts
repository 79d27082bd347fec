/**
 * An agent's auto edit of a file is journaled as a record (review/applied-log.ts)
 * and folded into the review document once the agent's writes pause
 * (review/idle-fold.ts), so the answer does not wait for an Automerge commit. Through
 * `folio mcp --review auto` (a real child, the SDK client) and the CLI:
 * - the record is durable before the answer: a server killed with SIGKILL right
 *   after it loses nothing, and the next process lists the edit and undoes it;
 * - `review history` in another process lists an edit not folded yet, under the
 *   answer's journal_id;
 * - the server folds its records once idle (FOLIO_FOLD_IDLE_MS), and the journal
 *   keeps the order of the edits;
 * - a remote value or an intent a crash left still take the full journal (their
 *   own tests: test/review/applied-log.test.ts, test/mcp/backend-pg.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, connectStdio, okBody as ok } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mcp-auto-journal-');
const cacheDir = tmp.path('cache');
afterAll(() => tmp.cleanup());

function workspace(name: string, lines = 20): string {
  const ws = tmp.path(name);
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'f.txt'), Array.from({ length: lines }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
  return ws;
}

const records = (ws: string) => {
  const dir = join(ws, '.folio/review/applied');
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.json')) : [];
};

const folio = (ws: string, args: string[]) => {
  const r = spawnSync(process.execPath, [BIN, ...args, '--root', ws], { encoding: 'utf8', cwd: ws, env: { ...process.env, FOLIO_CACHE_DIR: cacheDir } });
  if (r.status !== 0) throw new Error(`folio ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
};

describe('an agent auto edit', () => {
  it('is durable before the answer: a server killed right after loses nothing, and the CLI lists and undoes it', async () => {
    const ws = workspace('killed');
    // A fold a minute away: the record is what the next process finds.
    const s = await connectStdio(ws, { cacheDir, flags: ['--review', 'auto'], env: { FOLIO_FOLD_IDLE_MS: '60000' } });
    let answer: { journal_id: string; applied: boolean; version_after: { etag: string } };
    try {
      answer = ok(await s.call('edit', { path: 'f.txt', edits: [{ old_text: 'line 7\n', new_text: 'line seven\n' }] }));
      expect(answer.applied).toBe(true);
      expect(records(ws)).toHaveLength(1);
      const pid = (s.client.transport as unknown as { pid: number }).pid;
      process.kill(pid, 'SIGKILL');
    } finally {
      await s.close().catch(() => undefined);
    }
    expect(readFileSync(join(ws, 'f.txt'), 'utf8')).toContain('line seven\n');
    const history = JSON.parse(folio(ws, ['review', 'history', '--json'])) as { entries: { id: string; path: string; version_after: { etag: string } }[] };
    expect(history.entries.map((e) => [e.id, e.path, e.version_after.etag])).toEqual([[answer.journal_id, 'f.txt', answer.version_after.etag]]);
    folio(ws, ['review', 'undo', 'f.txt', '--include-others']);
    expect(readFileSync(join(ws, 'f.txt'), 'utf8')).not.toContain('line seven');
    expect(readFileSync(join(ws, 'f.txt'), 'utf8')).toContain('line 7\n');
  });

  it('is listed by another process before it is folded, and folded once the agent pauses, in the order of the edits', async () => {
    const ws = workspace('folded');
    const s = await connectStdio(ws, { cacheDir, flags: ['--review', 'auto'], env: { FOLIO_FOLD_IDLE_MS: '300' } });
    try {
      const ids: string[] = [];
      for (const n of [3, 5, 9]) {
        ids.push(ok(await s.call('edit', { path: 'f.txt', edits: [{ old_text: `line ${n}\n`, new_text: `LINE ${n}\n` }] })).journal_id);
      }
      // Before the fold (or after it: both must list the three, oldest first).
      const listed = JSON.parse(folio(ws, ['review', 'history', '--json'])) as { entries: { id: string }[] };
      expect(listed.entries.map((e) => e.id)).toEqual(ids);
      // The server folds them into the document once idle: the records go, the change log holds them.
      await expect.poll(() => records(ws), { timeout: 60_000, interval: 100 }).toEqual([]);
      expect(readdirSync(join(ws, '.folio/review/changes')).length).toBeGreaterThan(0);
      const folded = JSON.parse(folio(ws, ['review', 'history', '--json'])) as { entries: { id: string; seq: number }[] };
      expect(folded.entries.map((e) => e.id)).toEqual(ids);
      expect(folded.entries.map((e) => e.seq)).toEqual([1, 2, 3]);
      // And the folded journal undoes as ever: the newest first.
      folio(ws, ['review', 'undo', 'f.txt', '--include-others']);
      expect(readFileSync(join(ws, 'f.txt'), 'utf8')).toContain('LINE 5\nline 6\nline 7\nline 8\nline 9\n');
    } finally {
      await s.close();
    }
  });
});
