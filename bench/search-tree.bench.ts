/**
 * `npm run bench -- search-tree [--runs N]`: whole-process `folio search DIR REGEX`
 * against `rg REGEX DIR` on a source tree, same run, same page cache, and the same
 * answer checked (matching lines per file). The tree is the Linux kernel source
 * from Debian's linux-source package (extracted once under bench/.data; its
 * top-level .gitignore loses the Debian packaging block that ignores everything,
 * and it gets an empty `git init` so both tools stop looking for .gitignore files
 * there); without the package, a generated tree of the same shape (70,000 files,
 * smaller files: ~170 MB). Also the engine alone (searchTree in this process), to
 * tell the search from the CLI's start-up.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closeSearchPools } from '../src-main/engine/search/search.ts';
import { closeTreeSearchPools, searchTree } from '../src-main/engine/search/tree-search.ts';
import { writeSourceTree } from '../test/fixtures/source-tree.ts';
import type { BenchOptions } from './main.ts';
import { DATA_DIR, table, timeCommand, timeMedian } from './lib.ts';

const BIN = join(process.cwd(), 'bin/folio.mjs');

/** The kernel tree under bench/.data, extracted from /usr/src/linux-source-*.tar.xz once; null without the package. */
function kernelTree(): string | null {
  const existing = existsSync(DATA_DIR) ? readdirSync(DATA_DIR).find((d) => /^linux-source-[\d.]+$/.test(d)) : undefined;
  if (existing) return join(DATA_DIR, existing);
  const tarball = existsSync('/usr/src') ? readdirSync('/usr/src').find((f) => /^linux-source-[\d.]+\.tar\.xz$/.test(f)) : undefined;
  if (!tarball) return null;
  process.stderr.write(`extracting /usr/src/${tarball} into ${DATA_DIR} (once)...\n`);
  mkdirSync(DATA_DIR, { recursive: true });
  execFileSync('tar', ['-xJf', join('/usr/src', tarball), '-C', DATA_DIR]);
  const dir = join(DATA_DIR, tarball.replace(/\.tar\.xz$/, ''));
  // Debian's block at the end ignores every top-level entry (its packaging repo keeps only debian/).
  const gi = join(dir, '.gitignore');
  const text = readFileSync(gi, 'utf8');
  const cut = text.indexOf('# Debian packaging');
  if (cut >= 0) writeFileSync(gi, text.slice(0, text.lastIndexOf('\n#', cut) + 1));
  execFileSync('git', ['init', '-q', dir]);
  return dir;
}

/** A generated tree of the kernel's shape when the package is not installed. */
function generatedTree(): string {
  const dir = join(DATA_DIR, 'source-tree-70k');
  if (!existsSync(dir)) {
    process.stderr.write(`generating a 70,000-file source tree at ${dir} (once)...\n`);
    const tmp = `${dir}.tmp`;
    mkdirSync(tmp, { recursive: true });
    writeSourceTree(tmp, 70, { files: 70_000, maxLines: 120 });
    renameSync(tmp, dir);
  }
  return dir;
}

/** rg's per-file counts as "path:count" (paths relative to the tree), sorted. */
const countsOf = (out: string, prefix: string) =>
  out
    .split('\n')
    .filter(Boolean)
    .map((l) => (l.startsWith(prefix) ? l.slice(prefix.length) : l))
    .sort();

export async function benchSearchTree(o: BenchOptions): Promise<void> {
  process.env.FOLIO_CACHE_DIR = join(DATA_DIR, 'cache');
  const kernel = kernelTree();
  const dir = realpathSync(kernel ?? generatedTree());
  const files = Number(execFileSync('sh', ['-c', `find "${dir}" -type f -not -path '*/.git/*' | wc -l`], { encoding: 'utf8' }).trim());
  const bytes = Number(execFileSync('du', ['-sb', '--exclude=.git', dir], { encoding: 'utf8' }).split('\t')[0]);
  process.stdout.write(
    `\n## search-tree: ${kernel ? 'Linux kernel source' : 'generated tree'} (${files.toLocaleString('en-US')} files, ${(bytes / 1e9).toFixed(2)} GB), ` +
      `${o.runs} runs after a warm-up (page cache warm)\n\n`,
  );
  const cases: { name: string; pattern: string; rg: string[]; folio: string[]; count: boolean }[] = [
    { name: 'literal, count per file', pattern: 'EXPORT_SYMBOL_GPL', rg: ['-c'], folio: ['--count'], count: true },
    { name: 'regex, count per file', pattern: 'spin_(un)?lock_irq(save|restore)?\\(', rg: ['-c'], folio: ['--count'], count: true },
    { name: 'case-insensitive, count per file', pattern: 'mutex_lock', rg: ['-c', '-i'], folio: ['--count', '-i'], count: true },
    {
      name: 'rare regex, list lines',
      pattern: 'ktime_get_coarse_ts64\\(',
      rg: ['-n', '--no-heading', '--with-filename'],
      folio: ['--max', '10000'],
      count: false,
    },
  ];
  const rows: (string | number)[][] = [['case', 'rg', 'folio (whole process)', 'ratio', 'folio engine only', 'same answer']];
  for (const c of cases) {
    const rg = timeCommand(o.runs, 'rg', [...c.rg, c.pattern, dir], [0, 1]);
    const folio = timeCommand(o.runs, process.execPath, [BIN, 'search', dir, c.pattern, ...c.folio], [0]);
    const flags = c.rg.includes('-i') ? 'i' : '';
    const engine = await timeMedian(o.runs, () => searchTree(dir, { pattern: c.pattern, flags, countOnly: c.count, maxMatches: 10_000, timeoutMs: 600_000 }));
    let same: boolean;
    if (c.count) {
      same = JSON.stringify(countsOf(rg.stdout, `${dir}/`)) === JSON.stringify(countsOf(folio.stdout, `${dir}/`));
    } else {
      const fromFolio = folio.stdout.split('\n').filter((l) => l && !l.startsWith('-- '));
      same = JSON.stringify(countsOf(rg.stdout, '')) === JSON.stringify([...fromFolio].sort());
    }
    rows.push([
      c.name,
      `${rg.ms.toFixed(0)} ms`,
      `${folio.ms.toFixed(0)} ms`,
      `${(folio.ms / rg.ms).toFixed(2)}x`,
      `${engine.toFixed(0)} ms`,
      same ? 'yes' : 'NO',
    ]);
  }
  const startup = timeCommand(o.runs, process.execPath, [BIN, '--help'], [0]);
  process.stdout.write(table(rows) + '\n\n');
  process.stdout.write(
    `CLI start-up alone (\`folio --help\`): ${startup.ms.toFixed(0)} ms; rg ${spawnSync('rg', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0]}\n`,
  );
  await closeTreeSearchPools();
  await closeSearchPools();
}
