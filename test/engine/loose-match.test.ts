/**
 * Quotes that are not in the file exactly but match one place loosely (issue 27;
 * engine/write/loose-match.ts through quote-edit.ts): whitespace, tabs against
 * spaces, indentation, CRLF, look-alike punctuation. Real files; the result of each
 * edit is checked as bytes, the lines around it untouched; ambiguous and partial-line
 * quotes are refused; a property test checks against splicing the file's lines.
 */
import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FolioError } from '../../src-main/engine/errors.ts';
import { differencesOf, looseForm, reindent } from '../../src-main/engine/write/loose-match.ts';
import type { QuotedEdit, ResolvedReplacement } from '../../src-main/engine/write/quote-edit.ts';
import { runs } from '../fixtures/effort.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { applyReplacements, failureOf, resolveIn } from '../fixtures/quoted-edits.ts';

const tmp = engineTempDir();
let n = 0;
function file(content: string | Buffer): string {
  const p = tmp.path(`loose${n++}.txt`);
  writeFileSync(p, content);
  return p;
}

const resolve = resolveIn;

const failure = failureOf;

const apply = applyReplacements;

async function edited(content: string | Buffer, edit: QuotedEdit): Promise<{ text: Buffer; reps: ResolvedReplacement[] }> {
  const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content);
  const reps = await resolve(file(bytes), [edit]);
  return { text: apply(bytes, reps), reps };
}

const HEAD = 'head 1\nhead 2\n';
const TAIL = 'tail 1\ntail 2\n';

