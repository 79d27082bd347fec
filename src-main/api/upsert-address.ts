/**
 * Upserts addressed by markdown section or JSON path, resolved to the byte or line
 * upsert the engine already does, so review proposals, the journal, undo, audit and
 * redaction work on them unchanged. Called by upsert-request.ts (the one
 * conversion of the wire input), which has parsed the preconditions already; the
 * answer is the engine's request.
 *
 * Guards (what the resolved upsert carries so the write is still checked):
 * - The caller's own preconditions (expected_section_sha256, if_match,
 *   expected_sha256, if_not_modified_since) are checked against the version the
 *   address was resolved on (checkResolvedVersion, engine/write/preconditions.ts);
 *   a mismatch is precondition_failed with the current version (and the current
 *   section hash), and a ready read request.
 * - section replace: expected_range_sha256 of the bytes replaced (the section hash
 *   itself when the heading is included), so the write applies while that section
 *   is unchanged, even if other parts of the file changed meanwhile.
 * - section insert/append, JSON file edits: if_match of the resolved version.
 * - JSON Lines edits: the hashline anchor of the edited line, so appends to the
 *   file (its usual growth) do not block the edit.
 * JSON edits are byte replaces of the smallest range jsonc-parser's modify()
 * changes, with newline normalization off: every other byte stays as it was. Of a
 * jsonb value (pg://…), the range PostgreSQL's jsonb_set / jsonb_insert / #-
 * changes in its printed text (backends/postgres/postgres-jsonb.ts).
 */
import { createHash } from 'node:crypto';
import { FolioError } from '../engine/errors.ts';
// Loaded by the upsert that addresses a section or a JSON path, not by a line upsert (start-up of `folio upsert`).
import type { JsonEditOp } from '../engine/address/json-address.ts';
import type { Heading } from '../engine/address/markdown-outline.ts';
import { readBytes } from '../engine/text/window.ts';
import { textVersionOf } from '../engine/read/text-version.ts';
import { lineHash } from '../engine/text/hashline.ts';
import { checkResolvedVersion, requirePrecondition, type AddressPreconditions } from '../engine/write/preconditions.ts';
import type { UpsertRequest, UpsertTarget } from '../engine/write/upsert.ts';
import { jsonlLine, LineTooLarge } from './read-address.ts';
import type { UpsertInput } from './schemas.ts';

type SectionTarget = Extract<UpsertInput['target'], { section: unknown }>['section'];
type JsonTarget = Extract<UpsertInput['target'], { json: unknown }>['json'];

/** An upsert as the program runs it: the file and the engine's request. */
export interface PlannedUpsert {
  path: string;
  request: UpsertRequest;
}

const sectionView = (h: Heading) => ({ path: h.path, line: h.line, end_line: h.endLine, sha256: h.sha256 });
const lines = (start: number, end: number): UpsertTarget => ({ kind: 'replace', start, end, units: 'lines' });
const insertAt = (at: number): UpsertTarget => ({ kind: 'insert', at, units: 'lines' });
const bytes = (start: number, end: number): UpsertTarget => ({ kind: 'replace', start, end, units: 'bytes' });

/** The caller's anchors travel with the resolved edit: they still guard the lines they name. */
const anchorsOf = (pre: AddressPreconditions) => (pre.anchors ? { anchors: pre.anchors } : {});

