/**
 * `npm run bench -- find-typing [--size 1G] [--runs N]`: find as you type in the
 * app (issue 31), measured in Chromium (playwright-core, /usr/bin/chromium or
 * FOLIO_CHROMIUM) against `folio serve` on the synthetic log of bench/lib.ts. A
 * word is typed into the Find box one key at a time; after each key the bench
 * waits until that prefix's whole-file count is final, then types the next, so
 * each keystroke is timed on its own (a faster typist's earlier prefixes are
 * cancelled, which costs less). Per keystroke, from the key (keydown, in the
 * page) to: the first hit in the list, and the status saying "whole file
 * searched" with the count, both as the DOM changes (a MutationObserver). Both
 * include the panel's 150 ms debounce (FIND_DEBOUNCE_MS). Baseline in the same
 * run: `grep -c -i PREFIX FILE` as a whole process (the Find box is case-
 * insensitive by default); the counts must agree. Runs alternate which goes first.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium, type Page } from 'playwright-core';
import type { BenchOptions } from './main.ts';
import { DATA_DIR, fileSize, median, syntheticLog, table, timeCommand, warmPageCache } from './lib.ts';

const WORD = 'timeout';
const CHROMIUM = process.env.FOLIO_CHROMIUM ?? '/usr/bin/chromium';
const BIN = join(process.cwd(), 'bin', 'folio.mjs');

interface Keystroke {
  prefix: string;
  firstHitMs: number;
  finalMs: number;
  count: number;
}

async function startServe(file: string): Promise<{ child: ChildProcess; url: string }> {
  const ws = join(DATA_DIR, 'find-typing-ws');
  mkdirSync(ws, { recursive: true });
  const child = spawn(process.execPath, [BIN, 'serve', file, '--port', '0'], {
    cwd: ws,
    env: { ...process.env, FOLIO_CACHE_DIR: join(DATA_DIR, 'find-typing-cache') },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (l) => resolve(l.trim()));
    child.once('exit', (code) => reject(new Error(`folio serve exited ${code}`)));
  });
  return { child, url };
}

/** In the page: per prefix, when its key went down, its first hit showed, its count became final (performance.now()). */
function installRecorder(page: Page): Promise<void> {
  return page.evaluate(() => {
    const rec = { key: {} as Record<string, number>, hit: {} as Record<string, number>, final: {} as Record<string, [number, string]> };
    (window as unknown as { findRec: typeof rec }).findRec = rec;
    const input = document.querySelector<HTMLInputElement>('input[aria-label="Find"]')!;
    input.addEventListener('keydown', (e) => (rec.key[input.value + e.key] = performance.now()), { capture: true });
    new MutationObserver(() => {
      const status = document.querySelector('[data-testid="find-status"]');
      const p = status?.getAttribute('data-pattern');
      if (!status || !p || rec.key[p] === undefined) return;
      const now = performance.now();
      if (rec.hit[p] === undefined && document.querySelector('[data-testid="find-result"]')) rec.hit[p] = now;
      if (rec.final[p] === undefined && status.textContent?.includes('whole file searched'))
        rec.final[p] = [now, document.querySelector('[data-testid="find-total"]')?.textContent ?? ''];
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
}

/** One typing of WORD in a freshly loaded page; per keystroke its times. */
async function typeWord(page: Page, url: string, lines: number): Promise<Keystroke[]> {
  await page.goto(url);
  await page
    .getByTestId('file-lines')
    .filter({ hasText: new Intl.NumberFormat('en-US').format(lines) })
    .waitFor({ timeout: 600_000 });
  await page.getByTestId('file-view').click();
  await page.keyboard.press('Control+f');
  const input = page.getByRole('textbox', { name: 'Find' });
  await input.waitFor();
  await installRecorder(page);
  const out: Keystroke[] = [];
  for (let i = 1; i <= WORD.length; i++) {
    const prefix = WORD.slice(0, i);
    await input.press(WORD[i - 1]!);
    await page.waitForFunction((p) => (window as unknown as { findRec: { final: Record<string, unknown> } }).findRec.final[p] !== undefined, prefix, {
      timeout: 600_000,
      polling: 50,
    });
    const r = await page.evaluate((p) => {
      const rec = (window as unknown as { findRec: { key: Record<string, number>; hit: Record<string, number>; final: Record<string, [number, string]> } })
        .findRec;
      return { key: rec.key[p]!, hit: rec.hit[p], final: rec.final[p]! };
    }, prefix);
    out.push({
      prefix,
      firstHitMs: r.hit === undefined ? NaN : r.hit - r.key,
      finalMs: r.final[0] - r.key,
      count: Number(r.final[1].replace(/,/g, '')),
    });
  }
  return out;
}

function grepCount(file: string, prefix: string): { ms: number; count: number } {
  const { ms, stdout } = timeCommand(1, 'grep', ['-c', '-i', prefix, file], [0, 1]);
  return { ms, count: Number(stdout.trim()) };
}

const fmt = (xs: number[]) => `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;

export async function benchFindTyping(o: BenchOptions): Promise<void> {
  const file = syntheticLog(o.size);
  const bytes = fileSize(file);
  const lines = Number(spawnSync('wc', ['-l', file], { encoding: 'utf8' }).stdout.trim().split(/\s+/)[0]);
  warmPageCache(file);
  const runs = Math.max(o.runs, 5);
  console.log(`\n## find-typing: "${WORD}" typed into the Find box, ${(bytes / 1024 ** 3).toFixed(2)} GiB, ${lines} lines, ${runs} runs`);
  console.log(`load at start: ${spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.trim()}`);
  const serve = await startServe(file);
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  try {
    const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
    // Warm-up: the index is built (or loaded) and the search workers started.
    await typeWord(page, serve.url, lines);
    const folio: Keystroke[][] = [];
    const grep: { ms: number; count: number }[][] = [];
    for (let run = 0; run < runs; run++) {
      const doGrep = () => grep.push([...WORD].map((_, i) => grepCount(file, WORD.slice(0, i + 1))));
      if (run % 2) doGrep();
      folio.push(await typeWord(page, serve.url, lines));
      if (!(run % 2)) doGrep();
      process.stderr.write(`run ${run + 1}/${runs} done\n`);
    }
    const rows: (string | number)[][] = [['key', 'prefix', 'matches', 'first hit ms', 'count final ms', 'grep -c -i ms', 'count final / grep']];
    for (let i = 0; i < WORD.length; i++) {
      const counts = new Set([...folio.map((r) => r[i]!.count), ...grep.map((r) => r[i]!.count)]);
      if (counts.size !== 1) throw new Error(`counts differ for "${WORD.slice(0, i + 1)}": ${[...counts].join(', ')}`);
      const finals = folio.map((r) => r[i]!.finalMs);
      const greps = grep.map((r) => r[i]!.ms);
      rows.push([
        i + 1,
        WORD.slice(0, i + 1),
        [...counts][0]!,
        fmt(folio.map((r) => r[i]!.firstHitMs)),
        fmt(finals),
        fmt(greps),
        `${(median(finals) / median(greps)).toFixed(2)}x`,
      ]);
    }
    console.log('medians (min–max), ms from the key:');
    console.log(table(rows));
    console.log(`load at end: ${spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.trim()}`);
  } finally {
    await browser.close();
    serve.child.kill('SIGTERM');
  }
}
