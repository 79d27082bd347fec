/**
 * The edit formats agents are trained on, parsed into one shape (PatchFile): a
 * patch names files, and for each an add (its text), a delete, or an update (its
 * hunks: old lines to find, new lines to put there), with an optional move.
 *
 * - `codex`: OpenAI's apply_patch envelope (`*** Begin Patch` … `*** End Patch`;
 *   Add/Delete/Update File, `*** Move to:`, `@@ context` headers, `*** End of File`),
 *   parsed leniently as Codex does (padded markers, a heredoc wrapper, a first chunk
 *   without `@@`).
 * - `search_replace`: Aider's and Cline's blocks (`<<<<<<< SEARCH` / `=======` /
 *   `>>>>>>> REPLACE`, or Cline's `------- SEARCH` / `+++++++ REPLACE`), each after
 *   the line naming its file (fences and "# " around the name are allowed); an empty
 *   SEARCH creates the file, or appends to one that exists.
 * - `unified`: `diff -u` / `git diff` output (`---`/`+++`, `@@ -a,b +c,d @@`,
 *   /dev/null for adds and deletes, git's rename lines).
 *
 * Parsing reads no file: where each hunk goes is patch-resolve.ts.
 */
import { FolioError } from '../errors.ts';

export type PatchFormat = 'codex' | 'search_replace' | 'unified';

export interface PatchHunk {
  /** codex `@@ line`: the hunk lies after the first line like this one */
  context?: string;
  old: string[];
  new: string[];
  /** codex `*** End of File`: the old lines end the file */
  eof?: boolean;
  /** unified: the 1-based line the old lines started at in the diff's source */
  line?: number;
}

export interface PatchFile {
  op: 'add' | 'update' | 'delete';
  path: string;
  /** update: the new name (codex `*** Move to:`, git `rename to`) */
  moveTo?: string;
  /** add: the whole text */
  content?: string;
  hunks: PatchHunk[];
  /** search_replace: an empty SEARCH, which creates the file if it is missing */
  createIfMissing?: boolean;
}

export interface ParsedPatch {
  format: PatchFormat;
  files: PatchFile[];
}

function bad(message: string, line: number | null, format: PatchFormat | null): FolioError {
  return new FolioError('invalid_input', `${line === null ? 'patch' : `patch line ${line}`}: ${message}`, {
    ...(line === null ? {} : { line }),
    ...(format ? { format } : {}),
  });
}

const SEARCH = /^\s*(?:<{5,9}|-{5,9}) ?SEARCH\s*$/;
const DIVIDER = /^\s*={5,9}\s*$/;
const REPLACE = /^\s*(?:>{5,9}|\+{5,9}) ?REPLACE\s*$/;

/** Which format `text` is in, or null. */
export function patchFormatOf(text: string): PatchFormat | null {
  if (/^\s*\*\*\* Begin Patch\s*$/m.test(text)) return 'codex';
  if (text.split('\n').some((l) => SEARCH.test(l))) return 'search_replace';
  // git's diff of a pure rename has no ---/+++ lines: its diff --git header says what it is.
  if (/^--- .*\n\+\+\+ |^diff --git /m.test(text.replace(/\r\n/g, '\n'))) return 'unified';
  return null;
}

/**
 * Parse a patch. `defaultPath` names the file of search/replace blocks that name
 * none (the CLI's FILE, the tool's path). Errors are invalid_input naming the line.
 */
export function parsePatch(text: string, defaultPath?: string): ParsedPatch {
  const format = patchFormatOf(text);
  if (format === null) {
    throw bad(
      'not a patch: send a "*** Begin Patch" envelope, SEARCH/REPLACE blocks (<<<<<<< SEARCH, =======, >>>>>>> REPLACE) or a unified diff (---, +++, @@)',
      null,
      null,
    );
  }
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const files = format === 'codex' ? parseCodex(lines) : format === 'search_replace' ? parseSearchReplace(lines, defaultPath) : parseUnified(lines);
  if (files.length === 0) throw bad('it changes no file', null, format);
  return { format, files };
}

// --- codex ---

