import { describe, expect, it } from 'vitest';
import { goToTargetOf } from '../../src-renderer/model/goto-target.ts';
import { bucketLabelOf, durationLabelOf } from '../../src-renderer/model/histogram-labels.ts';
import { logKeyOf } from '../../src-renderer/model/log-keys.ts';

describe('go to a time', () => {
  it('reads dates, clocks, month names and Apache dates as times; numbers stay lines, @N bytes, N% percents', () => {
    for (const t of ['2024-05-01', '2024-05-01 12:30', '2024-05-01T12:30:00Z', '12:30', '9:05:30', 'May  1 12:30', '01/May/2024:12:30:05 +0000']) {
      expect(goToTargetOf(t, 1000, 10_000), t).toEqual({ kind: 'time', time: t });
    }
    expect(goToTargetOf('5,000', 10_000, 100_000)).toEqual({ kind: 'line', lineNo: 5000 });
    expect(goToTargetOf('@123', 10_000, 100_000)).toEqual({ kind: 'byte', byte: 123 });
    expect(goToTargetOf('50%', 11, 100)).toEqual({ kind: 'line', lineNo: 6 });
    expect(goToTargetOf('tomorrow', 10, 100)).toBeNull();
  });
});

describe('histogram labels and key', () => {
  it('names a bucket by its span in UTC and its width', () => {
    expect(bucketLabelOf(Date.UTC(2024, 4, 1, 12, 0), 600_000)).toBe('2024-05-01 12:00 – 12:10');
    expect(bucketLabelOf(Date.UTC(2024, 4, 1, 23, 0), 3_600_000)).toBe('2024-05-01 23:00 – 2024-05-02 00:00');
    expect(bucketLabelOf(Date.UTC(2024, 4, 1, 12, 0, 5), 5000)).toBe('2024-05-01 12:00:05 – 12:00:10');
    expect([1000, 300_000, 7_200_000, 172_800_000].map(durationLabelOf)).toEqual(['1 s', '5 min', '2 h', '2 d']);
  });
  it('Ctrl+Shift+H toggles the histogram', () => {
    expect(logKeyOf({ key: 'H', ctrlKey: true, metaKey: false, altKey: false, shiftKey: true })).toBe('histogram');
    // Without Ctrl, h is the next highlighted line (the log tools' keys).
    expect(logKeyOf({ key: 'h', ctrlKey: false, metaKey: false, altKey: false, shiftKey: false })).toBe('nextHighlight');
  });
});
