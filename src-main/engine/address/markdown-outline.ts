/**
 * The outline of a markdown file: its top-level headings with the line and byte
 * range and SHA-256 of each one's section, parsed by markdown-it (CommonMark with
 * HTML blocks on, and GFM tables), block rules only: inline parsing is not needed
 * to find headings.
 *
 * What counts as a heading: ATX (`# x`) and setext (`x\n===`) headings at the top
 * level of the document (token nesting level 0). Lines that look like headings
 * inside fenced or indented code, HTML blocks, lists and blockquotes are not
 * sections. A heading's text is its source text (inline markup kept as written),
 * trimmed, with the lines of a multi-line setext heading joined by one space.
 *
 * A section is the heading's first line through the line before the next heading
 * of the same or a higher level (a smaller number), or the end of the file. Its
 * SHA-256 is over exactly those bytes (the BOM excluded), so it equals the
 * expected_range_sha256 of an upsert that replaces those lines.
 *
 * Big files are parsed in bounded chunks: a chunk is parsed, every block before
 * the chunk's last top-level block is final (markdown block structure only looks
 * forward into the block being built), and that last block (perhaps an open fence,
 * list, blockquote or HTML block) is carried into the next chunk. Memory is one
 * chunk plus the largest block. test/engine/markdown-outline.test.ts checks that
 * the result equals a whole-file parse on generated documents.
 *
 * Front matter is not markdown: a YAML block (`---` on the first line, closed
 * by `---` or `...`) or a TOML one (`+++` … `+++`) at the very top is skipped,
 * as pandoc's yaml_metadata_block does, instead of becoming a setext heading
 * (`title: …` underlined by the closing `---`). It is the section named
 * FRONT_MATTER ("front matter"), level 0. front-matter.ts has the exact rule.
 *
 * Lines end at '\n' (a '\r' before it is dropped for parsing), as the line index
 * counts them. Outlines are cached per file version (etag).
 *
 * The bytes come through the value's ByteSource (index/identity.ts openSource),
 * awaited chunk by chunk: a remote value is read in one forward pass with
 * read-ahead, as a local file is.
 */
import { createHash, type Hash } from 'node:crypto';
import MarkdownIt from 'markdown-it';
import { FolioError } from '../errors.ts';
import { openSource } from '../index/identity.ts';
import type { ByteSource } from '../source/byte-source.ts';
import type { Version } from '../read/file-facts.ts';
import { onStableVersion, type TextVersion } from '../read/text-version.ts';
import { FRONT_MATTER, FRONT_MATTER_MAX_BYTES, frontMatterOf } from './front-matter.ts';

export { FRONT_MATTER } from './front-matter.ts';

export interface Heading {
  level: number;
  text: string;
  /** heading texts from the outermost enclosing section down to this one, joined with ' > ' */
  path: string;
  /** 1-based first line of the heading */
  line: number;
  /** 1-based last line of the heading itself (the underline of a setext heading) */
  headingEndLine: number;
  /** 1-based last line of the section */
  endLine: number;
  startByte: number;
  /** end of the section, exclusive */
  endByte: number;
  /** SHA-256 (hex) of the section's bytes [startByte, endByte) */
  sha256: string;
}

/** The front matter as a section: level 0, named FRONT_MATTER; its first and last lines are the delimiters. */
export interface FrontMatter extends Heading {
  kind: 'yaml' | 'toml';
}

export interface Outline {
  path: string;
  version: Version;
  totalLines: number;
  headings: Heading[];
  frontMatter: FrontMatter | null;
}

const md = new MarkdownIt({ html: true });
/**
 * Bytes read per chunk; a chunk grows past it only while one block is longer.
 * markdown-it parses dense markdown at roughly 10 MB/s, so a 1 MiB chunk holds
 * the event loop for about 100 ms at most: the scan yields between chunks, and a
 * server stays responsive while it outlines a big file.
 */
const DEFAULT_CHUNK_BYTES = 1 << 20;
const yieldToEventLoop = () => new Promise<void>((resolveYield) => setImmediate(resolveYield));

interface RawHeading {
  level: number;
  text: string;
  /** 0-based, within the parsed text */
  lineIdx: number;
  /** 0-based, exclusive */
  endLineIdx: number;
}

