import { describe, expect, it } from 'vitest';
import { folioLinkInArgv, folioLinkOf } from '../../src-main/doors/electron/folio-link.ts';

describe('folio://open links', () => {
  it('give the file and the lines, as Copy link writes them', () => {
    expect(folioLinkOf('folio://open?path=%2Fvar%2Flog%2Fa%20b.log&lines=150-154')).toEqual({ path: '/var/log/a b.log', lines: { start: 150, end: 154 } });
    expect(folioLinkOf('folio://open?path=%2Fx.log&lines=9')).toEqual({ path: '/x.log', lines: { start: 9, end: 9 } });
    expect(folioLinkOf('folio://open?path=%2Fx.log&lines=20-10')).toEqual({ path: '/x.log', lines: { start: 10, end: 20 } });
    expect(folioLinkOf('folio://open?path=%2Fx.log')).toEqual({ path: '/x.log' });
    expect(folioLinkOf('folio://open?path=%2Fx.log&lines=0-3')).toEqual({ path: '/x.log' });
  });

  it('refuse what is not one: another scheme or host, a relative path, no path', () => {
    expect(folioLinkOf('https://open?path=%2Fx.log')).toBeNull();
    expect(folioLinkOf('folio://delete?path=%2Fx.log')).toBeNull();
    expect(folioLinkOf('folio://open?path=x.log')).toBeNull();
    expect(folioLinkOf('folio://open')).toBeNull();
    expect(folioLinkOf('not a url')).toBeNull();
  });

  it('are found among command-line arguments', () => {
    expect(folioLinkInArgv(['/usr/bin/folio', '--flag', 'folio://open?path=%2Fx.log&lines=3-4'])).toEqual({ path: '/x.log', lines: { start: 3, end: 4 } });
    expect(folioLinkInArgv(['/usr/bin/folio', '/x.log'])).toBeNull();
  });
});
