/** UpsertInput (the wire shape) to the engine's request. */
import { FolioError } from '../engine/errors.ts';
import type { UpsertRequest, UpsertTarget } from '../engine/write/upsert.ts';
import type { UpsertInput } from './schemas.ts';

function targetOf(t: UpsertInput['target']): UpsertTarget {
  if ('insert' in t) return { kind: 'insert', at: t.insert.at, units: t.insert.units ?? 'lines' };
  if ('replace' in t) return { kind: 'replace', start: t.replace.start, end: t.replace.end, units: t.replace.units ?? 'lines' };
  if ('delete' in t) return { kind: 'delete', start: t.delete.start, end: t.delete.end, units: t.delete.units ?? 'lines' };
  if ('append' in t) return { kind: 'append' };
  // Section and JSON targets are resolved to these first (upsert-address.ts).
  throw new FolioError('invalid_input', 'section and json targets must be resolved before the engine upsert', { target: Object.keys(t) });
}

function timeOf(v: number | string): number {
  const ms = typeof v === 'number' ? v : Date.parse(v);
  if (!Number.isFinite(ms)) throw new FolioError('invalid_input', `if_not_modified_since is not a time: ${String(v)}`, { if_not_modified_since: v });
  return ms;
}

export function toUpsertRequest(input: UpsertInput): UpsertRequest {
  const target = targetOf(input.target);
  if (target.kind !== 'delete' && input.content === undefined) {
    throw new FolioError('invalid_input', `${target.kind} needs content`, { target: target.kind });
  }
  return {
    target,
    content: input.content ?? '',
    preconditions: {
      ifMatch: input.if_match,
      expectedSha256: input.expected_sha256,
      ifNotModifiedSince: input.if_not_modified_since === undefined ? undefined : timeOf(input.if_not_modified_since),
      expectedRangeSha256: input.expected_range_sha256,
      anchors: input.anchors,
    },
    normalizeNewlines: input.normalize_newlines,
    dryRun: input.dry_run,
  };
}
