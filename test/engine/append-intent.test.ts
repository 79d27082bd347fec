/**
 * How a dead append's intent is settled, case by case, on real files: what the next
 * writer keeps or cuts, and what readers see meanwhile. The kill loops
 * (append-crash.test.ts) show the intent is there when a kill cuts an append; these
 * pin down each outcome, including another program appending to the log after it.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { appendIntentPathOf, visibleSizeOf } from '../../src-main/engine/index/append-limit.ts';
import { recoverInterruptedAppend, writeAppendIntent } from '../../src-main/engine/write/append-intent.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-append-intent-');
afterAll(() => tmp.cleanup());

const OLD = 'line 1\nline 2\n';
const APPEND = Buffer.from('new line A\nnew line B\n'.repeat(400)); // spans pages

function setup(name: string, written: Buffer): string {
  const p = tmp.path(name);
  writeFileSync(p, OLD);
  writeAppendIntent(p, OLD.length, APPEND);
  appendFileSync(p, written);
  return p;
}

describe('settling a dead append', () => {
  it('a cut append (part of its bytes, nothing after) is truncated back to the old version', () => {
    const p = setup('cut.log', APPEND.subarray(0, 5000));
    expect(visibleSizeOf(p, OLD.length + 5000)).toBe(OLD.length);
    expect(recoverInterruptedAppend(p)).toBe(5000);
    expect(readFileSync(p, 'utf8')).toBe(OLD);
    expect(existsSync(appendIntentPathOf(p))).toBe(false);
  });

  it('a whole append whose writer died before dropping the intent is taken back, as readers were shown the old version', () => {
    const p = setup('whole.log', APPEND);
    expect(visibleSizeOf(p, OLD.length + APPEND.length)).toBe(OLD.length);
    expect(recoverInterruptedAppend(p)).toBe(APPEND.length);
    expect(readFileSync(p, 'utf8')).toBe(OLD);
  });

  it("another program's lines after a cut append are never truncated away, and readers see them", () => {
    const theirs = 'their log line\n'.repeat(500);
    const p = setup('shared.log', Buffer.concat([APPEND.subarray(0, 3000), Buffer.from(theirs)]));
    const size = OLD.length + 3000 + theirs.length;
    expect(visibleSizeOf(p, size)).toBe(size);
    expect(recoverInterruptedAppend(p)).toBe(0);
    expect(readFileSync(p, 'utf8').endsWith(theirs)).toBe(true);
    expect(createHash('sha256').update(readFileSync(p)).digest('hex')).toBe(
      createHash('sha256')
        .update(Buffer.concat([Buffer.from(OLD), APPEND.subarray(0, 3000), Buffer.from(theirs)]))
        .digest('hex'),
    );
  });
});
