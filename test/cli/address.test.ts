import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const BIN = join(process.cwd(), 'bin/folio.mjs');
const folio = (args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') } });

describe('folio outline, read and upsert by section, JSON path and tokens', () => {
  it('outline --json, read --section, upsert --section-append with --section-sha256; a stale hash exits 1 and writes nothing', () => {
    const p = tmp.path('doc.md');
    writeFileSync(p, '# Doc\n\n## Install\n\n### Linux\n\napt\n\n## Use\n\nrun\n');
    const o = JSON.parse(folio(['outline', p, '--json']).stdout);
    expect(o.headings.map((h: { path: string }) => h.path)).toEqual(['Doc', 'Doc > Install', 'Doc > Install > Linux', 'Doc > Use']);
    expect(folio(['outline', p]).stdout).toContain('    ### Linux  (lines 5-8');
    const r = folio(['read', p, '--section', 'Install > Linux', '--tokenizer', 'cl100k_base']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('### Linux\n\napt\n');
    expect(r.stdout).toMatch(/tokens: \d+ \(cl100k_base\)/);
    const sha = o.headings[2].sha256 as string;
    const u = folio(['upsert', p, '--section', 'Install > Linux', '--section-append', '--content', 'dnf', '--section-sha256', sha]);
    expect(u.status).toBe(0);
    expect(readFileSync(p, 'utf8')).toContain('apt\n\ndnf\n## Use');
    const before = readFileSync(p, 'utf8');
    const stale = folio(['upsert', p, '--section', 'Install > Linux', '--section-replace', '--content', 'x', '--section-sha256', sha, '--json']);
    expect(stale.status).toBe(1);
    expect(JSON.parse(stale.stdout).error).toMatchObject({ code: 'precondition_failed', read: { section: 'Doc > Install > Linux' } });
    expect(readFileSync(p, 'utf8')).toBe(before);
    expect(folio(['upsert', p, '--section', 'Use', '--content', 'x', '--section-sha256', sha]).status).toBe(2);
    expect(folio(['read', p, '--section', 'Use', '--head', '2']).status).toBe(2);
    const missing = folio(['read', p, '--section', 'Nope', '--json']);
    expect(missing.status).toBe(1);
    expect(JSON.parse(missing.stdout).error.code).toBe('not_found');
    // Front matter is listed on its own line, not as a heading, and reads as the section "front matter".
    const fm = tmp.path('post.md');
    writeFileSync(fm, '---\ntitle: Post\n---\n\n# Post\n');
    const out = folio(['outline', fm]).stdout;
    expect(out).toMatch(/^front matter \(yaml\) {2}\(lines 1-3, sha256 [0-9a-f]{12}\)\n# Post {2}\(lines 5-5/);
    expect(folio(['read', fm, '--section', 'front matter']).stdout).toContain('title: Post');
  });

  it('read --json-path and upsert --json-set / --json-insert / --json-delete keep the rest of the file; --tokens and --page-tokens', () => {
    const p = tmp.path('cfg.json');
    writeFileSync(p, '{\n    "a": {"b": [1, 2]},\n    "c": "keep"\n}\n');
    const r = JSON.parse(folio(['read', p, '--json-path', '$.a.b[1]', '--json']).stdout);
    expect(r.json.matches[0]).toMatchObject({ pointer: '/a/b/1', value: 2, text: '2' });
    const etag = r.version.etag as string;
    expect(folio(['upsert', p, '--json-path', '/a/b/1', '--json-set', '20', '--if-match', etag]).status).toBe(0);
    expect(readFileSync(p, 'utf8')).toBe('{\n    "a": {"b": [1, 20]},\n    "c": "keep"\n}\n');
    const e2 = JSON.parse(folio(['read', p, '--head', '1', '--json']).stdout).version.etag;
    expect(folio(['upsert', p, '--json-path', '$.a.b', '--json-insert', '0', '--index', '0', '--if-match', e2]).status).toBe(0);
    const e3 = JSON.parse(folio(['read', p, '--head', '1', '--json']).stdout).version.etag;
    expect(folio(['upsert', p, '--json-path', '$.c', '--json-delete', '--if-match', e3]).status).toBe(0);
    expect(JSON.parse(readFileSync(p, 'utf8'))).toEqual({ a: { b: [0, 1, 20] } });
    expect(folio(['upsert', p, '--json-path', '$.a', '--json-set', 'not json', '--if-match', e3]).status).toBe(2);
    const bad = tmp.path('bad.json');
    writeFileSync(bad, '{"a": }');
    const pe = folio(['read', bad, '--json-path', '$.a', '--json']);
    expect(pe.status).toBe(1);
    expect(JSON.parse(pe.stdout).error).toMatchObject({ code: 'parse_error', line: 1, column: 7 });
    // RFC 9535: a filter without parentheses; a malformed path names where it breaks.
    const f = JSON.parse(folio(['read', p, '--json-path', '$.a.b[?@ > 0]', '--json']).stdout);
    expect(f.json.matches.map((m: { pointer: string }) => m.pointer)).toEqual(['/a/b/1', '/a/b/2']);
    const ip = folio(['read', p, '--json-path', '$.a.b[1:2', '--json']);
    expect(ip.status).toBe(1);
    expect(JSON.parse(ip.stdout).error).toMatchObject({ code: 'invalid_input', position: 9 });
    const t = tmp.path('t.txt');
    writeFileSync(t, 'alpha beta\ngamma delta\nepsilon\n');
    const tok = JSON.parse(folio(['read', t, '--tokens', '0-3', '--json']).stdout);
    expect(tok.content.startsWith('alpha beta\n')).toBe(true);
    expect(tok.tokens).toMatchObject({ start_token: 0, tokenizer: 'o200k_base' });
    const next = JSON.parse(folio(['read', t, '--tokens', `${tok.tokens.end_token}-${tok.tokens.end_token + 100}`, '--json']).stdout);
    expect(tok.content + next.content).toBe('alpha beta\ngamma delta\nepsilon\n');
    const page = JSON.parse(folio(['read', t, '--page-tokens', '3', '--page', '2', '--json']).stdout);
    expect(page.tokens).toMatchObject({ page: 2, tokenizer: 'o200k_base' });
    expect(folio(['read', t, '--tokenizer', 'nope']).status).toBe(1);
  });
});
