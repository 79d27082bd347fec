/**
 * File text in errors and proposal conflicts is redacted like reads, over MCP with
 * the real SDK client, under review and auto: a stale etag, SHA-256, range digest or
 * anchor at every line of a private key (a short one and a 400-line one) returns the
 * current lines with every key line masked (its anchor kept, so an honest retry
 * works); a quote 90–99% like a key line answers the same as for another key (the
 * near-miss is looked for in the text as read); a proposal applied after the file
 * changed shows its conflict redacted through proposal_status. Attempts and leaks
 * are counted.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { forgetStores } from '../../src-main/review/index.ts';
import { connectStdio, type McpSession, type ToolAnswer } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mcp-redact-errors-');
const person = { kind: 'human' as const, name: 'reviewer' };

/** `n` lines shaped like a PEM body (64 base64 characters each), fresh for each call. */
const keyBody = (n: number): string[] => Array.from({ length: n }, () => randomBytes(48).toString('base64'));
const SMALL = keyBody(12);
const BIG = keyBody(400);
const OTHER = keyBody(12); // the same file with another key: answers must not tell them apart
const keyFile = (body: string[]) =>
  ['# deploy', 'steps below', '-----BEGIN RSA PRIVATE KEY-----', ...body, '-----END RSA PRIVATE KEY-----', 'after the key', 'tail', ''].join('\n');
const BIG_TEXT = ['head', '-----BEGIN PRIVATE KEY-----', ...BIG, '-----END PRIVATE KEY-----', 'tail', ''].join('\n');

/** Any 12 characters of a key body line in what the agent got (etags and digests left out: they are not file text). */
function leakIn(r: ToolAnswer, lines: string[]): string | null {
  const shown = JSON.stringify(r.body, (k, v) => (['version', 'current_version', 'etag', 'sha256'].includes(k) ? undefined : v));
  for (const l of lines) for (let i = 0; i + 12 <= l.length; i += 4) if (shown.includes(l.slice(i, i + 12))) return l.slice(i, i + 12);
  return null;
}

const sessions: Record<'review' | 'auto', { ws: string; mcp: McpSession }> = {} as never;

beforeAll(async () => {
  for (const mode of ['review', 'auto'] as const) {
    const ws = tmp.path(mode);
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, 'deploy.md'), keyFile(SMALL));
    writeFileSync(join(ws, 'other.md'), keyFile(OTHER));
    writeFileSync(join(ws, 'big.txt'), BIG_TEXT);
    const mcp = await connectStdio(ws, {
      cacheDir: tmp.path(`cache-${mode}`),
      clientName: `errors-${mode}`,
      flags: mode === 'auto' ? ['--review', 'auto'] : [],
    });
    sessions[mode] = { ws, mcp };
  }
});
afterAll(async () => {
  for (const s of Object.values(sessions)) await s.mcp.close();
  forgetStores();
  tmp.cleanup();
});

/** Stale guards of an insert at `at`: each fails, each answers current lines (around `at`, or the anchored line). */
const staleGuards = (at: number, visibleLine: number) =>
  [{ if_match: 'W/"stale"' }, { expected_sha256: '0'.repeat(64) }, { if_not_modified_since: '2001-01-01T00:00:00Z' }, { anchors: [`${visibleLine}#000`] }].map(
    (g) => ({ ...g, target: { insert: { at } }, content: 'x\n' }),
  );