/** Top-level headings of markdown `src`, and the first line of its last top-level block (null if none). */
export function topLevelHeadings(src: string): { headings: RawHeading[]; lastBlockLine: number | null } {
  const tokens: ReturnType<typeof md.parse> = [];
  md.block.parse(src, md, {}, tokens);
  const headings: RawHeading[] = [];
  let lastBlockLine: number | null = null;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.level !== 0 || !t.map) continue;
    lastBlockLine = t.map[0];
    if (t.type === 'heading_open') {
      const text = (tokens[i + 1]?.content ?? '').replace(/[ \t]*\n[ \t]*/g, ' ').trim();
      headings.push({ level: Number(t.tag.slice(1)), text, lineIdx: t.map[0], endLineIdx: t.map[1] });
    }
  }
  return { headings, lastBlockLine };
}

const decoder = new TextDecoder();
const textOf = (b: Uint8Array) => decoder.decode(b).replace(/\r\n/g, '\n');

interface Located extends RawHeading {
  startByte: number;
}

/** The file's front matter, located and hashed, and the newlines in it; or null. */
async function readFrontMatter(src: ByteSource, v: TextVersion): Promise<{ section: FrontMatter; newlines: number } | null> {
  const first = Buffer.from(await src.readAt(v.bomLen, Math.min(3, v.size - v.bomLen)));
  if (first.toString() !== '---' && first.toString() !== '+++') return null;
  // One byte past the cap tells frontMatterOf whether the file goes on.
  const head = await src.readAt(v.bomLen, Math.min(FRONT_MATTER_MAX_BYTES + 1, v.size - v.bomLen));
  const fm = frontMatterOf(head);
  if (!fm) return null;
  const block = head.subarray(0, fm.bytes);
  const section: FrontMatter = {
    kind: fm.kind,
    level: 0,
    text: FRONT_MATTER,
    path: FRONT_MATTER,
    line: 1,
    headingEndLine: 1,
    // The closing delimiter's line: the last newline's line, or the line after it when the file ends there without one.
    endLine: block[block.length - 1] === 10 ? fm.newlines : fm.newlines + 1,
    startByte: v.bomLen,
    endByte: v.bomLen + fm.bytes,
    sha256: createHash('sha256').update(block).digest('hex'),
  };
  return { section, newlines: fm.newlines };
}

/**
 * Scan the file in chunks from `from` (the first byte after the front matter, and
 * its 0-based line): headings located in lines and bytes, and the total line count.
 */
async function scan(
  src: ByteSource,
  v: TextVersion,
  from: { byte: number; lineIdx: number },
  chunkBytes: number,
  onFinal: (bytes: Buffer, startByte: number, headings: Located[]) => void,
): Promise<number> {
  let pending: Buffer = Buffer.alloc(0);
  let pendingByte = from.byte;
  let pendingLine = from.lineIdx;
  let pos = from.byte;
  let newlines = from.lineIdx;
  let step = chunkBytes;
  for (;;) {
    const want = Math.min(step, v.size - pos);
    const got = want > 0 ? await src.readAt(pos, want) : new Uint8Array(0);
    const n = got.length;
    pos += n;
    pending = pending.length ? Buffer.concat([pending, got]) : Buffer.from(got.buffer, got.byteOffset, got.byteLength);
    const atEnd = pos >= v.size || n === 0;
    // Cut after a blank line when there is one (blocks rarely cross those), else after the last line.
    let cut = pending.length;
    if (!atEnd) {
      const blank = pending.lastIndexOf('\n\n');
      cut = blank >= 0 ? blank + 2 : pending.lastIndexOf(10) + 1;
      if (cut <= 0) continue; // no whole line yet: read more
    }
    const { headings, lastBlockLine } = topLevelHeadings(textOf(pending.subarray(0, cut)));
    // Lines before the last top-level block are final; at the end, all of them.
    const finalLines = atEnd ? Infinity : (lastBlockLine ?? 0);
    if (!atEnd && finalLines === 0) {
      step *= 2; // one block fills the chunk: read more (doubling, so a huge block costs O(n) parses) and parse again
      continue;
    }
    step = chunkBytes;
    // Byte offsets of the lines that headings start on, and of the carry line.
    const located: Located[] = [];
    let lineIdx = 0;
    let lineStart = 0;
    let h = 0;
    let finalByte = cut;
    const finals = headings.filter((x) => x.lineIdx < finalLines);
    while (lineStart <= cut) {
      while (h < finals.length && finals[h]!.lineIdx === lineIdx) {
        located.push({ ...finals[h]!, lineIdx: pendingLine + lineIdx, endLineIdx: pendingLine + finals[h]!.endLineIdx, startByte: pendingByte + lineStart });
        h++;
      }
      if (lineIdx === finalLines) {
        finalByte = lineStart;
        break;
      }
      const nl = pending.indexOf(10, lineStart);
      if (nl < 0 || nl >= cut) break;
      newlines++;
      lineIdx++;
      lineStart = nl + 1;
    }
    const finalBytes = atEnd ? pending : pending.subarray(0, finalByte);
    onFinal(finalBytes, pendingByte, located);
    if (atEnd) {
      // Lines as the line index counts them: newlines, plus a last line without one.
      const lastByte = pending.length ? pending[pending.length - 1] : v.size > 0 ? (await src.readAt(v.size - 1, 1))[0] : undefined;
      return v.size <= v.bomLen ? 0 : newlines + (lastByte === 10 ? 0 : 1);
    }
    pending = Buffer.from(pending.subarray(finalByte));
    pendingByte += finalByte;
    pendingLine += lineIdx;
    await yieldToEventLoop();
  }
}