describe('a quote that matches one place loosely is applied there', () => {
  it.each([
    [
      'indentation (2 spaces quoted, 4 in the file); new text takes the file’s',
      'def f():\n    if x:\n        return 1\n',
      '  if x:\n      return 1\n',
      '  if x:\n      return 2\n',
      'def f():\n    if x:\n        return 2\n',
      ['indentation'],
    ],
    [
      'tabs in the file, spaces quoted; new text indented with tabs',
      'int f() {\n\tif (a) {\n\t\tgo();\n\t}\n}\n',
      '    if (a) {\n        go();\n    }\n',
      '    if (a) {\n        go();\n        stop();\n    }\n',
      'int f() {\n\tif (a) {\n\t\tgo();\n\t\tstop();\n\t}\n}\n',
      ['indentation'],
    ],
    [
      'spaces in the file, tabs quoted',
      'fn main() {\n    let a = 1;\n    if a {\n        b();\n    }\n}\n',
      '\tif a {\n\t\tb();\n',
      '\tif a {\n\t\tc();\n',
      'fn main() {\n    let a = 1;\n    if a {\n        c();\n    }\n}\n',
      ['indentation'],
    ],
    ['trailing whitespace in the file', 'alpha  \nbeta\t\ngamma\n', 'alpha\nbeta\n', 'ALPHA\nBETA\n', 'ALPHA\nBETA\ngamma\n', ['trailing_whitespace']],
    ['runs of spaces inside a line', 'x = {a:  1,   b: 2}\n', 'x = {a: 1, b: 2}', 'x = {a: 3}', 'x = {a: 3}\n', ['inner_whitespace']],
    [
      'curly quotes and an em dash quoted where the file has ASCII',
      'print("done") - ok\nnext\n',
      '\u201Cdone\u201D',
      'x',
      null, // a partial line: no loose match (below)
      [],
    ],
    [
      'curly quotes and an em dash quoted for a whole line',
      'msg = "it\'s done" - ok\nnext\n',
      'msg = \u201Cit\u2019s done\u201D \u2014 ok\n',
      'msg = "finished"\n',
      'msg = "finished"\nnext\n',
      ['punctuation'],
    ],
    [
      'ASCII quoted where the file has typographic punctuation and a no-break space',
      'title: \u201CHello\u201D\u00A0\u2013 world\n',
      'title: "Hello" - world',
      'title: "Bye"',
      'title: "Bye"\n',
      ['punctuation'],
    ],
  ] as const)('%s', async (_what, body, quote, replacement, expected, differs) => {
    const content = HEAD + body + TAIL;
    if (expected === null) {
      expect((await failure(file(content), [{ oldText: quote, newText: replacement }])).code).toBe('no_match');
      return;
    }
    const { text, reps } = await edited(content, { oldText: quote, newText: replacement });
    expect(text.toString()).toBe(HEAD + expected + TAIL);
    expect(reps).toHaveLength(1);
    expect(reps[0]!.loose).toMatchObject({ edit: 0, differs });
  });

  it('in a CRLF file: the lines matched, the new text written with CRLF, every other byte kept', async () => {
    const content = 'a\r\n    keep();\r\n    old();\r\nz\r\n';
    const { text, reps } = await edited(content, { oldText: '  keep();\n  old();', newText: '  keep();\n  new1();\n  new2();' });
    expect(text.toString()).toBe('a\r\n    keep();\r\n    new1();\r\n    new2();\r\nz\r\n');
    expect(reps[0]!.loose).toMatchObject({ start_line: 2, end_line: 3, differs: ['indentation'], reindented: true });
  });

  it('a UTF-16LE file with a BOM stays UTF-16LE', async () => {
    const body = '\uFEFFfirst\n\tsecond  \nthird\n';
    const { text } = await edited(Buffer.from(body, 'utf16le'), { oldText: '  second\n', newText: '  SECOND\n' });
    expect(text.toString('utf16le')).toBe('\uFEFFfirst\n\tSECOND\nthird\n');
  });

  it('a quote ending in a newline matches a last line without one, and no newline is added', async () => {
    const { text, reps } = await edited('a\n  b', { oldText: 'b\n', newText: 'c\n' });
    expect(text.toString()).toBe('a\n  c');
    expect(reps[0]!.loose).toMatchObject({ differs: ['indentation', 'final_newline'], reindented: true });
    // Without an indentation to give: the last newline dropped is not a re-indent.
    const flat = await edited('a\nb', { oldText: 'b\n', newText: 'c\n' });
    expect(flat.text.toString()).toBe('a\nc');
    expect(flat.reps[0]!.loose).toMatchObject({ differs: ['final_newline'], reindented: false });
  });

  it('several edits: an exact one and a loose one apply together', async () => {
    const bytes = Buffer.from('one\n  two\n  three\n');
    const reps = await resolve(file(bytes), [
      { oldText: 'one', newText: 'ONE' },
      { oldText: 'two\nthree\n', newText: 'TWO\nTHREE\n' },
    ]);
    const text = apply(bytes, reps);
    expect(text.toString()).toBe('ONE\n  TWO\n  THREE\n');
    expect(reps.map((r) => Boolean(r.loose))).toEqual([false, true]);
  });
});

describe('what is not matched loosely', () => {
  it('two places that match loosely: ambiguous_match naming both lines, loose: true', async () => {
    const err = await failure(file('a\n  x = 1\nb\n\tx  =  1\n'), [{ oldText: 'x = 1 ', newText: 'y' }]);
    expect(err.code).toBe('ambiguous_match');
    expect(err.details).toMatchObject({ edit: 0, count: 2, lines: [2, 4], loose: true });
  });

  it('a quote that starts or ends inside a line is matched exactly or not at all', async () => {
    const err = await failure(file('call(a,  b) + 1\n'), [{ oldText: 'call(a, b)', newText: 'x' }]);
    expect(err.code).toBe('no_match');
  });

  it('replace_all is exact only', async () => {
    const err = await failure(file('  a\n  a\n'), [{ oldText: 'a ', newText: 'b', replaceAll: true }]);
    expect(err.code).toBe('no_match');
  });

  it('a file bigger than the loose scan: no_match, and the answer says the loose match was not tried', async () => {
    const p = file('x\n'.repeat(1000) + '    target\n');
    const err = await failure(p, [{ oldText: '\ttarget \n', newText: 'y\n' }], { loose: { maxBytes: 100 } });
    expect(err.code).toBe('no_match');
    expect(err.details.loose_match).toMatch(/not tried/);
    expect(await resolve(p, [{ oldText: '\ttarget \n', newText: 'y\n' }])).toHaveLength(1);
  });

  it('a quote of blank lines only is not matched loosely', async () => {
    const err = await failure(file('a\n  \nb\n'), [{ oldText: '\n\t\n', newText: 'x' }]);
    expect(err.code).toBe('no_match');
  });
});

