import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bytesHuman, count, progressBar } from '../../src-main/doors/cli/format.ts';
import { runs } from '../fixtures/effort.ts';

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

describe('count', () => {
  it("groups digits as toLocaleString('en-US') does, for any number", () => {
    for (const n of [0, -0, 7, 999, 1000, -1000, 17_962_108, 2_147_483_690, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1.5, 2 ** 60, NaN])
      expect(count(n)).toBe(n.toLocaleString('en-US'));
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.double()), (n) => count(n) === n.toLocaleString('en-US')),
      runs(2000),
    );
  });
});
