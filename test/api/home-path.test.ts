import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { handle, withHomeExpanded } from '../../src-main/api/handle.ts';

const HUMAN = { kind: 'human', name: 'test' } as const;

describe('~ in paths', () => {
  it('is the home directory in path and to; ~user and inner ~ are left alone', () => {
    expect(withHomeExpanded({ path: '~/logs/a.log' })).toEqual({ path: join(homedir(), 'logs/a.log') });
    expect(withHomeExpanded({ path: '~' })).toEqual({ path: homedir() });
    expect(withHomeExpanded({ path: '/x', to: '~/y' })).toEqual({ path: '/x', to: join(homedir(), 'y') });
    expect(withHomeExpanded({ path: '~bob/a' })).toEqual({ path: '~bob/a' });
    expect(withHomeExpanded({ path: '/tmp/~/a' })).toEqual({ path: '/tmp/~/a' });
  });

  const dir = mkdtempSync(join(homedir(), '.folio-home-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reaches the file through any operation', async () => {
    writeFileSync(join(dir, 'a.log'), 'one\ntwo\n');
    const info = await handle('file_info', { path: `~/${basename(dir)}/a.log` }, HUMAN);
    expect(info.lines).toBe(2);
    expect(info.path).toBe(join(dir, 'a.log'));
  });
});
