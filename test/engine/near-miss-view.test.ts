/**
 * nearestMiss with a lineView: the quote is compared with the lines as the view
 * shows them, in file order (a stateful view sees each line once), and `text` and
 * `similarity` come from the view, so a hidden line is never shown nor measured.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codecFor } from '../../src-main/engine/text/codec.ts';
import { nearestMiss } from '../../src-main/engine/write/near-miss.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';

const tmp = engineTempDir();
const HIDDEN = 'Qx7Lm2Vb9Rt4Yp8Nc3Kd6Wz1';

async function near(text: string, quote: string, lineView?: (l: string) => string) {
  const path = tmp.path(`f-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(path, text);
  const size = Buffer.byteLength(text);
  return (await nearestMiss(path, codecFor('utf-8'), 0, size, quote, lineView ? { lineView } : {})).nearest;
}

describe('nearestMiss lineView', () => {
  const text = `alpha line\n${HIDDEN}\nomega line\n`;
  const hide = (l: string) => (l === HIDDEN ? '[hidden]' : l);

  it('without a view, a quote almost equal to a line finds it and shows it', async () => {
    const n = await near(text, HIDDEN.slice(0, -2) + 'zz');
    expect(n).toMatchObject({ line: 2, text: HIDDEN });
  });

  it('with a view, the hidden line is neither shown nor measured', async () => {
    const n = await near(text, HIDDEN.slice(0, -2) + 'zz', hide);
    expect(JSON.stringify(n)).not.toContain(HIDDEN.slice(0, 8));
    // Another hidden value gives the very same answer: nothing about the value leaks.
    const other = await near(text.replace(HIDDEN, 'Zz9Aa8Bb7Cc6Dd5Ee4Ff3Gg2'), HIDDEN.slice(0, -2) + 'zz', (l) => (l.startsWith('Zz9') ? '[hidden]' : l));
    expect(other).toEqual(n);
  });

  it('a stateful view is called once per line, in file order', async () => {
    const seen: string[] = [];
    await near('a\nb\nc\n', 'zzz', (l) => (seen.push(l), l));
    expect(seen.filter((l) => l !== '')).toEqual(['a', 'b', 'c']);
  });
});
