/**
 * Upserts addressed by markdown section or JSON path, resolved to the byte or line
 * upsert the engine already does, so review proposals, the journal, undo, audit and
 * redaction work on them unchanged. The one function behind `operations.upsert`
 * and the agent door's upsert tool.
 *
 * Guards (what the resolved upsert carries so the write is still checked):
 * - The caller's own preconditions (expected_section_sha256, if_match,
 *   expected_sha256, if_not_modified_since) are checked against the version the
 *   address was resolved on; a mismatch is precondition_failed with the current
 *   version (and the current section hash), and a ready read request.
 * - section replace: expected_range_sha256 of the bytes replaced (the section hash
 *   itself when the heading is included), so the write applies while that section
 *   is unchanged, even if other parts of the file changed meanwhile.
 * - section insert/append, JSON file edits: if_match of the resolved version.
 * - JSON Lines edits: the hashline anchor of the edited line, so appends to the
 *   file (its usual growth) do not block the edit.
 * JSON edits are byte replaces of the smallest range jsonc-parser's modify()
 * changes, with newline normalization off: every other byte stays as it was.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { FolioError } from '../engine/errors.ts';
import type { Version } from '../engine/read/file-facts.ts';
import { jsonEdit, loadJsonFile, locate, type JsonEditOp } from '../engine/address/json-address.ts';
import { findSection, outlineOf, type Heading } from '../engine/address/markdown-outline.ts';
import { readBytes } from '../engine/text/window.ts';
import { lineHash } from '../engine/text/hashline.ts';
import { jsonlLine } from './read-address.ts';
import type { UpsertInput } from './schemas.ts';

type SectionTarget = Extract<UpsertInput['target'], { section: unknown }>['section'];
type JsonTarget = Extract<UpsertInput['target'], { json: unknown }>['json'];

async function fileSha256(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** Check the caller's whole-file preconditions against `version`; precondition_failed with `details` otherwise. */
async function checkWholeFile(path: string, input: UpsertInput, version: Version, extraFailed: string[], details: Record<string, unknown>): Promise<void> {
  const failed = [...extraFailed];
  if (input.if_match !== undefined && input.if_match !== version.etag) failed.push('if_match');
  if (input.if_not_modified_since !== undefined) {
    const t = typeof input.if_not_modified_since === 'number' ? input.if_not_modified_since : Date.parse(input.if_not_modified_since);
    if (!Number.isFinite(t)) throw new FolioError('invalid_input', `if_not_modified_since is not a time: ${String(input.if_not_modified_since)}`, {});
    if (version.mtimeMs > t) failed.push('if_not_modified_since');
  }
  if (input.expected_sha256 !== undefined && input.expected_sha256.toLowerCase() !== (await fileSha256(path))) failed.push('expected_sha256');
  if (failed.length) {
    throw new FolioError('precondition_failed', `the file changed since it was read: ${failed.join(', ')} did not match`, { path, failed, current_version: version, ...details });
  }
}

function requirePrecondition(input: UpsertInput, version: Version, path: string, extra: Record<string, unknown> = {}): void {
  const any = [input.if_match, input.expected_sha256, input.if_not_modified_since, input.anchors, input.expected_section_sha256].some((p) => p !== undefined);
  if (!any) {
    throw new FolioError('precondition_required', 'an upsert needs a precondition: expected_section_sha256 (section targets), if_match, expected_sha256, if_not_modified_since or anchors', {
      path,
      current_version: version,
      ...extra,
    });
  }
}

const sectionView = (h: Heading) => ({ path: h.path, line: h.line, end_line: h.end_line, sha256: h.sha256 });

