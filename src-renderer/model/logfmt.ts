/**
 * key=value pairs of a log line, as logfmt writes them (https://brandur.org/logfmt;
 * the grammar of github.com/go-logfmt/logfmt's decoder): pairs separated by
 * spaces; a key is a run of printable characters but `=` and `"`; `key=` is an
 * empty value; a value is a bare run up to the next space or a double-quoted
 * string with backslash escapes (`\"`, `\\`, `\n`, `\t`, `\uXXXX`: JSON's, which
 * is what logfmt writers emit). A bare key (`key` with no `=`) has no value (null).
 *
 * Lenient where logs are: words before the first `key=` (a timestamp, a level)
 * are the line's prefix, not keys, and a bare value may hold `=` (`q=a=b`).
 */
export type LogfmtPair = [key: string, value: string | null];

export interface LogfmtLine {
  /** the text before the first pair, trimmed */
  prefix: string;
  pairs: LogfmtPair[];
}

const isSpace = (c: number) => c <= 0x20;
const QUOTE = 0x22;
const EQUALS = 0x3d;
const BACKSLASH = 0x5c;

/** The pairs of `line`, or null when it holds no `key=` at all (then it is not logfmt). */
export function logfmtOf(line: string): LogfmtLine | null {
  const pairs: LogfmtPair[] = [];
  let prefixEnd = -1;
  let at = 0;
  const n = line.length;
  while (at < n) {
    while (at < n && isSpace(line.charCodeAt(at))) at++;
    if (at >= n) break;
    const keyStart = at;
    while (at < n && !isSpace(line.charCodeAt(at)) && line.charCodeAt(at) !== EQUALS && line.charCodeAt(at) !== QUOTE) at++;
    const key = line.slice(keyStart, at);
    if (key === '' || (at < n && line.charCodeAt(at) === QUOTE)) {
      // Not a key ("…" or a word holding a quote): before any pair it is prefix text; after, skip the word.
      at = wordEndOf(line, at);
      continue;
    }
    if (at >= n || line.charCodeAt(at) !== EQUALS) {
      // A bare word: a key without a value once pairs have begun, prefix text before.
      if (pairs.length > 0) pairs.push([key, null]);
      continue;
    }
    if (pairs.length === 0) prefixEnd = keyStart;
    at++; // =
    if (at < n && line.charCodeAt(at) === QUOTE) {
      const end = quotedEndOf(line, at);
      pairs.push([key, unquote(line.slice(at, end))]);
      at = end;
    } else {
      const start = at;
      while (at < n && !isSpace(line.charCodeAt(at))) at++;
      pairs.push([key, line.slice(start, at)]);
    }
  }
  if (pairs.length === 0) return null;
  return { prefix: line.slice(0, prefixEnd).trim(), pairs };
}

/** The end of the word at `at` (quoted parts are skipped whole, so a space inside quotes does not end it). */
function wordEndOf(line: string, at: number): number {
  while (at < line.length && !isSpace(line.charCodeAt(at))) at = line.charCodeAt(at) === QUOTE ? quotedEndOf(line, at) : at + 1;
  return at;
}

/** The index after the closing quote of the string opening at `at` (the line's end when it is not closed). */
function quotedEndOf(line: string, at: number): number {
  for (let i = at + 1; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i + 1;
  }
  return line.length;
}

/**
 * A quoted value's text (`quoted` from its opening quote to past its closing one, or
 * to the line's end): JSON's escapes; where JSON refuses it (an unknown escape, a raw
 * tab, no closing quote) the text between the quotes with only `\"` and `\\` undone.
 */
function unquote(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    const closed = quoted.length >= 2 && quoted.endsWith('"') && quotedEndOf(quoted, 0) === quoted.length;
    return quoted.slice(1, closed ? -1 : undefined).replace(/\\(["\\])/g, '$1');
  }
}
