/**
 * The patch formats (engine/write/patch-parse.ts) and where their hunks go
 * (patch-resolve.ts). The cases are those of the reference implementations' own
 * tests, restated here: Codex's parser tests and seek_sequence tests
 * (codex-rs/apply-patch), Aider's editblock tests (tests/basic/test_editblock.py);
 * where Folio refuses what they do silently (a hunk matching in several places),
 * the test says so. Unified diffs are checked against diff(1) itself: the diff
 * of two random texts, applied, gives the second.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePatch } from '../../src-main/engine/write/patch-parse.ts';
import { changedRuns, resolveHunks } from '../../src-main/engine/write/patch-resolve.ts';
import { linesOfText } from '../../src-main/api/patch-request.ts';
import { prng, tempDir } from '../fixtures/generate.ts';

/** `text` with `patch` applied as Folio places it (one file). */
function applied(text: string, patch: string, path?: string): string {
  const { format, files } = parsePatch(patch, path);
  const lines = linesOfText(text);
  const out = lines.slice();
  const reps = resolveHunks(lines, files[0]!.hunks, format, files[0]!.path);
  for (const r of reps.slice().reverse()) out.splice(r.start, r.oldCount, ...r.newLines);
  return out.map((l) => `${l}\n`).join('');
}

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    return (err as { code: string }).code;
  }
  return 'none';
};

describe('codex envelope (cases of codex-rs/apply-patch parser.rs)', () => {
  it('parses add, delete, and update with a move and an @@ context line', () => {
    const p = parsePatch(
      '*** Begin Patch\n*** Add File: path/add.py\n+abc\n+def\n*** Delete File: path/delete.py\n*** Update File: path/update.py\n*** Move to: path/update2.py\n@@ def f():\n-    pass\n+    return 123\n*** End Patch',
    );
    expect(p.format).toBe('codex');
    expect(p.files).toEqual([
      { op: 'add', path: 'path/add.py', content: 'abc\ndef\n', hunks: [] },
      { op: 'delete', path: 'path/delete.py', hunks: [] },
      { op: 'update', path: 'path/update.py', moveTo: 'path/update2.py', hunks: [{ context: 'def f():', old: ['    pass'], new: ['    return 123'] }] },
    ]);
  });

  it('an update hunk followed by an Add File, and a first chunk without @@', () => {
    expect(parsePatch('*** Begin Patch\n*** Update File: file.py\n@@\n+line\n*** Add File: other.py\n+content\n*** End Patch').files).toEqual([
      { op: 'update', path: 'file.py', hunks: [{ old: [], new: ['line'] }] },
      { op: 'add', path: 'other.py', content: 'content\n', hunks: [] },
    ]);
    expect(parsePatch('*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch').files[0]!.hunks).toEqual([
      { old: ['import foo'], new: ['import foo', 'bar'] },
    ]);
  });

  it('lenient: padded markers and a heredoc wrapper', () => {
    expect(parsePatch('*** Begin Patch \n*** Add File: foo\n+hi\n *** End Patch').files).toEqual([{ op: 'add', path: 'foo', content: 'hi\n', hunks: [] }]);
    expect(parsePatch("<<'EOF'\n*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch\nEOF\n").files[0]!.path).toBe('foo');
  });

  it('rejects what Codex rejects, naming the line: no end marker, an empty update, a bad header, a bad hunk line', () => {
    expect(() => parsePatch('*** Begin Patch\nbad')).toThrow(/last line must be '\*\*\* End Patch'/);
    expect(() => parsePatch('*** Begin Patch\n*** Update File: test.py\n*** End Patch')).toThrow(/patch line 2: the update of 'test.py' has no hunks/);
    expect(() => parsePatch('*** Begin Patch\n*** Frobnicate File: a\n*** End Patch')).toThrow(/not a file header/);
    expect(() => parsePatch('*** Begin Patch\n*** Update File: a\n@@\nbad line\n*** End Patch')).toThrow(
      /patch line 4: 'bad line': each hunk line starts with/,
    );
    expect(() => parsePatch('*** Begin Patch\n*** End Patch')).toThrow(/changes no file/);
  });

  it('*** End of File anchors the hunk at the end (the same lines earlier are not it)', () => {
    const text = 'x\nend\ny\nend\n';
    expect(applied(text, '*** Begin Patch\n*** Update File: f\n@@\n-end\n+END\n*** End of File\n*** End Patch')).toBe('x\nend\ny\nEND\n');
  });

  it('an @@ line puts the hunk after it: the first match there is meant', () => {
    const text = 'def f():\n    pass\n\ndef g():\n    pass\n';
    expect(applied(text, '*** Begin Patch\n*** Update File: a.py\n@@ def g():\n-    pass\n+    return 1\n*** End Patch')).toBe(
      'def f():\n    pass\n\ndef g():\n    return 1\n',
    );
  });

  it('without an @@ line, a hunk matching in two places is ambiguous_match (Codex would take the first)', () => {
    const text = 'def f():\n    pass\n\ndef g():\n    pass\n';
    const patch = '*** Begin Patch\n*** Update File: a.py\n@@\n-    pass\n+    return 1\n*** End Patch';
    expect(codeOf(() => applied(text, patch))).toBe('ambiguous_match');
  });

  it('hunks go in order: the second is looked for after the first', () => {
    const text = 'a\nx\nb\nx\n';
    expect(applied(text, '*** Begin Patch\n*** Update File: f\n@@\n a\n-x\n+1\n@@\n b\n-x\n+2\n*** End Patch')).toBe('a\n1\nb\n2\n');
  });

  it('a hunk of added lines only goes at the end of the file', () => {
    expect(applied('one\ntwo\n', '*** Begin Patch\n*** Update File: f\n@@\n+three\n*** End Patch')).toBe('one\ntwo\nthree\n');
  });

  it('a blank line closing a hunk need not be in the file (retried without it, as Codex does)', () => {
    expect(applied('a\nb\nc\n', '*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n\n*** End Patch')).toBe('a\nB\nc\n');
  });

  it('an @@ line not in the file, and old lines not in the file, are no_match', () => {
    expect(codeOf(() => applied('a\n', '*** Begin Patch\n*** Update File: f\n@@ nope\n-a\n+b\n*** End Patch'))).toBe('no_match');
    expect(codeOf(() => applied('a\n', '*** Begin Patch\n*** Update File: f\n@@\n-zzz\n+b\n*** End Patch'))).toBe('no_match');
  });
});

