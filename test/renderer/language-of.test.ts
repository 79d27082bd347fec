import { describe, expect, it } from 'vitest';
import { LOG_LANGUAGE, PLAIN_LANGUAGE, SOURCE_LANGUAGES, languageOf, looksLikeLog } from '../../src-renderer/model/language-of.ts';

describe('languageOf: the grammar a file is coloured with', () => {
  it.each([
    ['src/app.ts', 'typescript'],
    ['App.TSX', 'typescript'],
    ['lib/x.mjs', 'javascript'],
    ['package.json', 'json'],
    ['events.jsonl', 'json'],
    ['README.md', 'markdown'],
    ['orders.py', 'python'],
    ['site.css', 'css'],
    ['index.html', 'html'],
    ['ci.yml', 'yaml'],
    ['build.sh', 'shell'],
    ['main.go', 'go'],
    ['lib.rs', 'rust'],
    ['x.c', 'c'],
    ['x.hpp', 'cpp'],
    ['Cargo.toml', 'ini'],
    ['Dockerfile', 'dockerfile'],
    ['C:\\work\\Gemfile', 'ruby'],
    ['s3://bucket/conf/app.yaml', 'yaml'],
  ])('%s is %s', (path, id) => {
    expect(languageOf(path)).toBe(id);
  });

  it('logs by extension, rotated logs and the system logs without one are logs', () => {
    for (const path of ['/var/log/app.log', 'server.LOG', 'app.log.1', 'app.log.2.gz', '/var/log/syslog', '/var/log/syslog.1', '/var/log/messages', 'job.out'])
      expect(languageOf(path), path).toBe(LOG_LANGUAGE);
  });

  it('a TypeScript file full of log words is still TypeScript: the name wins over the text', () => {
    const text = Array.from({ length: 30 }, (_, i) => `2024-05-01T12:00:${String(i).padStart(2, '0')}Z ERROR log.error('x')`).join('\n');
    expect(looksLikeLog(text)).toBe(true);
    expect(languageOf('logger.ts', text)).toBe('typescript');
  });

  it('a file whose name says nothing is a log when its first lines are stamped or levelled, else plain text', () => {
    const iso = '2024-05-01T12:00:00.123Z INFO started\n2024-05-01T12:00:01Z WARN slow\n\n2024-05-01 12:00:02,5 ERROR failed\n';
    const syslog = 'May  1 12:00:00 host sshd[12]: Accepted\nMay  1 12:00:01 host cron[3]: run\n';
    const apache = '127.0.0.1 - - [01/May/2024:12:00:00 +0000] "GET / HTTP/1.1" 200 5\n10.0.0.2 - - [01/May/2024:12:00:01 +0000] "GET /a HTTP/1.1" 404 0\n';
    const levels = '[main] INFO  Starting\n[main] DEBUG config loaded\nplain continuation\n';
    for (const text of [iso, syslog, apache, levels]) expect(languageOf('output', text), text).toBe(LOG_LANGUAGE);
    expect(languageOf('notes.txt', 'Dear reviewer,\nthe ERROR is in line 3.\nThanks\n')).toBe(PLAIN_LANGUAGE);
    expect(languageOf('LICENSE', 'MIT License\n\nCopyright (c) 2024\n')).toBe(PLAIN_LANGUAGE);
    expect(languageOf('empty', '')).toBe(PLAIN_LANGUAGE);
    expect(languageOf(null)).toBe(PLAIN_LANGUAGE);
  });

  it('half the lines log-like is not enough: a stamped header over prose stays plain', () => {
    expect(looksLikeLog('2024-05-01T12:00:00Z report\nline two\nline three\nline four\n')).toBe(false);
    // Only the first 20 non-empty lines count: prose after a long log head does not undo it.
    const head = Array.from({ length: 20 }, () => '2024-05-01T12:00:00Z INFO x').join('\n');
    expect(looksLikeLog(`${head}\n${'prose\n'.repeat(100)}`)).toBe(true);
  });

  it('every language it answers is one Monaco can colour: registered in src-renderer/monaco/languages.ts', async () => {
    const { readFileSync } = await import('node:fs');
    const registered = readFileSync(new URL('../../src-renderer/monaco/languages.ts', import.meta.url), 'utf8');
    for (const id of SOURCE_LANGUAGES) {
      const stub = id === 'c' ? 'cpp' : id;
      const ok = registered.includes(`definitions/${stub}/register.js`) || registered.includes(`register({ id: '${id}'`);
      expect(ok, id).toBe(true);
    }
  });
});