describe('precondition_failed shows current lines redacted', () => {
  for (const mode of ['review', 'auto'] as const) {
    it(`${mode}: stale guards at every line of a 12-line key return no key line, anchors kept`, async () => {
      const { mcp } = sessions[mode];
      let attempts = 0;
      let failed = 0;
      const codes: string[] = [];
      const leaks: string[] = [];
      for (let at = 1; at <= 19; at++) {
        for (const g of staleGuards(at, 1)) {
          const r = await mcp.call('upsert', { path: 'deploy.md', ...g });
          attempts++;
          if (r.isError && r.body.error.code === 'precondition_failed') failed++;
          else codes.push(`${at} ${Object.keys(g).join(',')}: ${r.isError ? r.body.error.code : 'ok'}`);
          const leak = leakIn(r, SMALL);
          if (leak) leaks.push(`at ${at} ${JSON.stringify(g)}: ${leak}`);
        }
      }
      console.log(`[${mode}] 12-line key: ${attempts} attempts, ${failed} precondition_failed, ${leaks.length} leaks`);
      expect(leaks).toEqual([]);
      expect(codes).toEqual([]);
    });

    it(`${mode}: a key line in current keeps its anchor and is listed in redacted_lines; the visible lines stay`, async () => {
      const { mcp } = sessions[mode];
      const r = await mcp.call('upsert', { path: 'deploy.md', target: { insert: { at: 8 } }, content: 'x\n', if_match: 'W/"stale"' });
      expect(r.body.error.code).toBe('precondition_failed');
      const [cur] = r.body.error.current;
      expect(cur.text).toMatch(/^8#[0-9a-f]{3}\|\[REDACTED:private_key\]$/);
      expect(cur.redacted_lines).toEqual([8]);
      // An honest retry: a read gives the same anchor for line 8.
      const read = await mcp.call('read', { path: 'deploy.md', ranges: [{ start: 8, end: 8 }], hashlines: true });
      expect((read.body.ranges?.[0]?.content ?? read.body.content).split('|')[0]).toBe(cur.text.split('|')[0]);
      const visible = await mcp.call('upsert', { path: 'deploy.md', target: { insert: { at: 16 } }, content: 'x\n', if_match: 'W/"stale"' });
      expect(visible.body.error.current[0].text).toMatch(/^16#[0-9a-f]{3}\|-----END RSA PRIVATE KEY-----$|^16#[0-9a-f]{3}\|\[REDACTED:private_key\]$/);
      const after = await mcp.call('upsert', { path: 'deploy.md', target: { insert: { at: 17 } }, content: 'x\n', if_match: 'W/"stale"' });
      expect(after.body.error.current[0].text).toMatch(/^17#[0-9a-f]{3}\|after the key$/);
      expect(after.body.error.current[0].redacted_lines).toBeUndefined();
    });

    it(`${mode}: stale guards in the middle of a 400-line key return no key line`, async () => {
      const { mcp } = sessions[mode];
      let attempts = 0;
      const leaks: string[] = [];
      for (const at of [3, 50, 150, 199, 200, 201, 202, 203, 250, 350, 401, 402]) {
        for (const g of staleGuards(at, 1)) {
          const r = await mcp.call('upsert', { path: 'big.txt', ...g });
          attempts++;
          const leak = leakIn(r, BIG);
          if (leak) leaks.push(`at ${at}: ${leak}`);
        }
      }
      console.log(`[${mode}] 400-line key: ${attempts} attempts, ${leaks.length} leaks`);
      expect(leaks).toEqual([]);
    });
  }
});

describe('a quote near a key line is no oracle', () => {
  /** `line` with `k` characters changed (from the middle on). */
  const nearly = (line: string, k: number) => line.slice(0, 30) + [...line.slice(30, 30 + k)].map((c) => (c === 'A' ? 'B' : 'A')).join('') + line.slice(30 + k);
  /** The answer without what names the file or version. */
  const answerOf = (r: ToolAnswer) => JSON.stringify(r.body, (k, v) => (['path', 'version', 'current_version'].includes(k) ? undefined : v));

  for (const mode of ['review', 'auto'] as const) {
    it(`${mode}: quotes 90–100% like a key line answer the same for the file with that key and one with another`, async () => {
      const { mcp } = sessions[mode];
      let attempts = 0;
      const leaks: string[] = [];
      const differ: string[] = [];
      for (const lineIdx of [0, 5, 11]) {
        for (const k of [0, 1, 2, 4, 6]) {
          const quote = nearly(SMALL[lineIdx]!, k);
          const edit = { edits: [{ old_text: quote, new_text: 'replaced' }] };
          const mine = await mcp.call('edit', { path: 'deploy.md', ...edit });
          const theirs = await mcp.call('edit', { path: 'other.md', ...edit });
          attempts += 2;
          expect(mine.isError, mine.text).toBe(true);
          // The quote is the agent's own: a leak is the real line where the quote differs from it, or any other key line.
          const real = SMALL[lineIdx]!.slice(26, 34 + k);
          for (const r of [mine, theirs]) {
            const others = [...SMALL, ...OTHER].filter((l) => l !== SMALL[lineIdx]);
            const leak = (k > 0 && JSON.stringify(r.body).includes(real) ? real : null) ?? leakIn(r, others);
            if (leak) leaks.push(`line ${lineIdx} k ${k}: ${leak}`);
          }
          if (answerOf(mine) !== answerOf(theirs)) differ.push(`line ${lineIdx} k ${k}:\n${answerOf(mine)}\n${answerOf(theirs)}`);
        }
      }
      console.log(`[${mode}] near-miss: ${attempts} attempts, ${leaks.length} leaks, ${differ.length} answers that differ by key`);
      expect(leaks).toEqual([]);
      expect(differ).toEqual([]);
    });
  }

  it('a near-miss on visible text still helps an honest agent', async () => {
    // Part of a line (a whole line would match loosely: test/mcp/loose-edit.test.ts).
    const r = await sessions.review.mcp.call('edit', { path: 'deploy.md', edits: [{ old_text: 'after  the', new_text: 'y' }] });
    expect(r.body.error.code).toBe('no_match');
    expect(r.body.error.nearest).toMatchObject({ line: 17, text: 'after the key', differs: 'whitespace' });
  });
});

describe('previews and conflicts next to a key', () => {
  it('auto: edit previews and a dry run next to the key show no key line', async () => {
    const { mcp } = sessions.auto;
    let attempts = 0;
    const leaks: string[] = [];
    const { etag } = (await mcp.call('file_info', { path: 'deploy.md' })).body.version;
    for (const at of [2, 3, 16, 17]) {
      const r = await mcp.call('upsert', { path: 'deploy.md', target: { insert: { at } }, content: 'note\n', dry_run: true, if_match: etag });
      attempts++;
      expect(r.isError, r.text).toBe(false);
      if (leakIn(r, SMALL)) leaks.push(`preview at ${at}`);
    }
    console.log(`[auto] previews: ${attempts} attempts, ${leaks.length} leaks`);
    expect(leaks).toEqual([]);
  });

  it('review: a proposal inserted inside the key, applied after the file changed, shows its conflict redacted', async () => {
    const { mcp, ws } = sessions.review;
    writeFileSync(join(ws, 'conflict.md'), keyFile(SMALL));
    const seen = await mcp.call('read', { path: 'conflict.md', start_line: 1, end_line: 2 });
    const p = await mcp.call('upsert', { path: 'conflict.md', target: { insert: { at: 9 } }, content: 'x\n', if_match: seen.body.version.etag });
    expect(p.isError, p.text).toBe(false);
    expect(leakIn(p, SMALL)).toBeNull();
    writeFileSync(join(ws, 'conflict.md'), keyFile(SMALL).replace('tail', 'tail changed'));
    await handle('review_approve', { id: p.body.proposal_id }, person, { workspace: ws }).catch(() => undefined);
    const status = await mcp.call('proposal_status', { proposal_id: p.body.proposal_id });
    expect(status.body.status).toBe('conflict');
    expect(status.body.conflict.current.length).toBeGreaterThan(0);
    expect(leakIn(status, SMALL)).toBeNull();
    expect(status.body.conflict.current[0].text).toMatch(/^9#[0-9a-f]{3}\|\[REDACTED:private_key\]$/);
  });
});