describe('matching with falling strictness (cases of codex-rs/apply-patch seek_sequence.rs)', () => {
  const place = (lines: string[], old: string[]) => resolveHunks(lines, [{ old, new: ['X'] }], 'codex', 'f')[0]!;
  it('exactly', () => expect(place(['foo', 'bar', 'baz'], ['bar', 'baz'])).toMatchObject({ start: 1, oldCount: 2 }));
  it('ignoring trailing whitespace, said in loose', () => {
    expect(place(['foo   ', 'bar\t\t'], ['foo', 'bar'])).toMatchObject({ start: 0, loose: ['trailing_whitespace'] });
  });
  it('ignoring leading and trailing whitespace', () => {
    expect(place(['    foo   ', '   bar\t'], ['foo', 'bar'])).toMatchObject({ start: 0, loose: expect.arrayContaining(['indentation']) });
  });
  it('a pattern longer than the file matches nowhere', () => {
    expect(codeOf(() => place(['just one line'], ['too', 'many', 'lines']))).toBe('no_match');
  });
  it('typographic punctuation against ASCII', () => {
    expect(place(['say \u201chi\u201d \u2013 ok'], ['say "hi" - ok'])).toMatchObject({ start: 0, loose: ['punctuation'] });
  });
});

describe('SEARCH/REPLACE blocks (cases of aider tests/basic/test_editblock.py)', () => {
  it('the file named above a fence, or inside it', () => {
    const a = parsePatch("Here's the change:\n\n```text\nfoo.txt\n<<<<<<< SEARCH\nTwo\n=======\nTooooo\n>>>>>>> REPLACE\n```\n\nHope you like it!\n");
    expect(a.files).toEqual([{ op: 'update', path: 'foo.txt', hunks: [{ old: ['Two'], new: ['Tooooo'] }] }]);
    const b = parsePatch("Here's the change:\n\nfoo.txt\n```text\n<<<<<<< SEARCH\nTwo\n=======\nTooooo\n>>>>>>> REPLACE\n```\n");
    expect(b.files[0]!.path).toBe('foo.txt');
  });

  it('an unclosed block and a block naming no file are errors', () => {
    expect(() => parsePatch('```text\nfoo.txt\n<<<<<<< SEARCH\nTwo\n=======\nTooooo\n\n\noops!\n')).toThrow(/without its >>>>>>> REPLACE/);
    expect(() => parsePatch("Here's the change:\n\n```text\n<<<<<<< SEARCH\nTwo\n=======\nTooooo\n>>>>>>> REPLACE\n")).toThrow(/names no file/);
  });

  it('several blocks of one file, the later ones naming none; a default path for blocks that name none', () => {
    const p = parsePatch(
      '```text\nfoo.txt\n<<<<<<< SEARCH\none\n=======\ntwo\n>>>>>>> REPLACE\n\n...\n\n<<<<<<< SEARCH\nthree\n=======\nfour\n>>>>>>> REPLACE\n```\n',
    );
    expect(p.files).toEqual([
      {
        op: 'update',
        path: 'foo.txt',
        hunks: [
          { old: ['one'], new: ['two'] },
          { old: ['three'], new: ['four'] },
        ],
      },
    ]);
    expect(parsePatch('<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE', 'given.txt').files[0]!.path).toBe('given.txt');
  });

  it("deepseek's filename mangling (the name in a fence of its own)", () => {
    const p = parsePatch("Here's the change:\n\n ```python\nfoo.txt\n```\n```python\n<<<<<<< SEARCH\none\n=======\ntwo\n>>>>>>> REPLACE\n```\n");
    expect(p.files[0]).toMatchObject({ path: 'foo.txt', hunks: [{ old: ['one'], new: ['two'] }] });
  });

  it('an empty SEARCH creates a file (in the same folder as another block)', () => {
    const p = parsePatch(
      'path/to/a/file2.txt\n```python\n<<<<<<< SEARCH\n=======\nthree\n>>>>>>> REPLACE\n```\n\nanother change\n\npath/to/a/file1.txt\n```python\n<<<<<<< SEARCH\none\n=======\ntwo\n>>>>>>> REPLACE\n```\n',
    );
    expect(p.files).toEqual([
      { op: 'update', path: 'path/to/a/file2.txt', createIfMissing: true, hunks: [{ old: [], new: ['three'] }] },
      { op: 'update', path: 'path/to/a/file1.txt', hunks: [{ old: ['one'], new: ['two'] }] },
    ]);
  });

  it("Cline's markers (------- SEARCH / +++++++ REPLACE)", () => {
    expect(parsePatch('------- SEARCH\na\n=======\nb\n+++++++ REPLACE', 'x.ts').files[0]!.hunks).toEqual([{ old: ['a'], new: ['b'] }]);
  });

  it('missing leading whitespace: matched loosely, the new lines take the file’s indentation', () => {
    const sr = (part: string, rep: string) => `f.txt\n<<<<<<< SEARCH\n${part}=======\n${rep}>>>>>>> REPLACE\n`;
    expect(applied('    line1\n    line2\n    line3\n', sr('line1\nline2\n', 'new_line1\nnew_line2\n'))).toBe('    new_line1\n    new_line2\n    line3\n');
    expect(applied('\n    line1\n    line2\n        line3\n    line4\n', sr('line2\n    line3\n', 'new_line2\n    new_line3\n'))).toBe(
      '\n    line1\n    new_line2\n        new_line3\n    line4\n',
    );
  });

  it('a block matching in several places is ambiguous_match (Aider replaces the first)', () => {
    expect(codeOf(() => applied('line1\nline2\nline1\nline3\n', 'f.txt\n<<<<<<< SEARCH\nline1\n=======\nnew_line\n>>>>>>> REPLACE\n'))).toBe('ambiguous_match');
  });
});

