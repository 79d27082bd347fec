/**
 * Plain values <-> what the review document stores. Automerge 3 turns a JS string
 * into a collaborative text object (one op per character); our strings are never
 * edited character by character, and payloads reach a megabyte, so every string is
 * stored as an `ImmutableString` scalar. `undefined` (which Automerge refuses) is
 * dropped.
 */
import { automerge } from './automerge.ts';

/** A plain JSON-like value in the shape Automerge should store. */
export function toDoc(value: unknown): unknown {
  if (typeof value === 'string') return new (automerge().ImmutableString)(value);
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return value;
  if (Array.isArray(value)) return value.filter((v) => v !== undefined).map(toDoc);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = toDoc(v);
  return out;
}

/** A value read from the document as plain JS (ImmutableStrings back to strings). */
export function fromDoc<T>(value: unknown): T {
  return plain(value) as T;
}

function plain(value: unknown): unknown {
  if (automerge().isImmutableString(value)) return value.val;
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return value;
  if (Array.isArray(value)) return value.map(plain);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) out[k] = plain((value as Record<string, unknown>)[k]);
  return out;
}
