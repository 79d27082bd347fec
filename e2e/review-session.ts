/**
 * A small real agent session for the look of the review (a11y.spec.ts,
 * screenshots.spec.ts): a TypeScript project of four files served with one open,
 * and an agent (the MCP SDK client over `folio mcp`) that proposes a 3-hunk edit,
 * a quote edit, an edit in another file, and two overlapping edits from one read
 * of which the outer one is left in conflict once the inner one is approved.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Page } from '@playwright/test';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { connectAgent, type McpAgent } from './mcp-agent.ts';

export interface ReviewSession {
  workspace: string;
  server: FolioServe;
  agent: McpAgent;
  /** the open file's 3-hunk proposal */
  multiHunkId: string;
  /** the proposal left in conflict (in the open file) */
  conflictId: string;
  close(): Promise<void>;
}

/** client.ts: 120 lines of TypeScript, the file the session opens. */
export function clientTs(): string {
  const lines = [
    "import { request } from './http.ts';",
    "import type { Options } from './options.ts';",
    '',
    'export const defaults: Options = {',
    '  timeout: 504, // gateway timeout',
    '  retries: 3,',
    "  baseUrl: 'https://api.example.com',",
    '};',
    '',
  ];
  for (let i = 1; lines.length < 120; i++) {
    lines.push(`/** Fetch page ${i} of the orders, retried on 5xx. */`);
    lines.push(`export async function fetchOrders${i}(page = ${i}): Promise<string[]> {`);
    lines.push(`  const res = await request(\`/orders?page=\${page}\`, defaults);`);
    lines.push(`  return res.status === 200 ? JSON.parse(res.body) : [];`);
    lines.push('}', '');
  }
  return lines.slice(0, 120).join('\n') + '\n';
}

const FILES: Record<string, string> = {
  'options.ts': 'export interface Options {\n  timeout: number;\n  retries: number;\n  baseUrl: string;\n}\n',
  'http.ts': "export async function request(url: string, o: { timeout: number }) {\n  return { status: 200, body: '[]', url, o };\n}\n",
  'README.md': '# Orders client\n\nFetches orders page by page.\n',
};

export const queueItem = (page: Page, id: string) => page.locator(`[data-testid="queue-item"][data-proposal-id="${id}"]`);

/** Serve the project with client.ts open, have the agent propose, and load the page with `viewport`. */
export async function startReviewSession(page: Page, viewport: { width: number; height: number }): Promise<ReviewSession> {
  const fixtures = makeFixtureDir();
  const workspace = join(fixtures.dir, 'orders-client');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'client.ts'), clientTs());
  for (const [name, text] of Object.entries(FILES)) writeFileSync(join(workspace, name), text);
  const env = { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') };
  const server = await startFolioServe([join(workspace, 'client.ts')], { cwd: workspace, env });
  const agent = await connectAgent(workspace, env);
  await page.setViewportSize(viewport);
  await page.goto(server.url.href);

  const read = await agent.call('read', { path: 'client.ts' });
  const etag = read.version.etag as string;
  const multi = await agent.call('upsert', {
    path: 'client.ts',
    targets: [
      { replace: { start: 12, end: 12 }, content: '  const res = await request(`/orders?page=${page}`, { ...defaults, retries: 5 });\n' },
      {
        replace: { start: 30, end: 31 },
        content:
          '  const res = await request(`/orders?page=${page}&sort=date`, defaults);\n  if (res.status >= 500) throw new Error(`orders: ${res.status}`);\n',
      },
      { insert: { at: 40 }, content: '/** Orders of page 5, newest first. */\n' },
    ],
    if_match: etag,
  });
  await agent.call('edit', {
    path: 'options.ts',
    edits: [{ old_text: '  retries: number;\n', new_text: '  retries: number;\n  /** ms between retries */\n  backoff?: number;\n' }],
  });
  await agent.call('edit', { path: 'http.ts', edits: [{ old_text: "body: '[]'", new_text: "body: '[]', headers: {}" }] });
  // Two edits of lines 60–62 from the same read: the inner one approved first leaves the outer in conflict.
  const outer = await agent.call('upsert', {
    path: 'client.ts',
    target: { replace: { start: 60, end: 62 } },
    content:
      '  // AGENT: page through with a cursor\n  const res = await request(`/orders?cursor=${page}`, defaults);\n  return res.status === 200 ? JSON.parse(res.body) : [];\n',
    if_match: etag,
  });
  const inner = await agent.call('upsert', {
    path: 'client.ts',
    target: { replace: { start: 61, end: 61 } },
    content: '  const res = await request(`/orders?page=${page}&v=2`, defaults);\n',
    if_match: etag,
  });
  await queueItem(page, inner.proposal_id).click();
  await page.getByTestId('approve').click();
  await expect(queueItem(page, inner.proposal_id)).toHaveCount(0);
  await queueItem(page, outer.proposal_id).click();
  await page.getByTestId('approve').click();
  await expect(queueItem(page, outer.proposal_id)).toHaveAttribute('data-status', 'conflict');
  return {
    workspace,
    server,
    agent,
    multiHunkId: multi.proposal_id as string,
    conflictId: outer.proposal_id as string,
    async close() {
      await agent.close();
      await server.stop();
      fixtures.remove();
    },
  };
}
