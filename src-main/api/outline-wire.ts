/** The outline answer on the wire: the engine's camelCase outline as OutlineOutput, in one place (like read-wire.ts). */
import type { Heading, Outline } from '../engine/address/markdown-outline.ts';
import type { OutlineOutput } from './schemas.ts';

/** `o` with `headings` (all of its headings, or those a max_level kept) as the wire answer. */
export function outlineWireOf(o: Outline, headings: Heading[], elapsedMs: number): OutlineOutput {
  return {
    path: o.path,
    version: o.version,
    total_lines: o.totalLines,
    front_matter: o.frontMatter && {
      kind: o.frontMatter.kind,
      section: o.frontMatter.path,
      line: o.frontMatter.line,
      end_line: o.frontMatter.endLine,
      start_byte: o.frontMatter.startByte,
      end_byte: o.frontMatter.endByte,
      sha256: o.frontMatter.sha256,
    },
    headings: headings.map((h) => ({
      level: h.level,
      text: h.text,
      path: h.path,
      line: h.line,
      heading_end_line: h.headingEndLine,
      end_line: h.endLine,
      start_byte: h.startByte,
      end_byte: h.endByte,
      sha256: h.sha256,
    })),
    elapsed_ms: elapsedMs,
  };
}
