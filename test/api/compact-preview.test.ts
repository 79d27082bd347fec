/**
 * The compact preview agents get (api/agent/compact-preview.ts): one line of
 * context, no header, hunks renumbered. Checked with jsdiff's own applyPatch (an
 * independent reader of unified diffs): the compact diff of random edits, applied
 * to the old text, gives the new text; and it is never longer than the full diff.
 */
import { applyPatch, createTwoFilesPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { compactPreview } from '../../src-main/api/agent/compact-preview.ts';
import { prng } from '../fixtures/generate.ts';

describe('compactPreview', () => {
  it('keeps one line of context around each change and splits hunks where the context between them goes', () => {
    const a = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    const b = a.slice();
    b[2] = 'CHANGED 3';
    b[12] = 'CHANGED 13';
    const full = createTwoFilesPatch('f', 'f', a.join('\n') + '\n', b.join('\n') + '\n', 'before', 'after');
    expect(compactPreview(full)).toBe(
      ['@@ -2,3 +2,3 @@', ' line 2', '-line 3', '+CHANGED 3', ' line 4', '@@ -12,3 +12,3 @@', ' line 12', '-line 13', '+CHANGED 13', ' line 14', ''].join('\n'),
    );
  });

  it('several diffs one after the other (an edit of several places): headers dropped, a removed "--- x" line kept as a change', () => {
    const one = createTwoFilesPatch('f', 'f', 'a\n--- x\nb\n', 'a\nb\n', 'before', 'after');
    const two = createTwoFilesPatch('f', 'f', 'c\nd\n', 'c\nD\n', 'before', 'after');
    expect(compactPreview(one + two)).toBe(['@@ -1,3 +1,2 @@', ' a', '---- x', ' b', '@@ -1,2 +1,2 @@', ' c', '-d', '+D', ''].join('\n'));
  });

  it('a summary that is no diff stays as it is', () => {
    expect(compactPreview('(binary file, 12 bytes, deleted)')).toBe('(binary file, 12 bytes, deleted)');
  });

  it('applied by jsdiff to the old text, it gives the new text (500 seeded edits, with and without final newlines)', () => {
    const rand = prng(11);
    for (let n = 0; n < 500; n++) {
      const a = Array.from({ length: Math.floor(rand() * 30) }, () => `w${Math.floor(rand() * 6)}`);
      const b = a.slice();
      for (let k = Math.floor(rand() * 4); k >= 0; k--) {
        const at = Math.floor(rand() * (b.length + 1));
        if (rand() < 0.4 && b.length) b.splice(at, 1 + Math.floor(rand() * 2));
        else b.splice(at, rand() < 0.5 ? 1 : 0, `new${n}-${k}`);
      }
      const endA = rand() < 0.8 ? '\n' : '';
      const endB = rand() < 0.8 ? '\n' : '';
      const [ta, tb] = [a.join('\n') + (a.length ? endA : ''), b.join('\n') + (b.length ? endB : '')];
      const full = createTwoFilesPatch('f', 'f', ta, tb, 'before', 'after');
      const compact = compactPreview(full);
      expect(compact.length).toBeLessThanOrEqual(full.length);
      if (ta === tb) continue;
      expect(applyPatch(ta, `--- f\n+++ f\n${compact}`), `${JSON.stringify(ta)} -> ${JSON.stringify(tb)}\n${compact}`).toBe(tb);
    }
  });
});
