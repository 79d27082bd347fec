/**
 * UpsertInput (the wire shape) to the engine's request, in one place: the
 * preconditions are parsed here once (if_not_modified_since becomes ms), plain
 * targets map to the engine's UpsertTarget, and section / JSON targets are
 * resolved (upsert-address.ts) to the line or byte edit they name, with its guards.
 * Every door's upsert (the operation table, the agent session) starts here.
 */
import { FolioError } from '../engine/errors.ts';
import type { UpsertEdit, UpsertRequest, UpsertTarget } from '../engine/write/upsert.ts';
import type { AddressPreconditions, Preconditions } from '../engine/write/preconditions.ts';
import { jsonUpsertOf, sectionUpsertOf, type PlannedUpsert } from './upsert-address.ts';
import type { EditInput, UpsertInput } from './schemas.ts';

export type { PlannedUpsert } from './upsert-address.ts';

type PlainTarget = Exclude<NonNullable<UpsertInput['target']>, { section: unknown } | { json: unknown }>;

function targetOf(t: PlainTarget): UpsertTarget {
  if ('insert' in t) return { kind: 'insert', at: t.insert.at, units: t.insert.units ?? 'lines' };
  if ('replace' in t) return { kind: 'replace', start: t.replace.start, end: t.replace.end, units: t.replace.units ?? 'lines' };
  if ('delete' in t) return { kind: 'delete', start: t.delete.start, end: t.delete.end, units: t.delete.units ?? 'lines' };
  if ('whole_file' in t) return { kind: 'whole' };
  return t.append.units === 'bytes' ? { kind: 'append', units: 'bytes' } : { kind: 'append' };
}

/** One edit's engine form; content is required except for delete. */
function editOf(t: PlainTarget, content: string | undefined, where: string): UpsertEdit {
  const target = targetOf(t);
  if (target.kind === 'delete' && content) throw new FolioError('invalid_input', `${where}: delete takes no content`, {});
  if (target.kind !== 'delete' && content === undefined)
    throw new FolioError('invalid_input', `${where}: ${target.kind} needs content`, { target: target.kind });
  return { target, content: content ?? '' };
}

function timeOf(v: number | string): number {
  const ms = typeof v === 'number' ? v : Date.parse(v);
  if (!Number.isFinite(ms)) throw new FolioError('invalid_input', `if_not_modified_since is not a time: ${String(v)}`, { if_not_modified_since: v });
  return ms;
}

/** The wire preconditions as the program's (the only place if_not_modified_since is parsed). */
export function preconditionsOf(input: UpsertInput): AddressPreconditions {
  const p: AddressPreconditions = {
    ifNoneMatch: input.if_none_match,
    ifMatch: input.if_match,
    expectedSha256: input.expected_sha256,
    ifNotModifiedSince: input.if_not_modified_since === undefined ? undefined : timeOf(input.if_not_modified_since),
    expectedRangeSha256: input.expected_range_sha256,
    anchors: input.anchors,
    expectedSectionSha256: input.expected_section_sha256,
  };
  for (const k of Object.keys(p) as (keyof AddressPreconditions)[]) if (p[k] === undefined) delete p[k];
  return p;
}

function plainRequestOf(input: UpsertInput, pre: AddressPreconditions): UpsertRequest {
  const { expectedSectionSha256, ...preconditions } = pre;
  if (expectedSectionSha256 !== undefined) throw new FolioError('invalid_input', 'expected_section_sha256 goes with section targets', {});
  const edits = input.targets
    ? input.targets.map((t, i) => {
        const { content, ...target } = t;
        return editOf(target as PlainTarget, content, `targets[${i}]`);
      })
    : [editOf(input.target as PlainTarget, input.content, 'target')];
  if (input.targets && input.content !== undefined) throw new FolioError('invalid_input', 'with targets, each target carries its own content', {});
  if (edits.length === 0) throw new FolioError('invalid_input', 'targets is empty', {});
  return {
    target: edits[0]!.target,
    content: edits[0]!.content,
    ...(edits.length > 1 ? { edits } : {}),
    preconditions: preconditions satisfies Preconditions,
    ...(input.normalize_newlines !== undefined ? { normalizeNewlines: input.normalize_newlines } : {}),
    ...(input.dry_run ? { dryRun: true } : {}),
  };
}

/** The file and the engine request `input` names; section and JSON addresses are resolved (and their preconditions checked) on the way. */
export async function upsertRequestOf(input: UpsertInput): Promise<PlannedUpsert> {
  const pre = preconditionsOf(input);
  const t = input.target;
  if ((t === undefined) === (input.targets === undefined)) {
    throw new FolioError('invalid_input', 'give target (one edit) or targets (several), not both or neither', {});
  }
  if (t === undefined || (!('section' in t) && !('json' in t))) return { path: input.path, request: plainRequestOf(input, pre) };
  if (pre.ifNoneMatch !== undefined) throw new FolioError('invalid_input', 'if_none_match creates a file: give its text with target {whole_file: true}', {});
  if (pre.expectedRangeSha256 !== undefined) {
    throw new FolioError(
      'invalid_input',
      'section and json targets compute their range: guard them with expected_section_sha256 or if_match, not expected_range_sha256',
      {},
    );
  }
  return 'section' in t ? sectionUpsertOf(input, t.section, pre) : jsonUpsertOf(input, t.json, pre);
}

/** An edit by quoting (EditInput) as the engine's request: the quotes are its precondition; if_match may add one. */
export function editRequestOf(input: EditInput): UpsertRequest {
  return {
    // Placeholders: the quotes name the edits (UpsertRequest.quoted).
    target: { kind: 'replace', start: 0, end: 0, units: 'bytes' },
    content: '',
    quoted: input.edits.map((e) => ({ oldText: e.old_text, newText: e.new_text, ...(e.replace_all ? { replaceAll: true } : {}) })),
    preconditions: input.if_match !== undefined ? { ifMatch: input.if_match } : {},
    ...(input.dry_run ? { dryRun: true } : {}),
  };
}
