/**
 * Timestamp detection and parsing on lines as real logs write them, each time
 * checked against GNU date; and the level a line is counted under.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { detectTimeFormat, parseTimeInput, timeOfLine, type TimeFormat } from '../../src-main/engine/search/timestamps.mjs';
import { LEVEL_NAMES, levelOfLine } from '../../src-main/engine/search/log-levels.mjs';

/** GNU date's reading of `text` (a form it understands), epoch ms. */
const dateMs = (text: string) => Number(execFileSync('date', ['-u', '-d', text, '+%s%3N'], { encoding: 'utf8' }).trim());

/** Real-format lines (journald/rsyslog, Apache/nginx access logs, app logs), with the stamp as GNU date reads it. */
const SAMPLES: { format: TimeFormat; line: string; date: string }[] = [
  { format: 'iso8601', line: '2024-05-01T12:30:00Z INFO [main] started', date: '2024-05-01T12:30:00Z' },
  { format: 'iso8601', line: '2024-05-01T12:30:00.123456Z DEBUG pool size=4', date: '2024-05-01T12:30:00.123Z' },
  { format: 'iso8601', line: '2024-05-01 12:30:00,250 WARN  [http-nio-8080-exec-1] o.a.c.c.C: slow', date: '2024-05-01 12:30:00.250Z' },
  { format: 'iso8601', line: '2024-05-01T14:30:00.5+02:00 ERROR db down', date: '2024-05-01T14:30:00.5+02:00' },
  { format: 'iso8601', line: '2024-05-01T07:30:00-0500 INFO tz without colon', date: '2024-05-01T07:30:00-05:00' },
  { format: 'iso8601', line: '[2024-05-01T12:30:00.000Z] [error] upstream timed out', date: '2024-05-01T12:30:00Z' },
  { format: 'syslog', line: 'May  1 12:30:05 web01 sshd[2211]: Accepted publickey for deploy', date: '2024-05-01 12:30:05Z' },
  { format: 'syslog', line: 'Dec 31 23:59:59 web01 kernel: [12345.678] eth0: link up', date: '2024-12-31 23:59:59Z' },
  {
    format: 'apache',
    line: '127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "http://www.example.com/start.html" "Mozilla/4.08"',
    date: '2000-10-10 13:55:36 -0700',
  },
  {
    format: 'apache',
    line: '203.0.113.9 - - [01/May/2024:12:30:05 +0000] "POST /api/v1/items HTTP/2.0" 201 512 "-" "curl/8.5.0"',
    date: '2024-05-01 12:30:05Z',
  },
  { format: 'epoch_s', line: '1714566605 INFO heartbeat', date: '@1714566605' },
  { format: 'epoch_s', line: '1714566605.789 osd.3 heartbeat_check: no reply', date: '@1714566605.789' },
  { format: 'epoch_ms', line: '1714566605789 level=info msg="tick"', date: '@1714566605.789' },
];

describe('timestamps', () => {
  it.each(SAMPLES)('reads $format in "$line" as GNU date does', ({ format, line, date }) => {
    const b = Buffer.from(line);
    expect(timeOfLine(b, 0, b.length, format, 2024)).toBe(dateMs(date));
  });

  it.each(['iso8601', 'syslog', 'apache', 'epoch_s', 'epoch_ms'] as const)('detects %s from a file of such lines with a few unstamped ones', (format) => {
    const lines = SAMPLES.filter((s) => s.format === format).map((s) => s.line);
    const text = Array.from({ length: 40 }, (_, i) => (i % 5 === 4 ? '    at com.example.Main.main(Main.java:12)' : lines[i % lines.length])).join('\n');
    expect(detectTimeFormat(Buffer.from(text + '\n'))?.format).toBe(format);
  });

  it('finds no format in text without stamps, nor in near misses', () => {
    const text = [
      'hello world',
      '2024-13-01T00:00:00Z bad month',
      '12345678901 eleven digits',
      'Foo  1 12:00:00 not a month',
      '2024/05/01 12:00:00 slashes',
    ].join('\n');
    expect(detectTimeFormat(Buffer.from(text))).toBeNull();
    for (const line of text.split('\n')) {
      const b = Buffer.from(line);
      for (const f of ['iso8601', 'syslog', 'apache', 'epoch_s', 'epoch_ms'] as const) expect(timeOfLine(b, 0, b.length, f, 2024)).toBeNaN();
    }
  });

  it("reads a typed time in any stamp format, or a time of day on the first stamp's day", () => {
    const firstMs = dateMs('2024-05-01T08:00:00Z');
    expect(parseTimeInput('2024-05-01T12:30:00Z', firstMs, 2024)).toBe(dateMs('2024-05-01T12:30:00Z'));
    expect(parseTimeInput('2024-05-01 12:30', firstMs, 2024)).toBe(dateMs('2024-05-01 12:30Z'));
    expect(parseTimeInput('2024-05-02', firstMs, 2024)).toBe(dateMs('2024-05-02Z'));
    expect(parseTimeInput('12:30:05', firstMs, 2024)).toBe(dateMs('2024-05-01 12:30:05Z'));
    expect(parseTimeInput('9:05', firstMs, 2024)).toBe(dateMs('2024-05-01 09:05Z'));
    expect(parseTimeInput('May 1 12:30:05', firstMs, 2024)).toBe(dateMs('2024-05-01 12:30:05Z'));
    expect(parseTimeInput('01/May/2024:12:30:05 +0200', firstMs, 2024)).toBe(dateMs('2024-05-01 12:30:05 +0200'));
    expect(parseTimeInput('1714566605', firstMs, 2024)).toBe(dateMs('@1714566605'));
    for (const bad of ['', 'soon', '25:00', '2024-05-01T', '12345']) expect(parseTimeInput(bad, firstMs, 2024)).toBeNaN();
  });

  it('counts a line under the first level word near its start, as a whole upper-case word', () => {
    const cases: [string, (typeof LEVEL_NAMES)[number]][] = [
      ['2024-05-01T12:30:00Z ERROR db down, retry INFO later', 'error'],
      ['2024-05-01 12:30:00,250 WARN  [exec-1] slow', 'warn'],
      ['May  1 12:30:05 web01 app[1]: WARNING disk 91%', 'warn'],
      ['2024-05-01T12:30:00Z [FATAL] out of memory', 'error'],
      ['1714566605 TRACE enter', 'debug'],
      ['2024-05-01T12:30:00Z INFOS is not a level; DEBUG is', 'debug'],
      ['2024-05-01T12:30:00Z info lower case is a word, not a level', 'other'],
      ['    at com.example.Main.main(Main.java:12)', 'other'],
      [`2024-05-01T12:30:00Z ${'x'.repeat(130)} ERROR too far in`, 'other'],
    ];
    for (const [line, level] of cases) {
      const b = Buffer.from(line);
      expect(LEVEL_NAMES[levelOfLine(b, 0, b.length)], line).toBe(level);
    }
  });
});
