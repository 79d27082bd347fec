/**
 * An operation's input schema as plain data (a Spec), and a check of input against
 * it that needs no zod. The CLI pays for loading zod and building every schema of
 * the table on each call (~35 ms of CPU, docs/BENCHMARKS.md "Whole process"); its
 * build (scripts/build-cli.mjs) derives the Specs of the commands it runs most from
 * the schemas in operations.ts, and quick-handle.ts checks input against them.
 *
 * The Spec is derived, never written by hand, and only from what it can say
 * exactly: strings, numbers (whole, bounds), booleans, enums, literals, arrays,
 * objects (unknown keys dropped, as zod does), optional, nullable, unions (first
 * option that fits, as zod's). A schema using anything else (refinements,
 * transforms, defaults, string formats, ...) has no Spec, and its input goes to
 * zod. Input the check refuses goes to zod too, so every error message is zod's.
 * test/api/input-spec.test.ts checks that zod and the Spec agree on random good
 * and bad input of every operation, and that the data they give back is equal.
 */

export type Spec =
  | { t: 'string'; min?: number; max?: number }
  | { t: 'number'; int?: true; gte?: number; gt?: number; lte?: number; lt?: number }
  | { t: 'boolean' }
  | { t: 'unknown' }
  | { t: 'enum'; values: unknown[] }
  | { t: 'optional'; inner: Spec }
  | { t: 'nullable'; inner: Spec }
  | { t: 'array'; el: Spec; min?: number; max?: number }
  | { t: 'object'; shape: Record<string, Spec> }
  | { t: 'union'; options: Spec[] };

/** What specOf reads of a zod (v4) schema: its definition. */
interface ZodLike {
  _zod: { def: Record<string, unknown> & { type: string; checks?: { _zod: { def: Record<string, unknown> } }[] } };
}

class Unsupported extends Error {}

/** The Spec of a zod schema, or null when the schema uses something a Spec cannot say exactly. */
export function specOf(schema: unknown): Spec | null {
  try {
    return specOfDef(schema as ZodLike);
  } catch (err) {
    if (err instanceof Unsupported) return null;
    throw err;
  }
}

function specOfDef(schema: ZodLike): Spec {
  const def = schema?._zod?.def;
  if (!def) throw new Unsupported('not a zod schema');
  const checks = (def.checks ?? []).map((c) => c._zod.def);
  const known = new Set(['type', 'checks']);
  const only = (...keys: string[]) => {
    for (const k of Object.keys(def)) if (!known.has(k) && !keys.includes(k) && def[k] !== undefined) throw new Unsupported(`${def.type}.${k}`);
  };
  switch (def.type) {
    case 'string':
    case 'array': {
      only(...(def.type === 'array' ? ['element'] : []));
      const s: { min?: number; max?: number } = {};
      for (const c of checks) {
        if (c.check === 'min_length') s.min = Math.max(s.min ?? 0, c.minimum as number);
        else if (c.check === 'max_length') s.max = Math.min(s.max ?? Infinity, c.maximum as number);
        else throw new Unsupported(`check ${String(c.check)}`);
        if (Object.keys(c).some((k) => !['check', 'minimum', 'maximum', 'when'].includes(k))) throw new Unsupported('check options');
      }
      return def.type === 'string' ? { t: 'string', ...s } : { t: 'array', el: specOfDef(def.element as ZodLike), ...s };
    }
    case 'number': {
      only();
      const s: Extract<Spec, { t: 'number' }> = { t: 'number' };
      for (const c of checks) {
        if (c.check === 'number_format' && c.format === 'safeint' && !c.abort) s.int = true;
        else if (c.check === 'greater_than' && typeof c.value === 'number') {
          if (c.inclusive) s.gte = Math.max(s.gte ?? -Infinity, c.value);
          else s.gt = Math.max(s.gt ?? -Infinity, c.value);
        } else if (c.check === 'less_than' && typeof c.value === 'number') {
          if (c.inclusive) s.lte = Math.min(s.lte ?? Infinity, c.value);
          else s.lt = Math.min(s.lt ?? Infinity, c.value);
        } else throw new Unsupported(`check ${String(c.check)}`);
      }
      return s;
    }
    case 'boolean':
    case 'unknown':
      only();
      if (checks.length) throw new Unsupported('checks');
      return { t: def.type };
    case 'enum':
      only('entries');
      if (checks.length) throw new Unsupported('checks');
      return { t: 'enum', values: Object.values(def.entries as Record<string, unknown>) };
    case 'literal':
      only('values');
      if (checks.length) throw new Unsupported('checks');
      return { t: 'enum', values: [...(def.values as unknown[])] };
    case 'optional':
    case 'nullable':
      only('innerType');
      if (checks.length) throw new Unsupported('checks');
      return { t: def.type, inner: specOfDef(def.innerType as ZodLike) };
    case 'object': {
      only('shape');
      if (checks.length) throw new Unsupported('checks');
      const shape: Record<string, Spec> = {};
      for (const [key, value] of Object.entries(def.shape as Record<string, ZodLike>)) shape[key] = specOfDef(value);
      return { t: 'object', shape };
    }
    case 'union':
      only('options');
      if (checks.length) throw new Unsupported('checks');
      return { t: 'union', options: (def.options as ZodLike[]).map(specOfDef) };
    default:
      throw new Unsupported(def.type);
  }
}

const NO = Symbol('does not fit');

/** `input` as zod would give it back (unknown keys dropped), or undefined when it does not fit the Spec. */
export function fitSpec(spec: Spec, input: unknown): { data: unknown } | undefined {
  const data = fit(spec, input);
  return data === NO ? undefined : { data };
}

function fit(spec: Spec, v: unknown): unknown {
  switch (spec.t) {
    case 'string':
      return typeof v === 'string' && (spec.min === undefined || v.length >= spec.min) && (spec.max === undefined || v.length <= spec.max) ? v : NO;
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v)) return NO;
      if (spec.int && !Number.isSafeInteger(v)) return NO;
      if ((spec.gte !== undefined && !(v >= spec.gte)) || (spec.gt !== undefined && !(v > spec.gt))) return NO;
      if ((spec.lte !== undefined && !(v <= spec.lte)) || (spec.lt !== undefined && !(v < spec.lt))) return NO;
      return v;
    case 'boolean':
      return typeof v === 'boolean' ? v : NO;
    case 'unknown':
      return v;
    case 'enum':
      return spec.values.includes(v) ? v : NO;
    case 'optional':
      return v === undefined ? v : fit(spec.inner, v);
    case 'nullable':
      return v === null ? v : fit(spec.inner, v);
    case 'array': {
      if (!Array.isArray(v) || (spec.min !== undefined && v.length < spec.min) || (spec.max !== undefined && v.length > spec.max)) return NO;
      const out: unknown[] = [];
      for (const el of v) {
        const x = fit(spec.el, el);
        if (x === NO) return NO;
        out.push(x);
      }
      return out;
    }
    case 'object': {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return NO;
      const src = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [key, s] of Object.entries(spec.shape)) {
        const has = Object.hasOwn(src, key);
        if (!has && s.t === 'optional') continue;
        const x = fit(s, has ? src[key] : undefined);
        if (x === NO) return NO;
        out[key] = x;
      }
      return out;
    }
    case 'union':
      for (const option of spec.options) {
        const x = fit(option, v);
        if (x !== NO) return x;
      }
      return NO;
  }
}
