import { describe, expect, it } from 'vitest';
import { folioLinkInArgv, folioLinkOf, folioUrlOf, lineRangeOf, linesProblemOf, pageLinkOf } from '../../src-main/api/folio-link.ts';

const APP = 'http://127.0.0.1:4321';

describe('folio://open links', () => {
  it('give the file and the lines, as Copy link writes them', () => {
    expect(folioLinkOf('folio://open?path=%2Fvar%2Flog%2Fa%20b.log&lines=150-154')).toEqual({
      ok: true,
      path: '/var/log/a b.log',
      lines: { startLine: 150, endLine: 154 },
    });
    expect(folioLinkOf('folio://open?path=%2Fx.log&lines=9')).toEqual({ ok: true, path: '/x.log', lines: { startLine: 9, endLine: 9 } });
    expect(folioLinkOf('folio://open?path=%2Fx.log&lines=20-10')).toEqual({ ok: true, path: '/x.log', lines: { startLine: 10, endLine: 20 } });
    expect(folioLinkOf('  folio://open?path=%2Fx.log  ')).toEqual({ ok: true, path: '/x.log', lines: null });
    expect(folioLinkOf('FOLIO://open?path=C%3A%5Clogs%5Ca.log&lines=1-2')).toMatchObject({ ok: true, path: 'C:\\logs\\a.log' });
    expect(folioLinkOf('folio://open?path=pg%3A%2F%2Fevents%2F42%2Fbody&lines=3')).toMatchObject({ ok: true, path: 'pg://events/42/body' });
  });

  it('round-trip what folioUrlOf and pageLinkOf write, odd characters included', () => {
    const path = "/tmp/a dir/it's #1 & 50%?.log";
    const lines = { startLine: 7, endLine: 1_000_000 };
    expect(folioLinkOf(folioUrlOf(path, lines))).toEqual({ ok: true, path, lines });
    const page = pageLinkOf(`${APP}/?file=%2Fold&token=t#x`, path, lines);
    expect(page.startsWith(`${APP}/?path=`)).toBe(true);
    expect(page).not.toContain('token');
    expect(folioLinkOf(page, [APP])).toEqual({ ok: true, path, lines });
  });

  it('name a problem for a bad link: another host, no path, a relative path, bad lines', () => {
    const problemOf = (text: string, origins: string[] = []) => {
      const reading = folioLinkOf(text, origins);
      return reading && !reading.ok ? reading.problem : `not a problem: ${JSON.stringify(reading)}`;
    };
    expect(problemOf('folio://delete?path=%2Fx.log')).toMatch(/folio:\/\/open\?path=FILE/);
    expect(problemOf('folio://open')).toMatch(/names no file/);
    expect(problemOf('folio://open?lines=3-4')).toMatch(/names no file/);
    expect(problemOf('folio://open?path=x.log')).toMatch(/not absolute/);
    for (const lines of ['abc', '0-3', '-5', '3-', '1.5', '99999999999999999999'])
      expect(problemOf(`folio://open?path=%2Fx&lines=${encodeURIComponent(lines)}`), lines).toMatch(/is not lines/);
    expect(problemOf('https://example.com/?path=%2Fx.log&lines=1-2', [APP])).toMatch(
      /https:\/\/example.com is not this Folio \(this app is http:\/\/127.0.0.1:4321\)/,
    );
    expect(problemOf('http://127.0.0.1:9/?path=%2Fx.log', [APP])).toMatch(/not this Folio/);
    expect(problemOf(`${APP}/?lines=1-2`, [APP])).toMatch(/names no file/);
    expect(problemOf('http://[bad', [APP])).toMatch(/not a well-formed link/);
  });

  it('are not links when the text is a path or a locator of another scheme', () => {
    for (const text of ['/var/log/x.log', 'notes.txt', 'C:\\logs\\a.log', 'pg://events/42/body', 's3://b/k', 'ftp://host/?path=%2Fx', 'not a url'])
      expect(folioLinkOf(text, [APP]), text).toBeNull();
  });

  it('take http links of the app origin, with path= or file=', () => {
    expect(folioLinkOf(`${APP}/?file=%2Fx.log&lines=4-8`, [APP])).toEqual({ ok: true, path: '/x.log', lines: { startLine: 4, endLine: 8 } });
    expect(folioLinkOf(`${APP}/index.html?path=%2Fx.log`, [APP])).toEqual({ ok: true, path: '/x.log', lines: null });
  });

  it('are found among command-line arguments', () => {
    expect(folioLinkInArgv(['/usr/bin/folio', '--flag', 'folio://open?path=%2Fx.log&lines=3-4'])).toEqual({
      ok: true,
      path: '/x.log',
      lines: { startLine: 3, endLine: 4 },
    });
    expect(folioLinkInArgv(['/usr/bin/folio', 'folio://open?path=rel'])).toMatchObject({ ok: false });
    expect(folioLinkInArgv(['/usr/bin/folio', '/x.log'])).toBeNull();
  });
});

describe('lines of a link', () => {
  it('read A-B, A, B-A and A:B; refuse the rest', () => {
    expect(lineRangeOf('5-9')).toEqual({ startLine: 5, endLine: 9 });
    expect(lineRangeOf('9–5')).toEqual({ startLine: 5, endLine: 9 });
    expect(lineRangeOf('7')).toEqual({ startLine: 7, endLine: 7 });
    for (const bad of ['', '0', 'x', '1-0', '1,2']) expect(lineRangeOf(bad), bad).toBeNull();
  });

  it('are out of range past the file’s last line', () => {
    expect(linesProblemOf({ startLine: 1, endLine: 10 }, '/x', 10)).toBeNull();
    expect(linesProblemOf({ startLine: 5, endLine: 11 }, '/x', 10)).toBe('lines 5-11 are past the end of /x (10 lines)');
    expect(linesProblemOf({ startLine: 2, endLine: 2 }, '/x', 1)).toBe('line 2 is past the end of /x (1 line)');
  });
});