function parseCodex(all: string[]): PatchFile[] {
  let lines = all;
  // A heredoc wrapper sent as the argument (<<'EOF' … EOF), as Codex's lenient mode allows.
  while (lines.length && lines[0]!.trim() === '') lines = lines.slice(1);
  while (lines.length && lines[lines.length - 1]!.trim() === '') lines = lines.slice(0, -1);
  let offset = 0;
  if (/^<<['"]?EOF['"]?$/.test(lines[0]?.trim() ?? '') && lines[lines.length - 1]?.trim().endsWith('EOF')) {
    lines = lines.slice(1, -1);
    offset = 1;
  }
  const begin = lines.findIndex((l) => l.trim() === '*** Begin Patch');
  if (begin !== 0) throw bad("the first line must be '*** Begin Patch'", offset + 1, 'codex');
  if (lines[lines.length - 1]!.trim() !== '*** End Patch') throw bad("the last line must be '*** End Patch'", offset + lines.length, 'codex');
  const body = lines.slice(1, -1);
  const at = (i: number) => offset + i + 2; // 1-based line number of body[i]
  const files: PatchFile[] = [];
  let i = 0;
  while (i < body.length) {
    const head = body[i]!.trim();
    if (head === '') {
      i++;
      continue;
    }
    const add = /^\*\*\* Add File: (.+)$/.exec(head);
    const del = /^\*\*\* Delete File: (.+)$/.exec(head);
    const upd = /^\*\*\* Update File: (.+)$/.exec(head);
    if (add) {
      const content: string[] = [];
      i++;
      while (i < body.length && body[i]!.startsWith('+')) content.push(body[i++]!.slice(1));
      files.push({ op: 'add', path: add[1]!.trim(), content: content.map((l) => `${l}\n`).join(''), hunks: [] });
      continue;
    }
    if (del) {
      files.push({ op: 'delete', path: del[1]!.trim(), hunks: [] });
      i++;
      continue;
    }
    if (!upd) {
      throw bad(`'${head}' is not a file header: use '*** Add File: PATH', '*** Delete File: PATH' or '*** Update File: PATH'`, at(i), 'codex');
    }
    const file: PatchFile = { op: 'update', path: upd[1]!.trim(), hunks: [] };
    const headLine = at(i);
    i++;
    const move = /^\*\*\* Move to: (.+)$/.exec(body[i]?.trim() ?? '');
    if (move) {
      file.moveTo = move[1]!.trim();
      i++;
    }
    while (i < body.length) {
      if (body[i]!.trim() === '') {
        i++;
        continue;
      }
      if (body[i]!.startsWith('*')) break;
      const hunk: PatchHunk = { old: [], new: [] };
      const marker = body[i]!;
      if (marker.trim() === '@@') i++;
      else if (marker.trimStart().startsWith('@@ ')) {
        hunk.context = marker.trimStart().slice(3);
        i++;
      } else if (file.hunks.length > 0) throw bad(`expected an '@@' line to start the next hunk, got '${marker}'`, at(i), 'codex');
      let n = 0;
      for (; i < body.length; i++) {
        const l = body[i]!;
        if (l.trim() === '*** End of File') {
          if (n === 0) throw bad('a hunk with no lines', at(i), 'codex');
          hunk.eof = true;
          i++;
          break;
        }
        const c = l[0];
        if (c === undefined) {
          hunk.old.push('');
          hunk.new.push('');
        } else if (c === ' ') {
          hunk.old.push(l.slice(1));
          hunk.new.push(l.slice(1));
        } else if (c === '+') hunk.new.push(l.slice(1));
        else if (c === '-') hunk.old.push(l.slice(1));
        else {
          if (n === 0) throw bad(`'${l}': each hunk line starts with ' ' (context), '+' (added) or '-' (removed)`, at(i), 'codex');
          break;
        }
        n++;
      }
      if (n === 0) throw bad('a hunk with no lines', at(i - 1), 'codex');
      file.hunks.push(hunk);
    }
    if (file.hunks.length === 0) throw bad(`the update of '${file.path}' has no hunks`, headLine, 'codex');
    files.push(file);
  }
  return files;
}

// --- search/replace ---

/** The file named on `line` (a path, maybe in a fence line, after "# ", in backticks, with a trailing colon), or null. */
function fileNameOf(line: string): string | null {
  let s = line.trim();
  if (s.startsWith('```')) s = s.slice(3).trim();
  s = s
    .replace(/^#+\s*/, '')
    .replace(/^`(.*)`:?$/, '$1')
    .replace(/:$/, '')
    .replace(/^\*\*(.*)\*\*$/, '$1')
    .trim();
  if (s === '' || /\s/.test(s) || SEARCH.test(s) || DIVIDER.test(s) || REPLACE.test(s)) return null;
  // A fence's language alone ("python") is no name, nor is "...": a name has a dot or a slash, and a letter or digit.
  return /[./\\]/.test(s) && /[\p{L}\p{N}]/u.test(s) ? s : null;
}

function parseSearchReplace(lines: string[], defaultPath?: string): PatchFile[] {
  const files: PatchFile[] = [];
  const byPath = new Map<string, PatchFile>();
  let current: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    if (!SEARCH.test(lines[i]!)) continue;
    // The file: the nearest name within the three lines above (fences between), else the block before's, else the default.
    let named: string | null = null;
    for (let k = i - 1; k >= Math.max(0, i - 3); k--) {
      named = fileNameOf(lines[k]!);
      if (named) break;
      if (lines[k]!.trim() !== '' && !lines[k]!.trim().startsWith('```')) break;
    }
    const path: string | undefined = named ?? current ?? defaultPath;
    if (!path) throw bad('a SEARCH block names no file: put its path on the line above it', i + 1, 'search_replace');
    current = path;
    const start = i + 1;
    const old: string[] = [];
    for (i++; i < lines.length && !DIVIDER.test(lines[i]!); i++) {
      if (SEARCH.test(lines[i]!) || REPLACE.test(lines[i]!)) throw bad('expected ======= after the SEARCH lines', i + 1, 'search_replace');
      old.push(lines[i]!);
    }
    if (i >= lines.length) throw bad('a SEARCH block without its =======', start, 'search_replace');
    const neu: string[] = [];
    for (i++; i < lines.length && !REPLACE.test(lines[i]!); i++) {
      if (SEARCH.test(lines[i]!) || DIVIDER.test(lines[i]!)) throw bad('expected >>>>>>> REPLACE after the replacement lines', i + 1, 'search_replace');
      neu.push(lines[i]!);
    }
    if (i >= lines.length) throw bad('a SEARCH block without its >>>>>>> REPLACE', start, 'search_replace');
    let file = byPath.get(path);
    if (!file) {
      file = { op: 'update', path, hunks: [] };
      byPath.set(path, file);
      files.push(file);
    }
    if (old.every((l) => l.trim() === '')) {
      if (file.hunks.length) throw bad(`an empty SEARCH for ${path} after other blocks of it: give it alone`, start, 'search_replace');
      file.createIfMissing = true;
      file.hunks.push({ old: [], new: neu });
    } else {
      if (file.createIfMissing) throw bad(`${path} is created by an empty SEARCH block above: give its whole text there`, start, 'search_replace');
      file.hunks.push({ old, new: neu });
    }
  }
  return files;
}

// --- unified diff ---

/** A diff's path without git's a/ b/ prefix, or null for /dev/null. */
function diffPathOf(raw: string, git: boolean): string | null {
  let p = raw.replace(/\t.*$/, '').trim();
  if (p.startsWith('"') && p.endsWith('"')) p = p.slice(1, -1);
  if (p === '/dev/null') return null;
  if (git || /^[ab]\//.test(p)) p = p.replace(/^[ab]\//, '');
  return p;
}

function parseUnified(lines: string[]): PatchFile[] {
  const files: PatchFile[] = [];
  let git = false;
  let rename: { from?: string; to?: string } = {};
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.startsWith('diff --git ')) {
      git = true;
      rename = {};
      continue;
    }
    if (l.startsWith('rename from ')) rename.from = l.slice(12).trim();
    if (l.startsWith('rename to ')) {
      rename.to = l.slice(10).trim();
      // A pure rename has no ---/+++: the file moves unchanged.
      if (rename.from && !lines[i + 1]?.startsWith('--- ') && !lines[i + 2]?.startsWith('--- ')) {
        files.push({ op: 'update', path: rename.from, moveTo: rename.to, hunks: [] });
        rename = {};
      }
      continue;
    }
    if (!(l.startsWith('--- ') && lines[i + 1]?.startsWith('+++ '))) continue;
    const from = diffPathOf(l.slice(4), git);
    const to = diffPathOf(lines[i + 1]!.slice(4), git);
    i += 2;
    const hunks: PatchHunk[] = [];
    while (i < lines.length && lines[i]!.startsWith('@@')) {
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(lines[i]!);
      if (!m) throw bad(`'${lines[i]}' is not a hunk header (@@ -a,b +c,d @@)`, i + 1, 'unified');
      let oldLeft = m[2] === undefined ? 1 : Number(m[2]);
      let newLeft = m[4] === undefined ? 1 : Number(m[4]);
      const hunk: PatchHunk = { old: [], new: [], line: Number(m[1]) + (oldLeft === 0 ? 1 : 0) };
      const headAt = i + 1;
      for (i++; i < lines.length && (oldLeft > 0 || newLeft > 0); i++) {
        const h = lines[i]!;
        if (h.startsWith('\\')) continue; // \ No newline at end of file
        const c = h[0];
        if (c === ' ' || h === '') {
          hunk.old.push(h.slice(1));
          hunk.new.push(h.slice(1));
          oldLeft--;
          newLeft--;
        } else if (c === '-') {
          hunk.old.push(h.slice(1));
          oldLeft--;
        } else if (c === '+') {
          hunk.new.push(h.slice(1));
          newLeft--;
        } else break;
      }
      if (oldLeft > 0 || newLeft > 0) throw bad('the hunk is shorter than its @@ header says', headAt, 'unified');
      while (i < lines.length && lines[i]!.startsWith('\\')) i++;
      hunks.push(hunk);
    }
    i--;
    if (from === null && to === null) throw bad('both sides are /dev/null', i, 'unified');
    if (from === null) {
      files.push({ op: 'add', path: to!, content: hunks.flatMap((h) => h.new.map((x) => `${x}\n`)).join(''), hunks: [] });
    } else if (to === null) {
      // The lines it deletes, which the file must still be.
      files.push({ op: 'delete', path: from, hunks: hunks.length ? [{ old: hunks.flatMap((h) => h.old), new: [] }] : [] });
    } else {
      const moveTo = rename.to ?? (to !== from ? to : undefined);
      files.push({ op: 'update', path: rename.from ?? from, ...(moveTo !== undefined ? { moveTo } : {}), hunks });
    }
    rename = {};
  }
  return files;
}
