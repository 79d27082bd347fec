/** Generated fixture files (never checked-in blobs) with the facts the UI must show. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TextFixture {
  path: string;
  lines: number;
  size: number;
}

export function makeFixtureDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'folio-e2e-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A text file of `lines` lines of varied length (some non-ASCII), joined by
 * `newline`, with or without a final newline.
 */
export function writeTextFixture(dir: string, name: string, opts: { lines: number; newline: '\n' | '\r\n'; finalNewline: boolean }): TextFixture {
  const parts: string[] = [];
  for (let lineNo = 1; lineNo <= opts.lines; lineNo++) {
    const filler = lineNo % 7 === 0 ? 'é✓ '.repeat(lineNo % 13) : 'x'.repeat(lineNo % 97);
    parts.push(`line ${lineNo} ${filler}`);
  }
  const text = parts.join(opts.newline) + (opts.finalNewline ? opts.newline : '');
  const path = join(dir, name);
  writeFileSync(path, text);
  return { path, lines: opts.lines, size: Buffer.byteLength(text) };
}
