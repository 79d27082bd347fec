import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { serve } from '../../src-main/doors/http/serve.ts';
import { forgetStores } from '../../src-main/review/store.ts';
import { tempDir } from '../fixtures/generate.ts';
import { openAsBrowser } from './http-request.ts';

const tmp = tempDir();
afterAll(() => {
  forgetStores();
  tmp.cleanup();
});

const INDEX =
  '<!doctype html><html><head><title>t</title><link rel="stylesheet" crossorigin href="./assets/app.css"></head><body><div id="root"></div></body></html>';
const CSS = '.plain-line { display: flex; }';

describe('folio serve puts the launch file first window in the page', () => {
  it('with the token: rows of the first lines (escaped) in #root and the read answer as JSON; without it: the plain page', async () => {
    const ws = tmp.path('ws');
    mkdirSync(ws);
    const renderer = tmp.path('renderer');
    mkdirSync(renderer);
    writeFileSync(`${renderer}/index.html`, INDEX);
    mkdirSync(`${renderer}/assets`);
    writeFileSync(`${renderer}/assets/app.css`, CSS);
    const file = `${ws}/page.log`;
    const lines = ['<script>alert(1)</script> & "quoted"', 'two\u2028three', ...Array.from({ length: 300 }, (_, i) => `line ${i + 3}`)];
    writeFileSync(file, lines.join('\r\n') + '\r\n');
    const server = await serve({ port: 0, rendererDir: renderer, workspace: ws, file });
    try {
      // The printed URL trades its token for the page cookie; the page it redirects to carries the window.
      const page = (await openAsBrowser(server.url)).text;
      const root = /<div id="root">(.*)<\/div>\s*<script type="application\/json"/s.exec(page)?.[1] ?? '';
      // The stylesheet comes inline, so the rows paint without waiting for a fetch.
      expect(page).toContain(`<style>${CSS}</style>`);
      expect(page).not.toContain('app.css');
      expect(root).not.toContain('<script>');
      expect(root).toContain('&#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;quoted&#34;');
      const rows = [...root.matchAll(/<span class="plain-line-no">(\d+)<\/span><span class="plain-line-text">([^<]*)<\/span>/g)];
      expect(rows).toHaveLength(120);
      expect(rows.map((r) => Number(r[1]))).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
      expect(rows[119]![2]).toBe('line 120');

      const json = /<script type="application\/json" id="folio-first-window">(.*?)<\/script>/s.exec(page)?.[1];
      expect(json).toBeDefined();
      expect(json).not.toMatch(/<|\u2028/);
      const first = JSON.parse(json!) as { path: string; read: { content: string; start_line: number; end_byte: number; version: { etag: string } } };
      expect(first.path).toBe(file);
      expect(first.read.start_line).toBe(1);
      expect(first.read.content.startsWith(lines.slice(0, 3).join('\r\n'))).toBe(true);
      expect(first.read.end_byte).toBeLessThanOrEqual(16_384);

      // Without the token the page carries no file content.
      const bare = new URL(server.url);
      bare.searchParams.delete('token');
      const plain = await (await fetch(bare)).text();
      expect(plain).toBe(INDEX);
      // Nor for a file that can't be read: the renderer shows that error itself.
      const missing = new URL(server.url);
      missing.searchParams.set('file', `${ws}/missing.log`);
      expect((await openAsBrowser(missing.href)).text).toBe(INDEX);
    } finally {
      await server.close();
    }
  });
});
