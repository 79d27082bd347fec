/**
 * Tool schemas for function-calling clients (the MCP door's tools/list): a tool's
 * zod input as a compact JSON Schema inside the subset strict consumers accept
 * (OpenAI strict mode, Gemini function declarations, forms such as MCP Inspector's),
 * and its output as the top-level fields of the answer with their JSON types.
 *
 * The schema is only what is advertised: every call is still parsed by the zod
 * input (parseOpInput). What the advertised form cannot say is restored by
 * toolArgumentsOf before that parse: values advertised as JSON text are decoded,
 * and a union of single-key objects flattened into one object takes exactly one key.
 * Agents pay this text on every turn, so it is compact by construction: only the
 * keywords below, no descriptions in outputs, no bounds zod adds by default.
 */
import * as z from 'zod';
import { FolioError } from '../engine/errors.ts';

export type JsonSchema = { [keyword: string]: unknown };

/** An input schema as advertised, and what a call's arguments need before the zod parse. */
export interface ToolInputSchema {
  schema: JsonSchema;
  /** paths (property names; '*' for every array item) whose value the wire carries as JSON text */
  jsonText: string[][];
  /** flattened unions of single-key objects: the object at `path` takes exactly one of `keys` */
  exactlyOne: { path: string[]; keys: string[] }[];
}

/**
 * The keywords an input schema may use: those both OpenAI strict mode and Gemini's
 * function declarations accept (type, description, properties, required, items,
 * enum, minimum/maximum, minItems/maxItems). Anything else (minLength, const,
 * additionalProperties, anyOf, $schema …) is dropped or rewritten; zod enforces it on call.
 */
const INPUT_KEYWORDS = ['type', 'description', 'enum', 'properties', 'required', 'items', 'minimum', 'maximum', 'minItems', 'maxItems'];

/** zod's int() bounds (±Number.MAX_SAFE_INTEGER): true of every JSON number an agent writes, so noise. */
const isSafeIntBound = (v: unknown) => v === Number.MAX_SAFE_INTEGER || v === -Number.MAX_SAFE_INTEGER;

function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as JsonSchema;
}

const membersOf = (s: JsonSchema) => ((s.anyOf ?? s.oneOf) as JsonSchema[] | undefined)?.filter((m) => m.type !== 'null');
const isObject = (s: JsonSchema) => s.type === 'object';
const propsOf = (s: JsonSchema) => (s.properties ?? {}) as Record<string, JsonSchema>;
const withDescription = (s: JsonSchema, description: unknown): JsonSchema => (description === undefined ? s : { ...s, description });

/** A one-sentence suffix for a description (no double period). */
function describedAs(description: unknown, addition: string): string {
  const d = typeof description === 'string' ? description.trim() : '';
  return d ? `${d}${/[.:]$/.test(d) ? '' : '.'} ${addition}` : addition;
}

/** The input node `s` (at `path`) in the advertised subset; notes what toolArgumentsOf must restore. */
function inputNodeOf(s: JsonSchema, path: string[], out: ToolInputSchema): JsonSchema {
  const members = membersOf(s);
  if (members) {
    // nullable X: advertise X (an agent need not send null to leave a field out).
    if (members.length === 1) return inputNodeOf(withDescription(members[0]!, s.description ?? members[0]!.description), path, out);
    if (members.every((m) => typeof m.const === 'string')) {
      return inputNodeOf({ type: 'string', enum: members.map((m) => m.const), description: s.description }, path, out);
    }
    if (members.every(isObject)) return unionObjectOf(s, members, path, out);
    // number | string and the like: the first form is the wire type; zod accepts the others too.
    return inputNodeOf(withDescription(members[0]!, s.description ?? members[0]!.description), path, out);
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  // An untyped value (z.unknown(), a record): strict consumers want a type, so it travels as JSON text.
  if (type === undefined || (type === 'object' && !s.properties)) {
    out.jsonText.push(path);
    return { type: 'string', description: describedAs(s.description, 'As JSON text (a string value in quotes).') };
  }
  const node: JsonSchema = { type };
  for (const k of INPUT_KEYWORDS) {
    if (k === 'type' || s[k] === undefined || ((k === 'minimum' || k === 'maximum') && isSafeIntBound(s[k]))) continue;
    if (k === 'properties') {
      node.properties = Object.fromEntries(Object.entries(propsOf(s)).map(([name, p]) => [name, inputNodeOf(p, [...path, name], out)]));
    } else if (k === 'items') node.items = inputNodeOf(s.items as JsonSchema, [...path, '*'], out);
    else if (k === 'required') {
      if ((s.required as string[]).length) node.required = s.required;
    } else node[k] = s[k];
  }
  if (typeof s.const === 'string') node.enum = [s.const];
  return node;
}

/** The string values a node allows (its const or enum), or undefined when it is not a string choice. */
const choicesOf = (s: JsonSchema) => (typeof s.const === 'string' ? [s.const] : Array.isArray(s.enum) ? (s.enum as unknown[]) : undefined);

/** Two member definitions of one property: string choices (a discriminator) are joined, else the first wins. */
function joinedProperty(first: JsonSchema, next: JsonSchema): JsonSchema {
  const [a, b] = [choicesOf(first), choicesOf(next)];
  if (!a || !b) return first;
  const { const: _const, ...rest } = first;
  return { ...rest, type: 'string', enum: [...new Set([...a, ...b])] };
}

/**
 * A union of objects as ONE object with every member's properties (a discriminator's
 * values joined). When each member is one required key, the object takes exactly
 * one of them: said in its description, enforced by toolArgumentsOf.
 */
function unionObjectOf(s: JsonSchema, members: JsonSchema[], path: string[], out: ToolInputSchema): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const m of members) {
    for (const [name, p] of Object.entries(propsOf(m))) properties[name] = properties[name] ? joinedProperty(properties[name], p) : p;
  }
  const keys = members.map((m) => Object.keys(propsOf(m)));
  const singleKeys = keys.every((k, i) => k.length === 1 && (members[i]!.required as string[] | undefined)?.[0] === k[0]);
  const required = singleKeys ? [] : Object.keys(properties).filter((name) => members.every((m) => ((m.required ?? []) as string[]).includes(name)));
  let description = s.description;
  if (singleKeys) {
    const names = keys.map((k) => k[0]!);
    out.exactlyOne.push({ path, keys: names });
    description = describedAs(description, 'Exactly one of these keys.');
  }
  return inputNodeOf({ type: 'object', properties, required, description }, path, out);
}

