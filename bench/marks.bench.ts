/**
 * Marks that follow their lines (api/app/mark-anchors.ts): marks_list of 10,000
 * marks (the per-file cap) after an outside edit, through the operation table.
 * A 1,000,000-line log with a mark on every 100th line; each run restores the
 * marks as taken on the first version, then lists on the edited one. Baselines
 * in the same run: marks_list with nothing changed (read marks.json only) and
 * `grep -c` over the whole file (what reading the file once costs).
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { handle } from '../src-main/api/handle.ts';
import { lineSourceOf, printsAt } from '../src-main/api/app/mark-anchors.ts';
import { openIndex } from '../src-main/engine/index/store.ts';
import type { BenchOptions } from './main.ts';
import { DATA_DIR, table, timeCommand, timeMedian, warmPageCache } from './lib.ts';

const me = { kind: 'human' as const, name: 'bench' };
const LINES = 1_000_000;
const EVERY = 100;

const lineOf = (i: number) => `2024-05-01T00:00:${String(i % 60).padStart(2, '0')}Z INFO [worker-${i % 8}] request ${i} done path=/api/items/${i % 997}`;

export async function benchMarks(o: BenchOptions): Promise<void> {
  const dir = join(DATA_DIR, 'marks');
  mkdirSync(dir, { recursive: true });
  process.env.FOLIO_CACHE_DIR = join(dir, 'cache');
  process.env.FOLIO_CONFIG_DIR = join(dir, 'config');
  mkdirSync(process.env.FOLIO_CONFIG_DIR, { recursive: true });
  const log = join(dir, 'app.log');
  const original = Array.from({ length: LINES }, (_, i) => lineOf(i + 1));
  const versions = {
    original: original.join('\n') + '\n',
    inserted: ['new 1', 'new 2', 'new 3', ...original].join('\n') + '\n',
    halfShifted: [...original.slice(0, LINES / 2), 'new 1', 'new 2', 'new 3', ...original.slice(LINES / 2)].join('\n') + '\n',
    allEdited: original.map((t, i) => ((i + 1) % EVERY === 0 ? `${t} edited` : t)).join('\n') + '\n',
  };
  const marks = Array.from({ length: LINES / EVERY }, (_, i) => (i + 1) * EVERY);
  // Marks taken on the original version, as marks_set keeps them.
  writeFileSync(log, versions.original);
  const src = lineSourceOf(await openIndex(log))!;
  const marksFile = join(process.env.FOLIO_CONFIG_DIR, 'marks.json');
  const snapshot = join(dir, 'marks-original.json');
  writeFileSync(
    snapshot,
    JSON.stringify({ version: 1, files: { [log]: { lines: marks, prints: printsAt(src, marks), etag: src.etag, updated_at: new Date().toISOString() } } }),
  );
  process.stdout.write(
    `\n## marks: marks_list of ${marks.length.toLocaleString('en-US')} marks on a ${LINES.toLocaleString('en-US')}-line log after an edit, ${o.runs} runs\n\n`,
  );
  const rows: (string | number)[][] = [['case', 'ms (median)', 'moved', 'lost']];
  for (const [name, text] of Object.entries(versions)) {
    writeFileSync(log, text);
    warmPageCache(log);
    await handle('file_info', { path: log }, me); // the index of this version, as the app has it after its refresh
    let answer: { lines: number[]; lost?: number[] } = { lines: [] };
    const ms = await timeMedian(o.runs, async () => {
      copyFileSync(snapshot, marksFile);
      answer = await handle('marks_list', { path: log }, me);
    });
    const moved = answer.lines.filter((n, i) => n !== marks[i]).length;
    rows.push([`${name}: re-anchor`, ms.toFixed(1), moved, answer.lost?.length ?? 0]);
    if (name === 'original') {
      const unchangedMs = await timeMedian(o.runs, () => handle('marks_list', { path: log }, me));
      rows.push(['original: listed again (nothing changed; baseline)', unchangedMs.toFixed(1), 0, 0]);
    }
  }
  const grep = timeCommand(o.runs, 'grep', ['-c', 'done', log]);
  rows.push([`grep -c over the whole file (${(readFileSync(log).length / 1024 ** 2).toFixed(0)} MiB; baseline)`, grep.ms.toFixed(1), '', '']);
  process.stdout.write(table(rows) + '\n');
}
