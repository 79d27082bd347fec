/**
 * The new write forms through `folio mcp` with the real SDK client: create
 * (if_none_match), several edits in one call, append that adds lines, and a stale
 * edit's error carrying the current text. Each goes through the guard: the policy
 * (deny, folders), review routing (auto applies and journals; review proposes and
 * a person approves), redaction and the audit log.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { BIN, connectStdio, type McpSession } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mcp-forms-');
const auto = tmp.path('auto');
const review = tmp.path('review');
const person = { kind: 'human' as const, name: 'reviewer' };
let a: McpSession;
let r: McpSession;

beforeAll(async () => {
  mkdirSync(join(auto, 'src'), { recursive: true });
  mkdirSync(review, { recursive: true });
  writeFileSync(join(auto, 'src/orders.py'), 'def a():\n    return 1\n\ndef b():\n    return 2\n\ndef c():\n    return 3\n');
  writeFileSync(join(auto, 'app.log'), 'first\nsecond');
  writeFileSync(join(auto, 'settings.ini'), 'name = demo\npassword = hunter2-very-secret\nport = 8080\n');
  writeFileSync(join(review, 'folio.config.json'), JSON.stringify({ create_folders: true }));
  a = await connectStdio(auto, { cacheDir: tmp.path('cache'), flags: ['--review', 'auto'] });
  r = await connectStdio(review, { cacheDir: tmp.path('cache') });
});
afterAll(async () => {
  await a?.close();
  await r?.close();
  tmp.cleanup();
});

describe('create (if_none_match "*")', () => {
  it('creates a file under auto, journaled, and refuses a second create of the same path', async () => {
    const made = await a.call('upsert', { path: 'src/new_module.py', target: { whole_file: true }, content: 'X = 1\n', if_none_match: '*' });
    expect(made.isError, made.text).toBe(false);
    expect(made.body).toMatchObject({ applied: true, policy: 'auto', created: true });
    expect(made.body.journal_id).toMatch(/^j-/);
    expect(readFileSync(join(auto, 'src/new_module.py'), 'utf8')).toBe('X = 1\n');
    const again = await a.call('upsert', { path: 'src/new_module.py', target: { whole_file: true }, content: 'Y = 2\n', if_none_match: '*' });
    expect(again.body.error).toMatchObject({ code: 'precondition_failed', failed: ['if_none_match'] });
    expect(readFileSync(join(auto, 'src/new_module.py'), 'utf8')).toBe('X = 1\n');
    const audit = readFileSync(join(auto, '.folio/audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(audit.some((e) => e.op === 'upsert' && e.path?.endsWith('src/new_module.py') && e.outcome === 'ok')).toBe(true);
  });

  it('refuses a denied name, a path outside the root, and missing folders unless the config allows them', async () => {
    const env = await a.call('upsert', { path: '.env', target: { whole_file: true }, content: 'A=1\n', if_none_match: '*' });
    expect(env.body.error.code).toBe('permission_denied');
    const out = await a.call('upsert', { path: '../escape.txt', target: { whole_file: true }, content: 'x\n', if_none_match: '*' });
    expect(out.body.error.code).toBe('permission_denied');
    expect(existsSync(join(tmp.dir, 'escape.txt'))).toBe(false);
    const deep = await a.call('upsert', { path: 'lib/util/x.py', target: { whole_file: true }, content: 'x\n', if_none_match: '*' });
    expect(deep.body.error).toMatchObject({ code: 'permission_denied', missing_folders: ['lib', 'util'] });
    expect(existsSync(join(auto, 'lib'))).toBe(false);
  });

  it('under review it is a proposal: nothing is written until a person approves, then the file (and its folders) exist', async () => {
    const p = await r.call('upsert', { path: 'docs/guide/intro.md', target: { whole_file: true }, content: '# Intro\n', if_none_match: '*' });
    expect(p.body).toMatchObject({ applied: false, policy: 'review', status: 'pending' });
    // The preview of a new file is its size, not the agent's own text again (api/agent/compact-preview.ts).
    expect(p.body.preview).toBe('@@ -0,0 +1,1 @@ (new file, 1 line as sent)\n');
    expect(existsSync(join(review, 'docs'))).toBe(false);
    await handle('review_approve', { id: p.body.proposal_id }, person, { workspace: review });
    expect(readFileSync(join(review, 'docs/guide/intro.md'), 'utf8')).toBe('# Intro\n');
    const status = await r.call('proposal_status', { proposal_id: p.body.proposal_id });
    expect(status.body.status).toBe('applied');
  });
});

describe('several edits in one call', () => {
  it('applies them all under auto and answers one hunk per edit', async () => {
    const info = await a.call('file_info', { path: 'src/orders.py' });
    const res = await a.call('upsert', {
      path: 'src/orders.py',
      targets: [
        { replace: { start: 2, end: 2 }, content: '    return 10' },
        { replace: { start: 8, end: 8 }, content: '    return 30' },
        { insert: { at: 4 }, content: '# b comes next' },
      ],
      if_match: info.body.version.etag,
    });
    expect(res.isError, res.text).toBe(false);
    expect(res.body.hunks.map((h: { edit: number }) => h.edit)).toEqual([0, 2, 1]);
    expect(readFileSync(join(auto, 'src/orders.py'), 'utf8')).toBe(
      'def a():\n    return 10\n\n# b comes next\ndef b():\n    return 2\n\ndef c():\n    return 30\n',
    );
  });

  it('refuses overlapping edits naming the pair, and edits that touch a redacted secret', async () => {
    const info = await a.call('file_info', { path: 'src/orders.py' });
    const overlap = await a.call('upsert', {
      path: 'src/orders.py',
      targets: [{ replace: { start: 1, end: 3 }, content: 'x' }, { delete: { start: 3, end: 4 } }],
      if_match: info.body.version.etag,
    });
    expect(overlap.body.error).toMatchObject({ code: 'invalid_range', edits: [0, 1] });
    const ini = await a.call('file_info', { path: 'settings.ini' });
    const secret = await a.call('upsert', {
      path: 'settings.ini',
      targets: [
        { replace: { start: 1, end: 1 }, content: 'name = prod' },
        { replace: { start: 2, end: 2 }, content: 'password = changed' },
      ],
      if_match: ini.body.version.etag,
    });
    expect(secret.body.error).toMatchObject({ code: 'redacted', lines: [2] });
    expect(readFileSync(join(auto, 'settings.ini'), 'utf8')).toContain('hunter2');
  });

  it('under review one call is one proposal holding every edit; approving applies them all', async () => {
    writeFileSync(join(review, 'notes.txt'), 'a\nb\nc\nd\n');
    const info = await r.call('file_info', { path: 'notes.txt' });
    const p = await r.call('upsert', {
      path: 'notes.txt',
      targets: [{ replace: { start: 1, end: 1 }, content: 'A' }, { delete: { start: 3, end: 3 } }],
      if_match: info.body.version.etag,
    });
    expect(p.body.status).toBe('pending');
    const shown = await handle('review_show', { id: p.body.proposal_id }, person, { workspace: review });
    expect(shown.proposal.targets).toHaveLength(2);
    await handle('review_approve', { id: p.body.proposal_id }, person, { workspace: review });
    expect(readFileSync(join(review, 'notes.txt'), 'utf8')).toBe('A\nb\nd\n');
  });
});

describe('append and stale edits', () => {
  it('append adds lines: a log without a final newline gets one before the new line', async () => {
    for (const line of ['third', 'fourth']) {
      const info = await a.call('file_info', { path: 'app.log' });
      const res = await a.call('upsert', { path: 'app.log', target: { append: { at_end: true } }, content: line, if_match: info.body.version.etag });
      expect(res.isError, res.text).toBe(false);
    }
    expect(readFileSync(join(auto, 'app.log'), 'utf8')).toBe('first\nsecond\nthird\nfourth\n');
  });

  it('a stale etag answers the current text of the target lines with anchors, and the retry with them applies', async () => {
    const info = await a.call('file_info', { path: 'src/orders.py' });
    writeFileSync(join(auto, 'src/orders.py'), readFileSync(join(auto, 'src/orders.py'), 'utf8').replace('return 2', 'return 20'));
    const stale = await a.call('upsert', {
      path: 'src/orders.py',
      target: { replace: { start: 6, end: 6 } },
      content: '    return 22',
      if_match: info.body.version.etag,
    });
    expect(stale.body.error.code).toBe('precondition_failed');
    const current = stale.body.error.current as { start: number; text: string }[];
    expect(current[0]!.text).toMatch(/^6#[0-9a-f]{3}\| {4}return 20/);
    const anchor = current[0]!.text.split('|')[0];
    const retry = await a.call('upsert', { path: 'src/orders.py', target: { replace: { start: 6, end: 6 } }, content: '    return 22', anchors: [anchor] });
    expect(retry.isError, retry.text).toBe(false);
    expect(readFileSync(join(auto, 'src/orders.py'), 'utf8')).toContain('    return 22\n');
  });
});

describe('edit by quoting', () => {
  it('replaces a unique quote under auto; an ambiguous one names the lines grep -n -F names; a near miss says how it differs', async () => {
    writeFileSync(join(auto, 'calc.py'), 'def add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a - b\n\ndef mul(a, b):\n    return a * b\n');
    const ok = await a.call('edit', { path: 'calc.py', edits: [{ old_text: '    return a - b', new_text: '    return a - b  # checked' }] });
    expect(ok.isError, ok.text).toBe(false);
    expect(ok.body).toMatchObject({ applied: true, policy: 'auto' });
    expect(readFileSync(join(auto, 'calc.py'), 'utf8')).toContain('return a - b  # checked\n');
    const amb = await a.call('edit', { path: 'calc.py', edits: [{ old_text: '(a, b):', new_text: '(x, y):' }] });
    const grep = execFileSync('grep', ['-n', '-F', '(a, b):', join(auto, 'calc.py')], { encoding: 'utf8' });
    expect(amb.body.error).toMatchObject({
      code: 'ambiguous_match',
      count: 3,
      lines: grep
        .trim()
        .split('\n')
        .map((l) => Number(l.split(':')[0])),
    });
    // Part of a line (a whole line would match loosely: test/mcp/loose-edit.test.ts).
    const miss = await a.call('edit', { path: 'calc.py', edits: [{ old_text: 'def  mul(a, b)', new_text: 'def mul(x, y)' }] });
    expect(miss.body.error).toMatchObject({ code: 'no_match', nearest: { line: 7, text: 'def mul(a, b):', differs: 'whitespace' } });
  });

  it('applies several quotes all or none, and replace_all every occurrence', async () => {
    const before = readFileSync(join(auto, 'calc.py'), 'utf8');
    const bad = await a.call('edit', {
      path: 'calc.py',
      edits: [
        { old_text: 'def add', new_text: 'def plus' },
        { old_text: 'not in the file', new_text: 'x' },
      ],
    });
    expect(bad.body.error.code).toBe('no_match');
    expect(readFileSync(join(auto, 'calc.py'), 'utf8')).toBe(before);
    const all = await a.call('edit', { path: 'calc.py', edits: [{ old_text: '(a, b)', new_text: '(x, y)', replace_all: true }] });
    expect(all.isError, all.text).toBe(false);
    expect(readFileSync(join(auto, 'calc.py'), 'utf8').match(/\(x, y\)/g)).toHaveLength(3);
  });

  it('under review the quotes are found again at approval: an unrelated change in between does not stale the proposal', async () => {
    writeFileSync(join(review, 'cfg.txt'), 'alpha = 1\nbeta = 2\ngamma = 3\n');
    const p = await r.call('edit', { path: 'cfg.txt', edits: [{ old_text: 'gamma = 3', new_text: 'gamma = 30' }] });
    expect(p.body).toMatchObject({ policy: 'review', status: 'pending' });
    writeFileSync(join(review, 'cfg.txt'), 'alpha = 100\nbeta = 2\ngamma = 3\n');
    await handle('review_approve', { id: p.body.proposal_id }, person, { workspace: review });
    expect(readFileSync(join(review, 'cfg.txt'), 'utf8')).toBe('alpha = 100\nbeta = 2\ngamma = 30\n');
  });

  it('is no oracle for a secret: a guessed value is no_match, a quote with the key and value is refused, the key name alone is redacted', async () => {
    const guess = await a.call('edit', { path: 'settings.ini', edits: [{ old_text: 'hunter2-very-secret', new_text: 'x' }] });
    expect(guess.body.error).toMatchObject({ code: 'no_match' });
    expect(guess.text).not.toContain('hunter2');
    const wrong = await a.call('edit', { path: 'settings.ini', edits: [{ old_text: 'hunter3-wrong-guess', new_text: 'x' }] });
    expect(wrong.body.error.code).toBe('no_match');
    const whole = await a.call('edit', { path: 'settings.ini', edits: [{ old_text: 'password = hunter2-very-secret', new_text: 'password = x' }] });
    expect(whole.body.error.code).toBe('redacted');
    const key = await a.call('edit', { path: 'settings.ini', edits: [{ old_text: 'password = ', new_text: 'passwd = ' }] });
    expect(key.body.error).toMatchObject({ code: 'redacted', lines: [2] });
    const port = await a.call('edit', { path: 'settings.ini', edits: [{ old_text: 'port = 8080', new_text: 'port = 9090' }] });
    expect(port.isError, port.text).toBe(false);
    expect(readFileSync(join(auto, 'settings.ini'), 'utf8')).toBe('name = demo\npassword = hunter2-very-secret\nport = 9090\n');
  });

  it('works from the CLI: folio edit FILE --old TEXT --new TEXT, journaled for undo', () => {
    const file = join(auto, 'cli.txt');
    writeFileSync(file, 'one\ntwo\nthree\n');
    const out = execFileSync(
      process.execPath,
      [BIN, 'edit', file, '--old', 'two', '--new', 'TWO', '--old', 'three', '--new', 'THREE', '--root', auto, '--json'],
      {
        encoding: 'utf8',
      },
    );
    expect(JSON.parse(out)).toMatchObject({ applied: true, hunks: [{ edit: 0 }, { edit: 1 }] });
    expect(readFileSync(file, 'utf8')).toBe('one\nTWO\nTHREE\n');
    execFileSync(process.execPath, [BIN, 'review', 'undo', file, '--root', auto], { encoding: 'utf8' });
    expect(readFileSync(file, 'utf8')).toBe('one\ntwo\nthree\n');
  });
});
