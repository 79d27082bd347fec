/** Sections, JSON paths and tokens over MCP: a real SDK client on `folio mcp`, edits routed to review. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approve, forgetStores } from '../../src-main/review/index.ts';
import { connectStdio, type McpSession } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mcp-address-');
const ws = tmp.path('ws');
const doc = join(ws, 'README.md');
const cfg = join(ws, 'cfg.json');
const TEXT = '# Folio\n\n## Install\n\n### Linux\n\napt install folio\n\n## Secrets\n\nAPI_SECRET=hunter2hunter2\n';
let mcp: McpSession;

beforeAll(async () => {
  mkdirSync(ws, { recursive: true });
  writeFileSync(doc, TEXT);
  writeFileSync(cfg, '{\n  "token": "password: hunter2hunter2",\n  "n": 1\n}\n');
  mcp = await connectStdio(ws, { cacheDir: tmp.path('cache'), clientName: 'address-agent' });
});
afterAll(async () => {
  await mcp?.close();
  forgetStores();
  tmp.cleanup();
});

describe('addressing over MCP', () => {
  it('outline, read by section, and a section upsert that becomes a proposal a person approves', async () => {
    const o = await mcp.call('outline', { path: 'README.md' });
    expect(o.isError).toBe(false);
    expect(o.body.headings.map((h: { path: string }) => h.path)).toEqual(['Folio', 'Folio > Install', 'Folio > Install > Linux', 'Folio > Secrets']);
    const r = await mcp.call('read', { path: 'README.md', section: 'Install > Linux', tokenizer: 'o200k_base' });
    expect(r.body.content).toBe('### Linux\n\napt install folio\n\n');
    expect(r.body.section.sha256).toBe(o.body.headings[2].sha256);
    expect(r.body.tokens.count).toBeGreaterThan(0);
    const secret = await mcp.call('read', { path: 'README.md', section: 'Secrets' });
    expect(secret.text).not.toContain('hunter2');
    const u = await mcp.call('upsert', {
      path: 'README.md',
      target: { section: { path: 'Install > Linux', position: 'append' } },
      content: 'dnf install folio\n\n',
      expected_section_sha256: r.body.section.sha256,
    });
    expect(u.isError).toBe(false);
    expect(u.body).toMatchObject({ applied: false, policy: 'review' });
    expect(readFileSync(doc, 'utf8')).toBe(TEXT);
    await approve(ws, { kind: 'human', name: 'reviewer' }, u.body.proposal_id);
    expect(readFileSync(doc, 'utf8')).toContain('apt install folio\n\ndnf install folio\n\n## Secrets');
    const stale = await mcp.call('upsert', {
      path: 'README.md',
      target: { section: { path: 'Install > Linux', position: 'replace' } },
      content: 'x\n',
      expected_section_sha256: r.body.section.sha256,
    });
    expect(stale.isError).toBe(true);
    expect(stale.body.error).toMatchObject({ code: 'precondition_failed', read: { section: 'Folio > Install > Linux' } });
  });

  it('JSON values read over MCP are redacted; audit lines name the outline calls', async () => {
    const j = await mcp.call('read', { path: 'cfg.json', json_path: '$.token' });
    expect(j.isError).toBe(false);
    expect(j.text).not.toContain('hunter2');
    const audit = readFileSync(join(ws, '.folio', 'audit.jsonl'), 'utf8');
    expect(audit).toMatch(/"op":"outline"/);
  });
});
