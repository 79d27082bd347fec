/**
 * Front matter at the top of a markdown file: metadata for static site
 * generators and pandoc, not markdown. Without this, a YAML block's closing
 * `---` underlines its last line into a setext heading ("## title: … layout: …").
 */

const decoder = new TextDecoder();

/** The section name of a file's front matter. */
export const FRONT_MATTER = 'front matter';

/** Front matter must close within this many bytes of the top; past it, the lines are markdown. */
export const FRONT_MATTER_MAX_BYTES = 1 << 20;

/**
 * The front matter at the top of `head` (the file's first bytes, BOM excluded):
 * its kind, and the bytes and lines it takes (through the closing delimiter's
 * newline, if it has one); null if there is none. The rule, pandoc's
 * yaml_metadata_block at the top of a document
 * (https://pandoc.org/MANUAL.html#extension-yaml_metadata_block):
 * - the first line is `---` (YAML) or `+++` (TOML), trailing spaces allowed;
 * - a YAML block's second line is not blank (`---` then a blank line is a rule);
 * - it closes at the next line that is `---` or `...` (YAML), `+++` (TOML), not
 *   indented, trailing spaces allowed, within FRONT_MATTER_MAX_BYTES;
 * - what lies between is a mapping: its first line that is neither blank nor a
 *   comment is `key: …` (YAML) or `key = …` / `[table]` (TOML). pandoc reads
 *   other YAML (a list, a bare paragraph between two rules) as markdown; so do we.
 */
export function frontMatterOf(head: Uint8Array): { kind: 'yaml' | 'toml'; bytes: number; newlines: number } | null {
  const bytes = head.subarray(0, FRONT_MATTER_MAX_BYTES);
  /** The line at byte `start` (without its newline, '\r' and trailing blanks), and where the next one starts (-1: none). */
  const lineAt = (start: number) => {
    const nl = bytes.indexOf(10, start);
    const line = decoder.decode(bytes.subarray(start, nl < 0 ? bytes.length : nl));
    return { line: line.replace(/[ \t\r]+$/, ''), next: nl < 0 ? -1 : nl + 1 };
  };
  const first = lineAt(0);
  const kind = first.line === '---' ? 'yaml' : first.line === '+++' ? 'toml' : null;
  if (!kind || first.next < 0) return null;
  const closes = kind === 'yaml' ? ['---', '...'] : ['+++'];
  const mapping = kind === 'yaml' ? /^("[^"]*"|'[^']*'|[^\s#\-?:,[\]{}&*!|>%@`"'][^:]*):(\s|$)/ : /^(\[|("[^"]*"|'[^']*'|[\w.-]+)\s*=)/;
  let newlines = 1; // of the lines before the one at `at`
  let sawContent = false;
  for (let at = first.next; at >= 0 && at < bytes.length; newlines++) {
    const { line, next } = lineAt(at);
    if (closes.includes(line)) {
      // A closing line cut by the size cap may go on past it: only a line that ends before the cap (or the file's end) closes.
      if (next < 0 && head.length > bytes.length) return null;
      return { kind, bytes: next < 0 ? bytes.length : next, newlines: next < 0 ? newlines : newlines + 1 };
    }
    if (at === first.next && kind === 'yaml' && line.trim() === '') return null;
    if (!sawContent && line.trim() !== '' && !line.trimStart().startsWith('#')) {
      if (!mapping.test(line)) return null;
      sawContent = true;
    }
    at = next;
  }
  return null;
}
