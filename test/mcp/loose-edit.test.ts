/**
 * Quote edits that forgive what agents get wrong (issue 27): through `folio mcp` with
 * the real SDK client and through the CLI (`folio edit`, a real child process), a quote
 * that differs from the file in indentation, tabs against spaces, trailing whitespace
 * or look-alike punctuation is applied at the one place it matches loosely, re-indented,
 * and the answer says so; several places are ambiguous and change nothing; a proposal
 * made of a loose quote is approved where the quote matched; lines the agent saw
 * redacted are not reached by a loose quote either.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetStores } from '../../src-main/review/index.ts';
import { BIN, connectStdio, okBody as ok, type McpSession } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mcp-loose-');
const ws = tmp.path('ws');
const cacheDir = tmp.path('cache');
let auto: McpSession;
let review: McpSession;

const PY = ['def handler(event):', '\tif event.ok:', '\t\tlog("it\'s fine") - 1   ', '\t\treturn 200', '\treturn 500', ''].join('\n');
// The agent's quote: spaces for tabs, a typographic apostrophe and an en dash, no trailing spaces.
const QUOTE = '    if event.ok:\n        log("it\u2019s fine") \u2013 1\n';
const NEW = '    if event.ok:\n        log("fine")\n        metrics.inc()\n';
const AFTER = ['def handler(event):', '\tif event.ok:', '\t\tlog("fine")', '\t\tmetrics.inc()', '\t\treturn 200', '\treturn 500', ''].join('\n');

beforeAll(async () => {
  mkdirSync(ws, { recursive: true });
  [auto, review] = await Promise.all([
    connectStdio(ws, { cacheDir, clientName: 'loose-auto', flags: ['--review', 'auto'] }),
    connectStdio(ws, { cacheDir, clientName: 'loose-review' }),
  ]);
});
afterAll(async () => {
  await Promise.all([auto?.close(), review?.close()]);
  forgetStores();
  tmp.cleanup();
});

const folio = (args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', cwd: ws, env: { ...process.env, FOLIO_CACHE_DIR: cacheDir } });

describe('over MCP', () => {
  it('a loose quote is applied where it matches, in tabs, and the answer says how it differed', async () => {
    writeFileSync(join(ws, 'h1.py'), PY);
    const answer = ok(await auto.call('edit', { path: 'h1.py', edits: [{ old_text: QUOTE, new_text: NEW }] }));
    expect(answer.applied).toBe(true);
    expect(readFileSync(join(ws, 'h1.py'), 'utf8')).toBe(AFTER);
    // Agents get notes (the tool list stays short); the CLI's --json has loose_matches too (below).
    expect(answer.notes).toEqual([
      "edit 0: old_text was not in the file exactly; it matched lines 2-3 loosely (differs: indentation, trailing whitespace, punctuation), and new_text was given the file's indentation: check the preview",
    ]);
  });

  it('two places that match loosely: ambiguous_match with both lines, the file unchanged', async () => {
    const text = 'a = 1\n  retry()\nb = 2\n\tretry()\n';
    writeFileSync(join(ws, 'twice.py'), text);
    const r = await auto.call('edit', { path: 'twice.py', edits: [{ old_text: 'retry() ', new_text: 'stop()' }] });
    expect(r.isError).toBe(true);
    expect(r.body.error).toMatchObject({ code: 'ambiguous_match', lines: [2, 4], loose: true });
    expect(readFileSync(join(ws, 'twice.py'), 'utf8')).toBe(text);
  });

  it('a proposal of a loose quote is approved where it matched (re-resolved loosely at approval)', async () => {
    writeFileSync(join(ws, 'h2.py'), PY);
    const proposed = ok(await review.call('edit', { path: 'h2.py', edits: [{ old_text: QUOTE, new_text: NEW }] }));
    expect(proposed.proposal_id).toEqual(expect.any(String));
    expect(proposed.notes.join('\n')).toMatch(/matched lines 2-3 loosely/);
    expect(readFileSync(join(ws, 'h2.py'), 'utf8')).toBe(PY);
    const approved = folio(['review', 'approve', proposed.proposal_id, '--root', ws, '--json']);
    expect(approved.status, approved.stderr).toBe(0);
    expect(readFileSync(join(ws, 'h2.py'), 'utf8')).toBe(AFTER);
  });

  it('a loose quote of lines the agent saw redacted is no_match, and nothing is written or leaked', async () => {
    const secret = 'hunter2-correct-horse';
    const text = `# settings\npassword = "${secret}"\nregion = eu-west-1\n`;
    writeFileSync(join(ws, 'settings.conf'), text);
    const seen = ok(await auto.call('read', { path: 'settings.conf' }));
    const redactedLine = (seen.content as string).split('\n')[1]!;
    expect(redactedLine).not.toContain(secret);
    // The agent re-indents what it read: the redacted line is not the file's line, loosely or not.
    const r = await auto.call('edit', { path: 'settings.conf', edits: [{ old_text: `  ${redactedLine}\n  region = eu-west-1\n`, new_text: 'x\n' }] });
    expect(r.isError).toBe(true);
    expect(r.body.error.code).toBe('no_match');
    expect(JSON.stringify(r.body)).not.toContain(secret);
    expect(readFileSync(join(ws, 'settings.conf'), 'utf8')).toBe(text);
    // A plain line beside it, quoted loosely, is the agent's to edit.
    const plain = ok(await auto.call('edit', { path: 'settings.conf', edits: [{ old_text: '\tregion = eu-west-1 \n', new_text: 'region = us-east-1\n' }] }));
    expect(plain.notes.join('\n')).toMatch(/matched line 3 loosely \(differs: indentation, trailing whitespace\)/);
    expect(readFileSync(join(ws, 'settings.conf'), 'utf8')).toBe(`# settings\npassword = "${secret}"\nregion = us-east-1\n`);
  });
});

describe('folio edit (CLI)', () => {
  it('applies a loose quote and prints the note; --json carries loose_matches', () => {
    writeFileSync(join(ws, 'h3.py'), PY);
    const r = folio(['edit', 'h3.py', '--old', QUOTE, '--new', NEW, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const answer = JSON.parse(r.stdout);
    expect(answer.loose_matches[0]).toMatchObject({ start_line: 2, end_line: 3, reindented: true });
    expect(readFileSync(join(ws, 'h3.py'), 'utf8')).toBe(AFTER);
    writeFileSync(join(ws, 'h4.py'), PY);
    const text = folio(['edit', 'h4.py', '--old', QUOTE, '--new', NEW]);
    expect(text.stdout).toMatch(/note: edit 0: old_text was not in the file exactly; it matched lines 2-3 loosely/);
  });

  it('two loose places: exit status 1, ambiguous_match, the file unchanged', () => {
    const text = 'x\n  go()\n    go()\n';
    writeFileSync(join(ws, 'go.txt'), text);
    const r = folio(['edit', 'go.txt', '--old', '\tgo()\n', '--new', 'stop()\n']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/ambiguous_match: .*2 places match it loosely \(lines 2, 3\)/);
    expect(readFileSync(join(ws, 'go.txt'), 'utf8')).toBe(text);
  });
});
