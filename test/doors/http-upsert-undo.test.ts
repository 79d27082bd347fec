/** POST /api/upsert is a person's own edit: journaled under the browser's actor, so POST /api/review_undo takes it back byte-exact. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { serve } from '../../src-main/doors/http/serve.ts';
import { forgetStores } from '../../src-main/review/store.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir();
afterAll(() => {
  forgetStores();
  tmp.cleanup();
});

describe('POST /api/upsert then /api/review_undo', () => {
  it("undoes the edit of a UTF-16LE file with a BOM and CRLF byte-exact; dry runs are not journaled; another person's undo needs include_others", async () => {
    const ws = tmp.path('ws');
    mkdirSync(ws);
    const renderer = tmp.path('renderer');
    mkdirSync(renderer);
    writeFileSync(`${renderer}/index.html`, '<!doctype html><title>t</title>');
    const p = `${ws}/wide.txt`;
    const before = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('één\r\ntwee\r\ndrie 😀\r\n', 'utf16le')]);
    writeFileSync(p, before);
    const server = await serve({ port: 0, rendererDir: renderer, workspace: ws });
    const { origin } = new URL(server.url);
    const post = async (op: string, body: unknown) => {
      const res = await fetch(`${origin}/api/${op}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    };
    try {
      const etag = (await post('file_info', { path: p })).body.version.etag;
      const edit = { path: p, target: { replace: { start: 2, end: 3 } }, content: 'TWEE\nDRIE 🎉\nvier', if_match: etag };
      const dry = await post('upsert', { ...edit, dry_run: true });
      expect(dry.body).toMatchObject({ applied: false, dry_run: true });
      expect((await post('review_history', {})).body.entries).toEqual([]);

      const done = await post('upsert', edit);
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({ applied: true, path: p });
      expect(done.body).not.toHaveProperty('removed');
      expect(readFileSync(p).equals(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('één\r\nTWEE\r\nDRIE 🎉\r\nvier\r\n', 'utf16le')]))).toBe(true);
      const [entry] = (await post('review_history', { path: p })).body.entries;
      expect(entry).toMatchObject({ proposal_id: null, path: 'wide.txt', decided_by: { kind: 'human', name: 'browser' } });

      // Undo is "your latest edit": the CLI (another person-door) sees it only with include_others.
      const { handle } = await import('../../src-main/api/handle.ts');
      await expect(handle('review_undo', { path: p }, { kind: 'human', name: 'cli' }, { workspace: ws })).rejects.toMatchObject({ code: 'not_found' });

      const undo = await post('review_undo', { path: p });
      expect(undo.status, JSON.stringify(undo.body)).toBe(200);
      expect(undo.body).toMatchObject({ action: 'undo', entry: { id: entry.id, undone: true } });
      expect(readFileSync(p).equals(before)).toBe(true);
    } finally {
      await server.close();
    }
  });
});
