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
import type { EditInput, UpsertEditInput, UpsertInput } from './schemas.ts';

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

/** Items grouped by the file they name (`pathOf`, or `main`), in order of first appearance; with each item's index. */
function byFile<T>(items: T[], pathOf: (t: T) => string | undefined, main: string | undefined, what: string): Map<string, { item: T; i: number }[]> {
  const files = new Map<string, { item: T; i: number }[]>();
  items.forEach((item, i) => {
    const path = pathOf(item) ?? main;
    if (path === undefined) throw new FolioError('invalid_input', `${what}[${i}] names no file: give path, or a path in each of ${what}`, { [what]: i });
    files.set(path, [...(files.get(path) ?? []), { item, i }]);
  });
  return files;
}

/** The one if_match the items of one file agree on (or `given`), or undefined. */
function agreedIfMatch(items: { item: { if_match?: string }; i: number }[], given: string | undefined, path: string): string | undefined {
  let tag = given;
  for (const { item, i } of items) {
    if (item.if_match === undefined) continue;
    if (tag !== undefined && tag !== item.if_match) {
      throw new FolioError('invalid_input', `targets[${i}] gives another if_match for ${path} than the other edits of that file`, { target: i, path });
    }
    tag = item.if_match;
  }
  return tag;
}

/**
 * The files an upsert edits and each one's request: one file, or several when
 * targets name other paths (each other file guarded by the if_match its targets
 * carry; the top-level preconditions guard `path`). Several files are written all
 * or nothing by the caller (engine/write/upsert-group.ts).
 */
export async function upsertPlansOf(input: UpsertInput): Promise<PlannedUpsert[]> {
  const strip = ({ path: _path, if_match: _tag, ...rest }: UpsertEditInput) => rest as UpsertEditInput;
  if (!input.targets) return [await upsertRequestOf(input)];
  const files = byFile(input.targets, (t) => t.path, input.path, 'targets');
  if (files.size === 1 && files.has(input.path)) {
    const items = files.get(input.path)!;
    return [await upsertRequestOf({ ...input, if_match: agreedIfMatch(items, input.if_match, input.path), targets: items.map(({ item }) => strip(item)) })];
  }
  if (input.if_none_match !== undefined) throw new FolioError('invalid_input', 'if_none_match creates one file: targets on other files cannot go with it', {});
  const plans: PlannedUpsert[] = [];
  for (const [path, items] of files) {
    const main = path === input.path;
    const ifMatch = agreedIfMatch(items, main ? input.if_match : undefined, path);
    const own = main ? { ...input, if_match: ifMatch } : { path, if_match: ifMatch, normalize_newlines: input.normalize_newlines, dry_run: input.dry_run };
    if (!main && ifMatch === undefined) {
      throw new FolioError('precondition_required', `targets[${items[0]!.i}] edits ${path}: give that file's if_match (the etag of your read) in its targets`, {
        path,
        target: items[0]!.i,
      });
    }
    plans.push(await upsertRequestOf({ ...own, targets: items.map(({ item }) => strip(item)) }));
  }
  if (!files.has(input.path) && Object.keys(preconditionsOf(input)).length > 0) {
    throw new FolioError('invalid_input', `the top-level preconditions guard ${input.path}, which no target edits`, { path: input.path });
  }
  return plans;
}

/** The files an edit by quoting changes (edits[i].path, else path) and each one's request; if_match guards `path`. */
export function editPlansOf(input: EditInput): PlannedUpsert[] {
  const files = byFile(input.edits, (e) => e.path, input.path, 'edits');
  if (input.if_match !== undefined && (input.path === undefined || !files.has(input.path))) {
    throw new FolioError('invalid_input', 'if_match guards path, which no edit changes', { path: input.path ?? null });
  }
  return [...files].map(([path, items]) => ({
    path,
    request: editRequestOf({ ...input, path, edits: items.map(({ item }) => item), if_match: path === input.path ? input.if_match : undefined }),
  }));
}

/** An edit by quoting (EditInput) of one file as the engine's request: the quotes are its precondition; if_match may add one. */
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
