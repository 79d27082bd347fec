/**
 * The audit log: one JSON line per operation an agent or person ran through a
 * door (time, actor, operation, path, range, version before/after, bytes read and
 * written, outcome, Folio's reason and the caller's), in `<root>/.folio/audit.jsonl`, rotated by size
 * (audit.1.jsonl is the previous file, up to audit.5.jsonl).
 */
import { appendFileSync, mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface AuditEntry {
  time: string;
  actor: { kind: 'human' | 'agent'; name: string };
  op: string;
  path?: string;
  range?: { start_line?: number | null; end_line?: number | null; start_byte?: number; end_byte?: number };
  version_before?: string;
  version_after?: string;
  bytes_read?: number;
  bytes_written?: number;
  outcome: 'ok' | 'error';
  code?: string;
  /** Folio's: the proposal or group made, or the error's message */
  reason?: string;
  /** the caller's: the `reason` argument an agent gave for a write (at most 500 characters) */
  caller_reason?: string;
}

const KEEP = 5;
export const AUDIT_MAX_BYTES = 8 * 1024 * 1024;

export function auditDir(root: string): string {
  return join(root, '.folio');
}

function fileOf(root: string, n = 0): string {
  return join(auditDir(root), n === 0 ? 'audit.jsonl' : `audit.${n}.jsonl`);
}

function rotate(root: string): void {
  for (let n = KEEP - 1; n >= 0; n--) {
    try {
      renameSync(fileOf(root, n), fileOf(root, n + 1));
    } catch {
      // that generation does not exist yet
    }
  }
}

/** Append one entry (a single O_APPEND write, so concurrent processes never interleave lines). */
export function appendAudit(root: string, entry: Omit<AuditEntry, 'time'> & { time?: string }, maxBytes = AUDIT_MAX_BYTES): void {
  mkdirSync(auditDir(root), { recursive: true });
  try {
    if (statSync(fileOf(root)).size >= maxBytes) rotate(root);
  } catch {
    // no log yet
  }
  appendFileSync(fileOf(root), JSON.stringify({ time: new Date().toISOString(), ...entry }) + '\n');
}

export interface AuditQuery {
  path?: string;
  /** ISO time or ms: entries at or after it */
  since?: string | number;
}

/** Entries oldest first, across rotated files, filtered. */
export function readAudit(root: string, q: AuditQuery = {}): AuditEntry[] {
  const since = q.since === undefined ? -Infinity : typeof q.since === 'number' ? q.since : Date.parse(q.since);
  const out: AuditEntry[] = [];
  for (let n = KEEP; n >= 0; n--) {
    let text: string;
    try {
      text = readFileSync(fileOf(root, n), 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      if (!line) continue;
      let e: AuditEntry;
      try {
        e = JSON.parse(line) as AuditEntry;
      } catch {
        continue; // a line cut by a crash
      }
      if (q.path && e.path !== q.path) continue;
      if (Date.parse(e.time) < since) continue;
      out.push(e);
    }
  }
  return out;
}