describe('unified diffs against diff(1)', () => {
  it('git headers: a rename, an add and a delete', () => {
    const p = parsePatch(
      'diff --git a/old.txt b/new.txt\nsimilarity index 100%\nrename from old.txt\nrename to new.txt\n' +
        'diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n' +
        'diff --git a/d.txt b/d.txt\ndeleted file mode 100644\n--- a/d.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n',
    );
    expect(p.files).toEqual([
      { op: 'update', path: 'old.txt', moveTo: 'new.txt', hunks: [] },
      { op: 'add', path: 'n.txt', content: 'a\nb\n', hunks: [] },
      { op: 'delete', path: 'd.txt', hunks: [{ old: ['x'], new: [] }] },
    ]);
  });

  it('a hunk whose lines moved is placed at the match nearest its @@ line', () => {
    const text = 'k\nv\nfiller\nk\nv\n';
    // @@ says line 4; the same two lines are at 1 and 4.
    expect(applied(text, '--- a/f\n+++ b/f\n@@ -4,2 +4,2 @@\n k\n-v\n+V\n')).toBe('k\nv\nfiller\nk\nV\n');
    // A line inserted above since the diff was made: it still lands on the nearest (as patch(1) finds it by offset).
    expect(applied(`new1\n${text}`, '--- a/f\n+++ b/f\n@@ -4,2 +4,2 @@\n k\n-v\n+V\n')).toBe('new1\nk\nv\nfiller\nk\nV\n');
    // At equal distance either way, it is ambiguous_match.
    expect(codeOf(() => applied('k\nv\nk\nv\nk\nv\n', '--- a/f\n+++ b/f\n@@ -3,1 +3,1 @@\n-v\n+V\n'))).toBe('ambiguous_match');
  });

  it('diff -u of random texts applies to give the second text (200 seeded pairs)', () => {
    const tmp = tempDir('folio-patch-diff-');
    try {
      const rand = prng(27);
      const words = ['alpha', 'beta', 'gamma', 'delta', '', '  indented', 'end;', '}', '{'];
      for (let n = 0; n < 200; n++) {
        const a: string[] = Array.from({ length: 1 + Math.floor(rand() * 40) }, () => words[Math.floor(rand() * words.length)]!);
        const b = a.slice();
        for (let k = Math.floor(rand() * 6); k >= 0; k--) {
          const at = Math.floor(rand() * (b.length + 1));
          if (rand() < 0.5 && b.length > 1) b.splice(at, 1 + Math.floor(rand() * 3));
          else b.splice(at, 0, ...Array.from({ length: 1 + Math.floor(rand() * 3) }, () => `new ${Math.floor(rand() * 1000)}`));
        }
        const [ta, tb] = [a.map((l) => `${l}\n`).join(''), b.map((l) => `${l}\n`).join('')];
        writeFileSync(tmp.path('a'), ta);
        writeFileSync(tmp.path('b'), tb);
        const diff = spawnSync('diff', ['-u', tmp.path('a'), tmp.path('b')], { encoding: 'utf8' }).stdout;
        if (diff === '') continue;
        // Repeated words make most hunks match in several places: the @@ line numbers decide, as they must.
        expect(applied(ta, diff), `pair ${n}:\n${diff}`).toBe(tb);
      }
    } finally {
      tmp.cleanup();
    }
  });
});

describe('changedRuns: only the lines a hunk changes', () => {
  it('context lines inside a hunk are not replaced', () => {
    expect(changedRuns(['a', 'b', 'c', 'd', 'e'], ['a', 'B', 'c', 'd', 'E', 'f'])).toEqual([
      { at: 1, oldCount: 1, newLines: ['B'] },
      { at: 4, oldCount: 1, newLines: ['E', 'f'] },
    ]);
    expect(changedRuns(['a'], ['a'])).toEqual([]);
  });

  it('applying the runs to the old lines gives the new lines (1,000 seeded pairs)', () => {
    const rand = prng(7);
    for (let n = 0; n < 1000; n++) {
      const pick = () => 'abcde'[Math.floor(rand() * 5)]!;
      const old = Array.from({ length: Math.floor(rand() * 12) }, pick);
      const neu = Array.from({ length: Math.floor(rand() * 12) }, pick);
      const out = old.slice();
      for (const r of changedRuns(old, neu).reverse()) out.splice(r.at, r.oldCount, ...r.newLines);
      expect(out, `${old.join('')} -> ${neu.join('')}`).toEqual(neu);
    }
  });
});