async function resolveSection(input: UpsertInput, t: SectionTarget): Promise<UpsertInput> {
  const outline = await outlineOf(input.path);
  const h = findSection(outline, t.path);
  const path = outline.path;
  const read = { path, section: h.path };
  requirePrecondition(input, outline.version, path, { section: sectionView(h), read });
  const stale = input.expected_section_sha256 !== undefined && input.expected_section_sha256.toLowerCase() !== h.sha256 ? ['expected_section_sha256'] : [];
  await checkWholeFile(path, input, outline.version, stale, { section: sectionView(h), affected_ranges: [{ start: h.line, end: h.end_line }], read });
  const common = {
    path,
    content: input.content,
    ...(input.anchors ? { anchors: input.anchors } : {}),
    ...(input.normalize_newlines !== undefined ? { normalize_newlines: input.normalize_newlines } : {}),
    ...(input.dry_run ? { dry_run: true } : {}),
  };
  if (input.content === undefined) throw new FolioError('invalid_input', `section ${t.position} needs content`, { position: t.position });
  if (t.position === 'insert') return { ...common, target: { insert: { at: h.heading_end_line + 1 } }, if_match: outline.version.etag };
  if (t.position === 'append') return { ...common, target: { insert: { at: h.end_line + 1 } }, if_match: outline.version.etag };
  if (t.include_heading !== false) {
    return { ...common, target: { replace: { start: h.line, end: h.end_line } }, expected_range_sha256: h.sha256 };
  }
  if (h.heading_end_line >= h.end_line) {
    // No body yet: replacing it is inserting after the heading.
    return { ...common, target: { insert: { at: h.heading_end_line + 1 } }, if_match: outline.version.etag };
  }
  // The body's bytes: the section after its heading line(s).
  const bytes = readBytes(path, h.start_byte, h.end_byte);
  let skip = 0;
  for (let l = h.line; l <= h.heading_end_line; l++) skip = bytes.indexOf(10, skip) + 1;
  const bodySha = createHash('sha256').update(bytes.subarray(skip)).digest('hex');
  return { ...common, target: { replace: { start: h.heading_end_line + 1, end: h.end_line } }, expected_range_sha256: bodySha };
}

async function resolveJson(input: UpsertInput, t: JsonTarget): Promise<UpsertInput> {
  if (input.content !== undefined) throw new FolioError('invalid_input', 'json targets take target.json.value, not content', {});
  if (input.expected_section_sha256 !== undefined) throw new FolioError('invalid_input', 'expected_section_sha256 goes with section targets', {});
  const edit: JsonEditOp = t.op === 'delete' ? { op: 'delete' } : t.op === 'insert' ? { op: 'insert', value: t.value, index: t.index } : { op: 'set', value: t.value };
  if (t.op !== 'delete' && t.value === undefined) throw new FolioError('invalid_input', `json ${t.op} needs a value`, { op: t.op });
  const common = { ...(input.dry_run ? { dry_run: true } : {}), normalize_newlines: false };
  if (t.jsonl_line !== undefined) {
    if (t.jsonl_line < 1) throw new FolioError('invalid_range', `jsonl_line must be >= 1, got ${t.jsonl_line}`, { jsonl_line: t.jsonl_line });
    const src = await jsonlLine(input.path, t.jsonl_line, {});
    const read = { path: src.path, json_path: t.path, jsonl_line: t.jsonl_line };
    requirePrecondition(input, src.version, src.path, { read });
    await checkWholeFile(src.path, input, src.version, [], { read });
    const e = jsonEdit(src.doc, t.path, edit, src.path);
    const [a, b] = locate(src.doc.text, [e.start, e.end]);
    const anchor = `${t.jsonl_line}#${lineHash(Buffer.from(src.doc.text))}`;
    return {
      ...common,
      path: src.path,
      target: { replace: { start: src.baseByte + a!.byte, end: src.baseByte + b!.byte, units: 'bytes' } },
      content: e.replacement,
      anchors: [...(input.anchors ?? []), anchor],
    };
  }
  const doc = await loadJsonFile(input.path);
  const path = doc.v.path;
  const read = { path, json_path: t.path };
  requirePrecondition(input, doc.v.version, path, { read });
  await checkWholeFile(path, input, doc.v.version, [], { read });
  const e = jsonEdit(doc, t.path, edit, path);
  const [a, b] = locate(doc.text, [e.start, e.end]);
  return {
    ...common,
    path,
    target: { replace: { start: doc.v.bomLen + a!.byte, end: doc.v.bomLen + b!.byte, units: 'bytes' } },
    content: e.replacement,
    if_match: doc.v.version.etag,
    ...(input.anchors ? { anchors: input.anchors } : {}),
  };
}

/** `input` with a section or JSON target resolved to a line or byte target and its guards; other inputs unchanged. */
export async function resolveUpsertInput(input: UpsertInput): Promise<UpsertInput> {
  const t = input.target;
  const addressed = 'section' in t || 'json' in t;
  if (!addressed) {
    if (input.expected_section_sha256 !== undefined) throw new FolioError('invalid_input', 'expected_section_sha256 goes with section targets', {});
    return input;
  }
  if (input.expected_range_sha256 !== undefined) {
    throw new FolioError('invalid_input', 'section and json targets compute their range: guard them with expected_section_sha256 or if_match, not expected_range_sha256', {});
  }
  return 'section' in t ? resolveSection(input, t.section) : resolveJson(input, t.json);
}
