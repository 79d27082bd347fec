import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { serve } from '../../src-main/doors/http/serve.ts';
import { read } from '../../src-main/engine/read/read.ts';
import { forgetStores } from '../../src-main/review/store.ts';
import { propose } from '../../src-main/review/proposals.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir();
afterAll(() => {
  forgetStores();
  tmp.cleanup();
});

describe('folio serve pushes review changes', () => {
  it('GET /api/events streams review_changed when a proposal arrives; review ops over HTTP see the workspace', async () => {
    const ws = tmp.path('ws');
    mkdirSync(ws);
    const renderer = tmp.path('renderer');
    mkdirSync(renderer);
    writeFileSync(`${renderer}/index.html`, '<!doctype html><title>t</title>');
    writeFileSync(`${ws}/notes.txt`, 'one\ntwo\n');
    const server = await serve({ port: 0, rendererDir: renderer, workspace: ws });
    const { origin } = new URL(server.url);
    const auth = { authorization: `Bearer ${server.token}` };
    try {
      expect((await fetch(`${origin}/api/events`)).status).toBe(401);
      const ac = new AbortController();
      const res = await fetch(`${origin}/api/events`, { headers: auth, signal: ac.signal });
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const reader = res.body!.getReader();
      let text = '';
      /** Read the stream until it holds `want` (or ends). */
      const until = async (want: string) => {
        while (!text.includes(want)) {
          const { value, done } = await reader.read();
          if (done) return;
          text += new TextDecoder().decode(value);
        }
      };
      // The server writes its opening comment and subscribes in the same turn: once the
      // comment is here, the subscription is there.
      await until(': folio events');
      const etag = (await read(`${ws}/notes.txt`, { mode: 'head', lines: 1 })).version.etag;
      const p = await propose(
        ws,
        { kind: 'agent', name: 'test-agent' },
        {
          path: `${ws}/notes.txt`,
          target: { kind: 'replace', start: 2, end: 2, units: 'lines' },
          content: 'TWO',
          preconditions: { ifMatch: etag },
        },
      );
      await until('event: review_changed'); // no event: the test's own timeout says so
      const data = JSON.parse(/data: (.*)\n/.exec(text)![1]!);
      expect(data).toMatchObject({ type: 'review_changed', workspace: ws });
      ac.abort();
      const list = await (
        await fetch(`${origin}/api/review_list`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' })
      ).json();
      expect(list.proposals.map((x: { id: string }) => x.id)).toContain(p.proposal_id);
    } finally {
      await server.close();
    }
  });
});
