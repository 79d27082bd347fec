/**
 * A generated log file (never a checked-in blob): numbered lines of varied length,
 * some non-ASCII, written in large chunks so that hundreds of MiB take seconds.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface LogFixture {
  path: string;
  lines: number;
  size: number;
}

const LEVELS = ['INFO', 'DEBUG', 'WARN', 'INFO', 'ERROR', 'INFO', 'TRACE'];

/** The text of line `lineNo` (1-based), without its newline. */
export function logLineOf(lineNo: number): string {
  const level = LEVELS[lineNo % LEVELS.length];
  const tail = lineNo % 11 === 0 ? ` note="café ✓ ${lineNo % 1000}"` : ` path=/api/items/${lineNo % 9973}`;
  const clock = `${pad2((lineNo >> 12) % 24)}:${pad2((lineNo >> 6) % 60)}:${pad2(lineNo % 60)}`;
  return `2024-05-01T${clock}Z ${level} [worker-${lineNo % 8}] line=${lineNo} took ${lineNo % 251}ms${tail}`;
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/** Writes lines until the file reaches `targetBytes` (whole lines, LF, final newline). */
export function writeLogFixture(dir: string, name: string, targetBytes: number): LogFixture {
  const path = join(dir, name);
  const fd = openSync(path, 'w');
  let size = 0;
  let lineNo = 0;
  try {
    while (size < targetBytes) {
      // A chunk may overshoot by up to 20,000 lines: the target is approximate, the facts returned are exact.
      let chunk = '';
      for (let i = 0; i < 20_000; i++) chunk += logLineOf(++lineNo) + '\n';
      const bytes = Buffer.from(chunk);
      writeSync(fd, bytes);
      size += bytes.length;
    }
  } finally {
    closeSync(fd);
  }
  return { path, lines: lineNo, size };
}
