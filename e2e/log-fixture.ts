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
    const chunk = new LineBytes(LINES_PER_CHUNK * 160);
    while (size < targetBytes) {
      // A chunk may overshoot by up to LINES_PER_CHUNK lines: the target is approximate, the facts returned are exact.
      chunk.length = 0;
      for (let i = 0; i < LINES_PER_CHUNK; i++) chunk.line(++lineNo);
      if (lineNo === LINES_PER_CHUNK) checkAgainstStrings(chunk);
      writeSync(fd, chunk.buf, 0, chunk.length);
      size += chunk.length;
    }
  } finally {
    closeSync(fd);
  }
  return { path, lines: lineNo, size };
}

const LINES_PER_CHUNK = 20_000;
const utf8 = (s: string) => Buffer.from(s, 'utf8');
const LEVEL_BYTES = LEVELS.map((l) => utf8(` ${l} [worker-`));
const [DATE, LINE_EQ, TOOK, MS, NOTE, PATH] = ['2024-05-01T', '] line=', ' took ', 'ms', ' note="café ✓ ', ' path=/api/items/'].map(utf8);

/** The first chunk's bytes are `logLineOf`'s text (the specs' oracle beside sed): a writer that drifts from it fails at once. */
function checkAgainstStrings(chunk: LineBytes): void {
  let text = '';
  for (let n = 1; n <= LINES_PER_CHUNK; n++) text += logLineOf(n) + '\n';
  if (!chunk.buf.subarray(0, chunk.length).equals(Buffer.from(text))) throw new Error('log-fixture: the bytes written differ from logLineOf');
}

/**
 * `logLineOf(n) + '\n'` written as bytes into one buffer: the same text, without a
 * string per line (1 GiB in seconds, where building strings took ~40 s of CPU).
 */
class LineBytes {
  readonly buf: Buffer;
  length = 0;
  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  line(n: number): void {
    this.bytes(DATE!);
    this.two((n >> 12) % 24);
    this.buf[this.length++] = 0x3a; // :
    this.two((n >> 6) % 60);
    this.buf[this.length++] = 0x3a;
    this.two(n % 60);
    this.buf[this.length++] = 0x5a; // Z
    this.bytes(LEVEL_BYTES[n % LEVELS.length]!);
    this.int(n % 8);
    this.bytes(LINE_EQ!);
    this.int(n);
    this.bytes(TOOK!);
    this.int(n % 251);
    this.bytes(MS!);
    if (n % 11 === 0) {
      this.bytes(NOTE!);
      this.int(n % 1000);
      this.buf[this.length++] = 0x22; // "
    } else {
      this.bytes(PATH!);
      this.int(n % 9973);
    }
    this.buf[this.length++] = 0x0a;
  }

  private bytes(b: Buffer): void {
    // A loop: Buffer#copy's call costs more than these few bytes.
    for (let i = 0; i < b.length; i++) this.buf[this.length++] = b[i]!;
  }

  private two(v: number): void {
    this.buf[this.length++] = 0x30 + Math.floor(v / 10);
    this.buf[this.length++] = 0x30 + (v % 10);
  }

  private int(v: number): void {
    let digits = 1;
    for (let rest = v; rest >= 10; rest = Math.floor(rest / 10)) digits++;
    this.length += digits;
    for (let at = this.length - 1; digits > 0; digits--, at--) {
      this.buf[at] = 0x30 + (v % 10);
      v = Math.floor(v / 10);
    }
  }
}