/** `input` (a zod object schema) as the tool's advertised inputSchema. */
export function toolInputSchemaOf(input: z.ZodType): ToolInputSchema {
  const out: ToolInputSchema = { schema: {}, jsonText: [], exactlyOne: [] };
  out.schema = inputNodeOf(jsonSchemaOf(input, 'input'), [], out);
  if (out.schema.type !== 'object') throw new Error('a tool input must be an object schema');
  return out;
}

/** The JSON type(s) of an output node: one name, several (nullable, unions), or none (any value). */
function outputTypeOf(s: JsonSchema): JsonSchema {
  const members = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (members) {
    const types = members.map(outputTypeOf);
    if (types.some((t) => t.type === undefined)) return {};
    const names = [...new Set(types.flatMap((t) => t.type as string | string[]))];
    return { type: names.length === 1 ? names[0] : names };
  }
  if (typeof s.const === 'string') return { type: 'string' };
  if (s.const !== undefined) return { type: typeof s.const === 'boolean' ? 'boolean' : 'number' };
  return s.type === undefined ? {} : { type: s.type };
}

/**
 * `output` (a zod object schema) as the tool's outputSchema: each top-level field
 * with its JSON type, no others allowed. Nested shapes and the values of enums stay in
 * docs/API.md: what a client validates is every field's presence and type, at a
 * fraction of the text (the list is sent every turn).
 */
export function toolOutputSchemaOf(output: z.ZodType): JsonSchema {
  const s = jsonSchemaOf(output, 'output');
  const properties = Object.fromEntries(Object.entries(propsOf(s)).map(([name, p]) => [name, outputTypeOf(p)]));
  return { type: 'object', properties, additionalProperties: false };
}

/** The values at `path` inside `value` with a setter for each ('*': every array item). */
function slotsAt(value: unknown, path: string[]): { get: () => unknown; set: (v: unknown) => void; where: string }[] {
  let slots = [{ get: () => value, set: (_v: unknown) => {}, where: '' }];
  for (const key of path) {
    const next: typeof slots = [];
    for (const slot of slots) {
      const parent = slot.get();
      if (key === '*') {
        if (!Array.isArray(parent)) continue;
        parent.forEach((_x, i) => next.push({ get: () => parent[i], set: (v) => (parent[i] = v), where: `${slot.where}[${i}]` }));
      } else if (parent && typeof parent === 'object' && !Array.isArray(parent) && Object.hasOwn(parent, key)) {
        const o = parent as Record<string, unknown>;
        next.push({ get: () => o[key], set: (v) => (o[key] = v), where: slot.where ? `${slot.where}.${key}` : key });
      }
    }
    slots = next;
  }
  return slots;
}

/**
 * A call's arguments as the zod input expects them: JSON text decoded where the
 * schema advertised it (a value that is not a string is taken as it is), and
 * flattened unions holding exactly one key. invalid_input otherwise.
 */
export function toolArgumentsOf(wire: ToolInputSchema, args: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(args);
  for (const { path, keys } of wire.exactlyOne) {
    for (const slot of slotsAt(copy, path)) {
      const o = slot.get();
      const given = o && typeof o === 'object' ? keys.filter((k) => Object.hasOwn(o, k)) : [];
      if (given.length > 1) {
        throw new FolioError('invalid_input', `${slot.where} takes exactly one of ${keys.join(', ')}; got ${given.join(', ')}`, { field: slot.where, given });
      }
    }
  }
  for (const path of wire.jsonText) {
    for (const slot of slotsAt(copy, path)) {
      const text = slot.get();
      if (typeof text !== 'string') continue;
      try {
        slot.set(JSON.parse(text));
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        throw new FolioError('invalid_input', `${slot.where} is JSON text (a string value is quoted: "\\"text\\""): ${reason}`, { field: slot.where });
      }
    }
  }
  return copy;
}
