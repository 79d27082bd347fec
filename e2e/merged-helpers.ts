/**
 * What the merged-view specs share: the rows as the page shows them, and small
 * stamped logs served by a `folio serve` of their own.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';

export interface MergedRow {
  /** 0-based index in the merged view */
  index: number;
  /** the file tag shown */
  tag: string;
  text: string;
  /** the file the row says it comes from, and its 1-based line there */
  path: string;
  line: number;
}

export function mergedRowsOf(page: Page): Promise<MergedRow[]> {
  return page.getByTestId('merged-line').evaluateAll((rows) =>
    rows.map((row) => ({
      index: Number(row.getAttribute('data-index')),
      tag: row.querySelector('.merged-tag')?.textContent ?? '',
      text: row.querySelector('.merged-text')?.textContent ?? '',
      path: row.getAttribute('data-path') ?? '',
      line: Number(row.getAttribute('data-line')),
    })),
  );
}

/** `lines` lines `stepMs` apart from 2024-05-01T10:00:00Z, the stamp first on the line (sort -k1,1 compares them). */
export function writeSteppedLog(path: string, name: string, lines: number, stepMs: number): void {
  const start = Date.UTC(2024, 4, 1, 10, 0, 0);
  const out: string[] = [];
  for (let i = 1; i <= lines; i++) out.push(`${new Date(start + i * stepMs).toISOString()} INFO [${name}] request ${i}`);
  writeFileSync(path, out.join('\n') + '\n');
}

export interface SteppedLogs {
  /** the logs' paths, in the order given */
  logs: string[];
  server: FolioServe;
  stop(): Promise<void>;
}

/** Stepped logs (name.log each) in a workspace of their own, and a `folio serve` there showing the first. */
export async function serveSteppedLogs(specs: { name: string; lines: number; stepMs: number }[]): Promise<SteppedLogs> {
  const fixtures = makeFixtureDir();
  const workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  const logs = specs.map(({ name, lines, stepMs }) => {
    const path = join(workspace, `${name}.log`);
    writeSteppedLog(path, name, lines, stepMs);
    return path;
  });
  const server = await startFolioServe([logs[0]!], {
    cwd: workspace,
    env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache'), FOLIO_CONFIG_DIR: join(fixtures.dir, 'config') },
  });
  return {
    logs,
    server,
    stop: async () => {
      await server.stop();
      fixtures.remove();
    },
  };
}

/** Stepped logs served for the tests of one spec file: started before them, stopped after. */
export function servedSteppedLogs(specs: { name: string; lines: number; stepMs: number }[]): () => SteppedLogs {
  let served: SteppedLogs | undefined;
  test.beforeAll(async () => {
    served = await serveSteppedLogs(specs);
  });
  test.afterAll(async () => {
    await served?.stop();
  });
  return () => served!;
}

/** Open `paths` in tabs by the path box, each waited for (the server's own file is open already), then merge every open tab: the merged lines' listbox. */
export async function mergeOpenTabs(page: Page, paths: readonly string[]): Promise<Locator> {
  for (const path of paths) {
    await page.getByTestId('path-input').fill(path);
    await page.getByTestId('path-input').press('Enter');
    await expect(page.getByTestId('file-path')).toHaveText(path);
    await expect(page.getByRole('tab', { selected: true })).toHaveText(basename(path));
  }
  await page.getByRole('button', { name: 'Merge tabs' }).click();
  await page.getByRole('form', { name: 'Logs to merge' }).getByRole('button', { name: 'Open merged view' }).click();
  await expect(page.getByTestId('merged-line').first()).toBeVisible();
  return page.getByRole('listbox', { name: 'Merged lines' });
}
