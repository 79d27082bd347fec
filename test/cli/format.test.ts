import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { bytesHuman, progressBar } from '../../src-main/doors/cli/format.ts';

function stream(isTTY: boolean) {
  const s = new PassThrough() as PassThrough & { isTTY?: boolean };
  s.isTTY = isTTY;
  let text = '';
  s.on('data', (d: Buffer) => (text += d.toString()));
  return { s, text: () => text };
}

describe('CLI progress bar', () => {
  it('draws in place on a terminal and clears itself', () => {
    const { s, text } = stream(true);
    const bar = progressBar(s, 'indexing');
    bar.update(512 * 1024 ** 2, 1024 ** 3);
    bar.update(1024 ** 3, 1024 ** 3);
    bar.clear();
    expect(text()).toContain('\rindexing [###############---------------]  50% 512.0 MiB / 1.0 GiB');
    expect(text()).toContain('100% 1.0 GiB / 1.0 GiB');
    expect(text().endsWith('\r\x1b[2K')).toBe(true);
  });

  it('prints nothing when the stream is not a terminal', () => {
    const { s, text } = stream(false);
    const bar = progressBar(s, 'indexing');
    bar.update(1, 2);
    bar.clear();
    expect(text()).toBe('');
  });

  it('formats sizes in binary units', () => {
    expect(bytesHuman(0)).toBe('0 B');
    expect(bytesHuman(1536)).toBe('1.5 KiB');
    expect(bytesHuman(2 * 1024 ** 3)).toBe('2.0 GiB');
  });
});
