/** The viewer's key table: every chord in it dispatches to its own action, and no chord is listed twice. */
import { expect, test } from 'vitest';
import { chordOf, keysLabelOf, LOG_KEYS, logKeyOf, type KeyLike } from '../../src-renderer/model/log-keys.ts';

const pressOf = (chord: string): KeyLike => {
  const c = chordOf(chord);
  return { key: c.shift && c.key.length === 1 ? c.key.toUpperCase() : c.key, ctrlKey: c.ctrl, metaKey: false, altKey: c.alt, shiftKey: c.shift };
};

test('each chord of the table is dispatched to its action (Cmd as Ctrl too)', () => {
  for (const row of LOG_KEYS) {
    for (const [chord, action] of row.chords) {
      expect(logKeyOf(pressOf(chord)), chord).toBe(action);
      const press = pressOf(chord);
      if (press.ctrlKey) expect(logKeyOf({ ...press, ctrlKey: false, metaKey: true }), `Cmd for ${chord}`).toBe(action);
    }
  }
});

test('Ctrl+letter and Ctrl+Shift+letter are different keys; a bare capital is Shift', () => {
  expect(chordOf('Ctrl+F')).toEqual({ key: 'f', ctrl: true, shift: false, alt: false });
  expect(chordOf('Ctrl+Shift+F')).toEqual({ key: 'f', ctrl: true, shift: true, alt: false });
  expect(chordOf('U')).toEqual({ key: 'u', ctrl: false, shift: true, alt: false });
  expect(chordOf('Alt+Z')).toEqual({ key: 'z', ctrl: false, shift: false, alt: true });
  expect(logKeyOf(pressOf('Ctrl+F'))).toBe('find');
  expect(logKeyOf(pressOf('Ctrl+Shift+F'))).toBe('filter');
});

test('no chord is in the table twice, and every row has a help label', () => {
  const chords = LOG_KEYS.flatMap((row) => row.chords.map(([chord]) => JSON.stringify(chordOf(chord))));
  expect(new Set(chords).size).toBe(chords.length);
  for (const row of LOG_KEYS) expect(keysLabelOf(row)).not.toBe('');
  expect(keysLabelOf(LOG_KEYS.find((r) => r.chords.some(([, a]) => a === 'nextMark'))!)).toBe('u / U');
});