describe('the helpers', () => {
  it('looseForm drops indentation, trailing and repeated whitespace, and makes look-alikes ASCII', () => {
    expect(looseForm('\t  a  \u2014\u00A0\u201Cb\u201D\t ')).toBe('a - "b"');
  });

  it('differencesOf names each kind once, in a fixed order', () => {
    expect(differencesOf(['  a  b', 'c\u2019'], ['\ta b ', "c'"])).toEqual(['indentation', 'trailing_whitespace', 'inner_whitespace', 'punctuation']);
  });

  it('reindent keeps lines less indented than the quote as they are', () => {
    expect(reindent('  x\ny\n    z', ['  a', '    b'], ['\ta', '\t\tb'])).toBe('\tx\ny\n\t\tz');
  });
});

describe('property: a perturbed quote of one block replaces exactly that block', () => {
  // Lines of words; each line is unique, so any block quoted loosely names one place.
  const word = fc.stringMatching(/^[a-z]{1,6}$/);
  const lineArb = (i: number) =>
    fc.tuple(fc.integer({ min: 0, max: 3 }), fc.array(word, { minLength: 1, maxLength: 4 })).map(([d, ws]) => '  '.repeat(d) + `${ws.join(' ')} #${i}#`);
  const fileArb = fc.integer({ min: 2, max: 30 }).chain((count) => fc.tuple(...Array.from({ length: count }, (_, i) => lineArb(i))));

  it('against splicing the file’s lines', async () => {
    let loose = 0;
    await fc.assert(
      fc.asyncProperty(
        fileArb,
        fc.nat(),
        fc.nat(),
        fc.constantFrom('tabs', 'less-indent', 'trailing', 'double-spaces'),
        fc.boolean(),
        async (lines, a, b, how, crlf) => {
          const from = a % lines.length;
          const to = from + (b % Math.min(4, lines.length - from));
          const block = lines.slice(from, to + 1);
          const perturb = (l: string): string => {
            if (how === 'tabs') return l.replace(/^( {2})+/, (m) => '\t'.repeat(m.length / 2));
            if (how === 'less-indent') return l.replace(/^ {2}/, '');
            if (how === 'trailing') return l + ' \t';
            return l.replace(/ /g, '  ').trimStart();
          };
          const quote = block.map(perturb).join('\n');
          const nl = crlf ? '\r\n' : '\n';
          const bytes = Buffer.from(lines.join(nl) + nl);
          // A quote found exactly (a less indented line inside a line) is not this test's business.
          if (bytes.toString().includes(quote.replace(/\n/g, nl))) return;
          const reps = await resolve(file(bytes), [{ oldText: quote, newText: 'NEW' }]).catch((e: unknown) => e);
          if (reps instanceof FolioError) throw new Error(`${reps.code}: ${reps.message}`);
          loose++;
          const out = apply(bytes, reps as ResolvedReplacement[]).toString();
          // New text without indentation takes the file's only where the quote had none either.
          const quoteIndent = /^[ \t]*/.exec(quote)![0];
          const newLine = quoteIndent === '' ? /^[ \t]*/.exec(block[0]!)![0] + 'NEW' : 'NEW';
          const expected = [...lines.slice(0, from), newLine, ...lines.slice(to + 1)];
          expect(out).toBe(expected.join(nl) + nl);
        },
      ),
      runs(60),
    );
    expect(loose, 'runs that took the loose path').toBeGreaterThan(20);
  });
});
