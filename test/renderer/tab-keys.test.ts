import { describe, expect, it } from 'vitest';
import { tabKeyOf } from '../../src-renderer/model/tab-keys.ts';

const key = (k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; shiftKey: boolean }> = {}) => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...mods,
});

describe('tab keys', () => {
  it('Ctrl+Tab and Alt+PageDown show the next tab, with Shift / PageUp the previous; nothing else does', () => {
    expect(tabKeyOf(key('Tab', { ctrlKey: true }))).toBe(1);
    expect(tabKeyOf(key('Tab', { ctrlKey: true, shiftKey: true }))).toBe(-1);
    expect(tabKeyOf(key('PageDown', { altKey: true }))).toBe(1);
    expect(tabKeyOf(key('PageUp', { altKey: true }))).toBe(-1);
    expect(tabKeyOf(key('Tab'))).toBeNull();
    expect(tabKeyOf(key('PageDown'))).toBeNull();
    expect(tabKeyOf(key('PageDown', { altKey: true, shiftKey: true }))).toBeNull();
  });
});