export async function sectionUpsertOf(input: UpsertInput, t: SectionTarget, pre: AddressPreconditions): Promise<PlannedUpsert> {
  const { findSection, outlineOf } = await import('../engine/address/markdown-outline.ts');
  const outline = await outlineOf(input.path);
  const h = findSection(outline, t.path);
  const path = outline.path;
  const read = { path, section: h.path };
  requirePrecondition(pre, { path, version: outline.version }, { section: sectionView(h), read });
  await checkResolvedVersion(
    pre,
    { path, version: outline.version, sectionSha256: h.sha256 },
    {
      section: sectionView(h),
      affected_ranges: [{ start: h.line, end: h.endLine }],
      read,
    },
  );
  if (input.content === undefined) throw new FolioError('invalid_input', `section ${t.position} needs content`, { position: t.position });
  const request = (target: UpsertTarget, guard: { ifMatch: string } | { expectedRangeSha256: string }): PlannedUpsert => ({
    path,
    request: {
      target,
      content: input.content!,
      preconditions: { ...guard, ...anchorsOf(pre) },
      ...(input.normalize_newlines !== undefined ? { normalizeNewlines: input.normalize_newlines } : {}),
      ...(input.dry_run ? { dryRun: true } : {}),
    },
  });
  const resolvedVersion = { ifMatch: outline.version.etag };
  // The front matter's body lies between its delimiter lines; a heading's runs to the section's end.
  const isFrontMatter = h.level === 0;
  const bodyEndLine = isFrontMatter ? h.endLine - 1 : h.endLine;
  if (t.position === 'insert') return request(insertAt(h.headingEndLine + 1), resolvedVersion);
  if (t.position === 'append') return request(insertAt(bodyEndLine + 1), resolvedVersion);
  if (t.include_heading !== false) return request(lines(h.line, h.endLine), { expectedRangeSha256: h.sha256 });
  // No body yet: replacing it is inserting after the heading.
  if (h.headingEndLine >= bodyEndLine) return request(insertAt(h.headingEndLine + 1), resolvedVersion);
  // The body's bytes: the section after its heading line(s) (before the front matter's closing line).
  const section = readBytes(path, h.startByte, h.endByte);
  let skip = 0;
  for (let l = h.line; l <= h.headingEndLine; l++) skip = section.indexOf(10, skip) + 1;
  const bodyEnd = isFrontMatter ? section.lastIndexOf(10, section.length - 2) + 1 : section.length;
  const bodySha = createHash('sha256').update(section.subarray(skip, bodyEnd)).digest('hex');
  return request(lines(h.headingEndLine + 1, bodyEndLine), { expectedRangeSha256: bodySha });
}

/**
 * A JSON edit of a file (or of its JSON Lines line `t.jsonl_line`) past the
 * in-memory cap, streamed (engine/address/json-large.ts), for the version the
 * preconditions are checked against here.
 */
async function largeJsonUpsertOf(
  path: string,
  t: JsonTarget,
  edit: JsonEditOp,
  pre: AddressPreconditions,
  common: Pick<UpsertRequest, 'normalizeNewlines' | 'dryRun'>,
): Promise<PlannedUpsert> {
  const [{ JSON_LIMITS }, { largeJsonEdit, withLargeJson }] = await Promise.all([
    import('../engine/address/json-address.ts'),
    import('../engine/address/json-large.ts'),
  ]);
  const tv = await textVersionOf(path);
  const read = { path: tv.path, json_path: t.path, ...(t.jsonl_line !== undefined ? { jsonl_line: t.jsonl_line } : {}) };
  requirePrecondition(pre, { path: tv.path, version: tv.version }, { read });
  await checkResolvedVersion(pre, { path: tv.path, version: tv.version }, { read });
  const { result: e } = await withLargeJson(tv.path, (doc) => largeJsonEdit(doc, t.path, edit, JSON_LIMITS.maxMatches), t.jsonl_line);
  return {
    path: tv.path,
    request: { ...common, target: bytes(e.start, e.end), content: e.replacement, preconditions: { ifMatch: tv.version.etag, ...anchorsOf(pre) } },
  };
}

