/**
 * The grammar a file is coloured with, chosen from its name and, for a name that
 * says nothing, from its first lines: source files get Monaco's Monarch grammar
 * of their language (the basic languages Monaco ships, tokenizers only, no
 * language service), logs get Folio's log grammar, anything else stays plain.
 * Pure, so the choice is tested without a browser; src-renderer/monaco/languages.ts
 * registers exactly the ids this module can answer.
 */

/** Folio's own log grammar (src-renderer/monaco/log-language.ts). */
export const LOG_LANGUAGE = 'folio-log';
export const PLAIN_LANGUAGE = 'plaintext';

/** Extension (lower case, with its dot) → Monaco language id. Monaco's own lists, trimmed to what is common. */
const BY_EXTENSION: Record<string, string> = {
  ...ids('typescript', '.ts .tsx .cts .mts'),
  ...ids('javascript', '.js .jsx .mjs .cjs .es6'),
  ...ids('json', '.json .jsonc .json5 .jsonl .ndjson .geojson .webmanifest .har'),
  ...ids('markdown', '.md .markdown .mdx .mdown .mkd .mkdn .mdwn'),
  ...ids('python', '.py .pyw .pyi .gyp'),
  ...ids('css', '.css'),
  ...ids('scss', '.scss'),
  ...ids('less', '.less'),
  ...ids('html', '.html .htm .xhtml .shtml'),
  ...ids('xml', '.xml .xsd .xsl .xslt .svg .csproj .plist'),
  ...ids('yaml', '.yaml .yml'),
  ...ids('shell', '.sh .bash .zsh .ksh'),
  ...ids('powershell', '.ps1 .psm1 .psd1'),
  ...ids('bat', '.bat .cmd'),
  ...ids('sql', '.sql'),
  ...ids('go', '.go'),
  ...ids('rust', '.rs'),
  ...ids('java', '.java'),
  ...ids('kotlin', '.kt .kts'),
  ...ids('swift', '.swift'),
  ...ids('c', '.c .h'),
  ...ids('cpp', '.cpp .cc .cxx .hpp .hh .hxx'),
  ...ids('csharp', '.cs .csx'),
  ...ids('ruby', '.rb .gemspec .rake'),
  ...ids('php', '.php'),
  ...ids('ini', '.ini .cfg .conf .properties .toml .editorconfig .gitconfig'),
  ...ids('dockerfile', '.dockerfile'),
  ...ids(LOG_LANGUAGE, '.log .out .err .trace'),
};

/** Whole names (lower case) that carry their language without an extension. */
const BY_NAME: Record<string, string> = {
  dockerfile: 'dockerfile',
  containerfile: 'dockerfile',
  gemfile: 'ruby',
  rakefile: 'ruby',
  '.gitconfig': 'ini',
  '.editorconfig': 'ini',
  '.bashrc': 'shell',
  '.profile': 'shell',
  '.zshrc': 'shell',
  // The system logs, which have no extension: syslog, messages, kern.log's siblings.
  syslog: LOG_LANGUAGE,
  messages: LOG_LANGUAGE,
  journal: LOG_LANGUAGE,
  dmesg: LOG_LANGUAGE,
};

function ids(id: string, extensions: string): Record<string, string> {
  return Object.fromEntries(extensions.split(' ').map((ext) => [ext, id]));
}

/** Every language id `languageOf` can answer, but the log grammar and plain text: the ones to register. */
export const SOURCE_LANGUAGES: readonly string[] = [...new Set([...Object.values(BY_EXTENSION), ...Object.values(BY_NAME)])].filter(
  (id) => id !== LOG_LANGUAGE,
);

/** A line that starts as log lines start: an ISO 8601, syslog (RFC 3164) or Apache stamp, or epoch seconds/ms, maybe in brackets. */
const STAMPED =
  /^\[?(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2}|\d{10}(\.\d+)?\b|\d{13}\b)|\[\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2}/;
/** A level word as loggers write it, in capitals, whole, near the line's start. */
const LEVELLED = /^.{0,80}?\b(ERROR|WARN|WARNING|INFO|DEBUG|TRACE|FATAL|CRITICAL|NOTICE)\b/;
/** How many of the first non-empty lines are looked at. */
const SNIFF_LINES = 20;

/**
 * True when most of `text`'s first lines read as log lines: stamped at their start
 * or carrying a level word early (the same formats time_seek and the histogram read).
 */
export function looksLikeLog(text: string): boolean {
  const lines: string[] = [];
  for (const line of text.split('\n', 200)) {
    if (line.trim() !== '') lines.push(line);
    if (lines.length === SNIFF_LINES) break;
  }
  if (lines.length === 0) return false;
  const logLike = lines.filter((line) => STAMPED.test(line) || LEVELLED.test(line)).length;
  return logLike * 2 > lines.length;
}

/** The last path segment, lower case; locators (`s3://b/k`) and Windows paths included. */
function baseNameOf(path: string): string {
  const slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return path.slice(slash + 1).toLowerCase();
}

/**
 * The Monaco language id for `path`: by whole name, then by extension (rotated
 * logs such as `app.log.1` or `syslog.2.gz` count as logs); a name that says
 * nothing is a log when its first lines (`sample`) look like one, else plain text.
 */
export function languageOf(path: string | null, sample = ''): string {
  const name = path === null ? '' : baseNameOf(path);
  const rotated = name.replace(/(\.\d+)+(\.gz)?$/, '');
  const byName = BY_NAME[name] ?? BY_NAME[rotated];
  if (byName) return byName;
  const dot = rotated.lastIndexOf('.');
  const byExtension = dot > 0 || (dot === 0 && rotated.length > 1) ? BY_EXTENSION[rotated.slice(dot)] : undefined;
  if (byExtension) return byExtension;
  return looksLikeLog(sample) ? LOG_LANGUAGE : PLAIN_LANGUAGE;
}