/** Outline of a stable version: headings located, sections closed, and hashed in the same pass. */
async function outlineFrom(v: TextVersion, chunkBytes: number): Promise<{ headings: Heading[]; totalLines: number; frontMatter: FrontMatter | null }> {
  const src = openSource(v.path);
  try {
    return await outlineOfSource(src, v, chunkBytes);
  } finally {
    src.close();
  }
}

async function outlineOfSource(
  src: ByteSource,
  v: TextVersion,
  chunkBytes: number,
): Promise<{ headings: Heading[]; totalLines: number; frontMatter: FrontMatter | null }> {
  const fm = v.size > v.bomLen ? await readFrontMatter(src, v) : null;
  const frontMatter = fm?.section ?? null;
  // The markdown starts after the front matter (at its end, if the file ends with the closing delimiter).
  const from = fm ? { byte: fm.section.endByte, lineIdx: fm.newlines } : { byte: v.bomLen, lineIdx: 0 };
  const out: Heading[] = [];
  const open: { h: Heading; hash: Hash }[] = [];
  const ancestors: Heading[] = [];
  const close = (minLevel: number, endByte: number, endLine: number) => {
    while (open.length && open.at(-1)!.h.level >= minLevel) {
      const { h, hash } = open.pop()!;
      h.endByte = endByte;
      h.endLine = endLine;
      h.sha256 = hash.digest('hex');
    }
  };
  const totalLines = await scan(src, v, from, chunkBytes, (bytes, startByte, located) => {
    let fed = 0;
    const feed = (to: number) => {
      if (to > fed) for (const o of open) o.hash.update(bytes.subarray(fed, to));
      fed = Math.max(fed, to);
    };
    for (const x of located) {
      feed(x.startByte - startByte);
      close(x.level, x.startByte, x.lineIdx);
      while (ancestors.length && ancestors.at(-1)!.level >= x.level) ancestors.pop();
      const h: Heading = {
        level: x.level,
        text: x.text,
        path: [...ancestors.map((a) => a.text), x.text].join(' > '),
        line: x.lineIdx + 1,
        headingEndLine: x.endLineIdx,
        endLine: 0,
        startByte: x.startByte,
        endByte: 0,
        sha256: '',
      };
      ancestors.push(h);
      out.push(h);
      open.push({ h, hash: createHash('sha256') });
    }
    feed(bytes.length);
  });
  close(0, v.size, totalLines);
  return { headings: out, totalLines, frontMatter };
}

const cache = new Map<string, Outline>();

export interface OutlineOptions {
  /** chunk size in bytes (tests use small ones); bypasses the cache */
  chunkBytes?: number;
}

