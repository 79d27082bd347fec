/**
 * The final-newline rule of line edits (docs/API.md, "What the edit does to the
 * text"), as a property: random files (LF or CRLF, with or without a final newline,
 * empty), random inserts, replaces and deletes with random content (with or without
 * its own final newline, empty), through the engine's upsert, against a model of
 * the rule written here from the docs' words; deletes also against `sed A,Bd`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { read } from '../../src-main/engine/read/read.ts';
import { upsert, type UpsertRequest } from '../../src-main/engine/write/upsert.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { runs } from '../fixtures/effort.ts';

const tmp = engineTempDir();
let n = 0;

type Edit = { kind: 'insert'; at: number } | { kind: 'replace' | 'delete'; start: number; end: number };

/**
 * The rule: a file is lines, each owning its newline; only the last may lack one.
 * - A delete (or a replace by nothing) removes the target lines with their newlines;
 *   every other byte stays (deleting the last line of `a\nb\nc` leaves `a\nb\n`).
 * - Content that replaces or is inserted becomes whole lines: it gets a final newline
 *   in the file's style when it lacks one, except when it ends the file and the
 *   file's last line had no newline; there it is written as given.
 * - Inserting after the last line ends that line first (in the file's style) when it
 *   has no newline. Inserting nothing changes nothing.
 * - The file's style is LF or CRLF as its newlines are; a file with none is LF. The
 *   content's own newlines become that style (normalize_newlines, the default).
 */
function expected(lines: string[], nl: string, finalNewline: boolean, edit: Edit, content: string): string {
  const units = lines.map((l, i) => l + (i < lines.length - 1 || finalNewline ? nl : ''));
  const total = lines.length;
  const open = total > 0 && !finalNewline;
  // The file's style is what its newlines are; a file with none (empty, or one line without one) is LF.
  const style = units.some((u) => u.endsWith('\n')) ? nl : '\n';
  // normalize_newlines (the default): the content's newlines are the file's style too.
  content = content.replace(/\r\n|\r|\n/g, style);
  const asLines = (atEnd: boolean) => (content.endsWith('\n') || (atEnd && open) ? content : content + style);
  if (edit.kind !== 'insert') {
    const replaced = edit.kind === 'replace' && content !== '' ? [asLines(edit.end === total)] : [];
    units.splice(edit.start - 1, edit.end - edit.start + 1, ...replaced);
  } else if (content !== '') {
    if (edit.at === total + 1 && open) units[total - 1] += style;
    units.splice(edit.at - 1, 0, asLines(edit.at === total + 1));
  }
  return units.join('');
}

const word = fc.constantFrom('a', 'bb', 'é€', '', ' x ', 'tab\there');
const fileArb = fc.record({
  lines: fc.array(word, { minLength: 0, maxLength: 6 }),
  crlf: fc.boolean(),
  finalNewline: fc.boolean(),
  contentLines: fc.array(word, { minLength: 0, maxLength: 3 }),
  contentNewline: fc.boolean(),
  kind: fc.constantFrom('insert', 'replace', 'delete'),
  s0: fc.nat(),
  s1: fc.nat(),
});

describe('the final-newline rule of line edits', () => {
  it('inserts, replaces and deletes give what the rule says, in LF and CRLF files, with and without a final newline', async () => {
    await fc.assert(
      fc.asyncProperty(fileArb, async ({ lines, crlf, finalNewline, contentLines, contentNewline, kind, s0, s1 }) => {
        const nl = crlf ? '\r\n' : '\n';
        // An empty last line without a newline is no line: `a\n` is one line ending in a newline, `` none.
        if (lines.length > 0 && lines[lines.length - 1] === '' && !finalNewline) {
          lines = lines.slice(0, -1);
          finalNewline = true;
        }
        const text = lines.map((l, i) => l + (i < lines.length - 1 || finalNewline ? nl : '')).join('');
        const total = lines.length;
        const content = contentLines.length === 0 ? '' : contentLines.join(nl) + (contentNewline ? nl : '');
        const a = total ? 1 + (s0 % total) : 1;
        const b = total ? a + (s1 % (total - a + 1)) : 1;
        const edit: Edit = kind === 'insert' || total === 0 ? { kind: 'insert', at: 1 + (s0 % (total + 1)) } : { kind, start: a, end: b };
        const path = tmp.path(`f${n++}.txt`);
        writeFileSync(path, text);
        const version = (await read(path, { mode: 'head', lines: 0 })).version;
        const target: UpsertRequest['target'] = edit.kind === 'insert' ? { kind: 'insert', at: edit.at, units: 'lines' } : { ...edit, units: 'lines' };
        await upsert(path, { target, content: edit.kind === 'delete' ? '' : content, preconditions: { ifMatch: version.etag } });
        const got = readFileSync(path, 'utf8');
        expect(JSON.stringify(got), `${JSON.stringify(text)} ${JSON.stringify(edit)} ${JSON.stringify(content)}`).toBe(
          JSON.stringify(expected(lines, nl, finalNewline, edit, content)),
        );
        if (edit.kind === 'delete') {
          writeFileSync(`${path}.sed`, text);
          expect(got).toBe(execFileSync('sed', [`${edit.start},${edit.end}d`, `${path}.sed`], { encoding: 'utf8' }));
        }
      }),
      runs(400),
    );
  });
});
