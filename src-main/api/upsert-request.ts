/**
 * UpsertInput (the wire shape) to the engine's request, in one place: the
 * preconditions are parsed here once (if_not_modified_since becomes ms), plain
 * targets map to the engine's UpsertTarget, and section / JSON targets are
 * resolved (upsert-address.ts) to the line or byte edit they name, with its guards.
 * Every door's upsert (the operation table, the agent session) starts here.
 */
import { FolioError } from '../engine/errors.ts';
import type { UpsertRequest, UpsertTarget } from '../engine/write/upsert.ts';
import type { AddressPreconditions, Preconditions } from '../engine/write/preconditions.ts';
import { jsonUpsertOf, sectionUpsertOf, type PlannedUpsert } from './upsert-address.ts';
import type { UpsertInput } from './schemas.ts';

export type { PlannedUpsert } from './upsert-address.ts';

type PlainTarget = Exclude<UpsertInput['target'], { section: unknown } | { json: unknown }>;

function targetOf(t: PlainTarget): UpsertTarget {
  if ('insert' in t) return { kind: 'insert', at: t.insert.at, units: t.insert.units ?? 'lines' };
  if ('replace' in t) return { kind: 'replace', start: t.replace.start, end: t.replace.end, units: t.replace.units ?? 'lines' };
  if ('delete' in t) return { kind: 'delete', start: t.delete.start, end: t.delete.end, units: t.delete.units ?? 'lines' };
  return { kind: 'append' };
}

function timeOf(v: number | string): number {
  const ms = typeof v === 'number' ? v : Date.parse(v);
  if (!Number.isFinite(ms)) throw new FolioError('invalid_input', `if_not_modified_since is not a time: ${String(v)}`, { if_not_modified_since: v });
  return ms;
}

/** The wire preconditions as the program's (the only place if_not_modified_since is parsed). */
export function preconditionsOf(input: UpsertInput): AddressPreconditions {
  const p: AddressPreconditions = {
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

function plainRequestOf(input: UpsertInput, t: PlainTarget, pre: AddressPreconditions): UpsertRequest {
  const { expectedSectionSha256, ...preconditions } = pre;
  if (expectedSectionSha256 !== undefined) throw new FolioError('invalid_input', 'expected_section_sha256 goes with section targets', {});
  const target = targetOf(t);
  if (target.kind !== 'delete' && input.content === undefined) {
    throw new FolioError('invalid_input', `${target.kind} needs content`, { target: target.kind });
  }
  return {
    target,
    content: input.content ?? '',
    preconditions: preconditions satisfies Preconditions,
    ...(input.normalize_newlines !== undefined ? { normalizeNewlines: input.normalize_newlines } : {}),
    ...(input.dry_run ? { dryRun: true } : {}),
  };
}

/** The file and the engine request `input` names; section and JSON addresses are resolved (and their preconditions checked) on the way. */
export async function upsertRequestOf(input: UpsertInput): Promise<PlannedUpsert> {
  const pre = preconditionsOf(input);
  const t = input.target;
  if (!('section' in t) && !('json' in t)) return { path: input.path, request: plainRequestOf(input, t, pre) };
  if (pre.expectedRangeSha256 !== undefined) {
    throw new FolioError(
      'invalid_input',
      'section and json targets compute their range: guard them with expected_section_sha256 or if_match, not expected_range_sha256',
      {},
    );
  }
  return 'section' in t ? sectionUpsertOf(input, t.section, pre) : jsonUpsertOf(input, t.json, pre);
}