/** The outline of the markdown file at `path`, cached per version. */
export async function outlineOf(path: string, opts: OutlineOptions = {}): Promise<Outline> {
  const { v, result } = await onStableVersion<Outline | Awaited<ReturnType<typeof outlineFrom>>>(path, (v) => {
    const hit = opts.chunkBytes === undefined ? cache.get(`${v.path}\0${v.version.etag}`) : undefined;
    return hit ?? outlineFrom(v, opts.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  });
  if ('version' in result) return result;
  const outline: Outline = { path: v.path, version: v.version, totalLines: result.totalLines, headings: result.headings, frontMatter: result.frontMatter };
  if (opts.chunkBytes === undefined) {
    if (cache.size >= 8) cache.delete(cache.keys().next().value!);
    cache.set(`${v.path}\0${v.version.etag}`, outline);
  }
  return outline;
}

/** Per outline: each heading's enclosing heading, and headings by text, so a path lookup touches only the headings it names. */
interface PathIndex {
  parent: Int32Array;
  byText: Map<string, number[]>;
}
const pathIndexes = new WeakMap<Outline, PathIndex>();

function pathIndexOf(outline: Outline): PathIndex {
  let index = pathIndexes.get(outline);
  if (index) return index;
  const parent = new Int32Array(outline.headings.length);
  const byText = new Map<string, number[]>();
  const stack: number[] = [];
  outline.headings.forEach((h, i) => {
    while (stack.length && outline.headings[stack.at(-1)!]!.level >= h.level) stack.pop();
    parent[i] = stack.at(-1) ?? -1;
    stack.push(i);
    const same = byText.get(h.text);
    if (same) same.push(i);
    else byText.set(h.text, [i]);
  });
  index = { parent, byText };
  pathIndexes.set(outline, index);
  return index;
}

const brief = (h: Heading) => ({ path: h.path, line: h.line, level: h.level });

/**
 * The heading a path names. A path is heading texts joined with ' > ' (spaces
 * around '>' optional), matched exactly after trimming against the end of a
 * heading's trail, so it may start at any level ("Install > Linux" finds
 * "Guide > Install > Linux"). Several matches are `ambiguous`, listing them with
 * a 1-based suffix that picks one ("Install > Linux[2]"); none is `not_found`,
 * listing headings with a similar last text. FRONT_MATTER names the front matter.
 */
export function findSection(outline: Outline, query: string): Heading {
  const { parent, byText } = pathIndexOf(outline);
  // Headings whose trail (texts from the outermost enclosing heading down) ends with the path's segments.
  const candidatesOf = (q: string) => {
    const segs = q.split(/\s+>\s+/).map((x) => x.trim());
    // The front matter first: it comes first in the file (a heading may have the same text).
    const frontMatter: Heading[] = q === FRONT_MATTER && outline.frontMatter ? [outline.frontMatter] : [];
    return frontMatter.concat(
      (byText.get(segs.at(-1)!) ?? [])
        .filter((i) => {
          let at = i;
          for (let k = segs.length - 1; k >= 0; k--) {
            if (at < 0 || outline.headings[at]!.text !== segs[k]) return false;
            at = parent[at]!;
          }
          return true;
        })
        .map((i) => outline.headings[i]!),
    );
  };
  let found = candidatesOf(query.trim());
  let pick: number | null = null;
  const indexed = /^(.*?)\[(\d+)\]\s*$/.exec(query.trim());
  if (!found.length && indexed) {
    found = candidatesOf(indexed[1]!);
    pick = Number(indexed[2]);
  }
  if (found.length === 1 && pick === null) return found[0]!;
  if (found.length && pick !== null && pick >= 1 && pick <= found.length) return found[pick - 1]!;
  if (found.length > 1 && pick === null) {
    throw new FolioError('ambiguous', `section "${query}" matches ${found.length} headings; name one by its full path or add [N]`, {
      path: outline.path,
      section: query,
      candidates: found.slice(0, 50).map((h, i) => ({ ...brief(h), ref: `${query.trim()}[${i + 1}]` })),
    });
  }
  const last = (indexed && pick !== null ? indexed[1]! : query)
    .split(/\s+>\s+/)
    .at(-1)!
    .trim()
    .toLowerCase();
  const similar = outline.headings.filter((h) => h.text.toLowerCase().includes(last) || last.includes(h.text.toLowerCase())).slice(0, 20);
  throw new FolioError('not_found', `no section "${query}" in ${outline.path}${pick !== null && found.length ? ` (it has ${found.length} match(es))` : ''}`, {
    path: outline.path,
    section: query,
    candidates: (similar.length ? similar : outline.headings.slice(0, 20)).map(brief),
    hint: 'the outline operation lists every heading path',
  });
}
