/**
 * Codex's own apply_patch scenarios (codex-rs/apply-patch/tests/fixtures/scenarios:
 * input/, patch.txt, expected/), run through `folio patch` as a child process: the
 * tree after the patch must be Codex's expected tree, except where Folio decides
 * otherwise on purpose (DIFFERENT, each with why; there the tree must be the input,
 * unchanged, and the exit status an error).
 *
 * The fixtures are Codex's, not Folio's, so they are not committed: point
 * FOLIO_CODEX_SCENARIOS at a copy of that folder (docs/TESTING.md says how to get
 * one). Without it the suite reports itself skipped.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const SCENARIOS = process.env.FOLIO_CODEX_SCENARIOS;

/** Scenarios where Folio refuses what Codex does, and why: Folio leaves the input as it was. */
const DIFFERENT: Record<string, string> = {
  '010_move_overwrites_existing_destination': 'a move never replaces a file',
  '011_add_overwrites_existing_file': 'Add File creates (if_none_match "*"): an existing file is not overwritten',
  '015_failure_after_partial_success_leaves_changes': 'all or nothing: a failing hunk leaves every file as it was',
};

/** Every file under `dir` (relative path → text), skipping Folio's own state. */
function treeOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (name === '.folio') continue;
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

describe.skipIf(!SCENARIOS)("Codex's apply_patch scenarios through folio patch", () => {
  const names = SCENARIOS ? readdirSync(SCENARIOS).filter((n) => existsSync(join(SCENARIOS, n, 'patch.txt'))) : [];
  it.each(names)('%s', (name) => {
    const src = join(SCENARIOS!, name);
    const tmp = tempDir('folio-codex-scenario-');
    try {
      const work = tmp.path('work');
      mkdirSync(work, { recursive: true });
      if (existsSync(join(src, 'input'))) cpSync(join(src, 'input'), work, { recursive: true });
      const before = treeOf(work);
      const r = spawnSync(process.execPath, [BIN, 'patch', '--patch-file', join(src, 'patch.txt'), '--root', tmp.path('state')], {
        cwd: work,
        encoding: 'utf8',
        env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') },
      });
      if (DIFFERENT[name]) {
        expect(r.status, `${name}: ${DIFFERENT[name]}\n${r.stdout}`).not.toBe(0);
        expect(treeOf(work)).toEqual(before);
        return;
      }
      expect(treeOf(work), `${r.stdout}${r.stderr}`).toEqual(treeOf(join(src, 'expected')));
    } finally {
      tmp.cleanup();
    }
  });
});