export async function jsonUpsertOf(input: UpsertInput, t: JsonTarget, pre: AddressPreconditions): Promise<PlannedUpsert> {
  const { jsonEdit, loadJsonFile, locate } = await import('../engine/address/json-address.ts');
  if (input.content !== undefined) throw new FolioError('invalid_input', 'json targets take target.json.value, not content', {});
  if (pre.expectedSectionSha256 !== undefined) throw new FolioError('invalid_input', 'expected_section_sha256 goes with section targets', {});
  const edit: JsonEditOp =
    t.op === 'delete' ? { op: 'delete' } : t.op === 'insert' ? { op: 'insert', value: t.value, index: t.index } : { op: 'set', value: t.value };
  if (t.op !== 'delete' && t.value === undefined) throw new FolioError('invalid_input', `json ${t.op} needs a value`, { op: t.op });
  // Only the bytes of the value change: the file's newlines stay as they are.
  const common = { normalizeNewlines: false, ...(input.dry_run ? { dryRun: true } : {}) };
  if (t.jsonl_line !== undefined) {
    if (t.jsonl_line < 1) throw new FolioError('invalid_range', `jsonl_line must be >= 1, got ${t.jsonl_line}`, { jsonl_line: t.jsonl_line });
    let src: Awaited<ReturnType<typeof jsonlLine>>;
    try {
      src = await jsonlLine(input.path, t.jsonl_line, {});
    } catch (err) {
      if (!(err instanceof LineTooLarge)) throw err;
      // A line past the cap: streamed, under the version checked here.
      return largeJsonUpsertOf(input.path, t, edit, pre, common);
    }
    const read = { path: src.path, json_path: t.path, jsonl_line: t.jsonl_line };
    requirePrecondition(pre, { path: src.path, version: src.version }, { read });
    await checkResolvedVersion(pre, { path: src.path, version: src.version }, { read });
    const e = jsonEdit(src.doc, t.path, edit, src.path);
    const [a, b] = locate(src.doc.text, [e.start, e.end]);
    const anchor = `${t.jsonl_line}#${lineHash(Buffer.from(src.doc.text))}`;
    return {
      path: src.path,
      request: {
        ...common,
        target: bytes(src.baseByte + a!.byte, src.baseByte + b!.byte),
        content: e.replacement,
        preconditions: { anchors: [...(pre.anchors ?? []), anchor] },
      },
    };
  }
  if (input.path.startsWith('pg://')) {
    // A jsonb value: PostgreSQL computes the edit (jsonb_set / jsonb_insert / #-), written as a splice of its text.
    const { jsonbSpliceOf } = await import('../backends/postgres/postgres-jsonb.ts');
    const e = await jsonbSpliceOf(input.path, t.path, edit);
    if (e) {
      const read = { path: e.locator, json_path: t.path };
      requirePrecondition(pre, { path: e.locator, version: e.version }, { read });
      await checkResolvedVersion(pre, { path: e.locator, version: e.version }, { read });
      return {
        path: e.locator,
        request: {
          ...common,
          target: bytes(e.startByte, e.endByte),
          content: e.replacement,
          preconditions: { ifMatch: e.version.etag, ...anchorsOf(pre) },
        },
      };
    }
  }
  const { isLargeJson } = await import('../engine/address/json-large.ts');
  // Past the in-memory cap: the edit is found by streaming (the same edit modify() would make).
  if (isLargeJson(await textVersionOf(input.path))) return largeJsonUpsertOf(input.path, t, edit, pre, common);
  const doc = await loadJsonFile(input.path);
  const path = doc.v.path;
  const read = { path, json_path: t.path };
  requirePrecondition(pre, { path, version: doc.v.version }, { read });
  await checkResolvedVersion(pre, { path, version: doc.v.version }, { read });
  const e = jsonEdit(doc, t.path, edit, path);
  const [a, b] = locate(doc.text, [e.start, e.end]);
  return {
    path,
    request: {
      ...common,
      target: bytes(doc.v.bomLen + a!.byte, doc.v.bomLen + b!.byte),
      content: e.replacement,
      preconditions: { ifMatch: doc.v.version.etag, ...anchorsOf(pre) },
    },
  };
}
