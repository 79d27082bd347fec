/**
 * The CLI checks the input of read, file_info, search, upsert and edit against
 * Specs derived from the zod schemas (src-main/api/input-spec.ts) instead of
 * loading zod. That is only sound if a Spec accepts exactly what zod accepts and
 * gives back the same data: checked here on random input made from each Spec,
 * mostly good, with wrong types, missing and extra keys, out-of-range numbers
 * and strings, for every operation of the table that has a Spec.
 */
import fc from 'fast-check';
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { fitSpec, specOf, type Spec } from '../../src-main/api/input-spec.ts';
import { operations } from '../../src-main/api/operations.ts';
import { runs } from '../../src-main/api/runs.ts';
import { runs as propertyRuns } from '../fixtures/effort.ts';

const junk = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.integer(),
  fc.double(),
  fc.string(),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
  fc.constantFrom(NaN, Infinity, -Infinity, -0, 2 ** 53, -(2 ** 53), 1.5),
);

/** Mostly good values of a Spec, and near misses: lengths and numbers just past a bound, values of other enums. */
function good(spec: Spec): fc.Arbitrary<unknown> {
  const mostly = (ok: fc.Arbitrary<unknown>, near: fc.Arbitrary<unknown>) => fc.oneof({ weight: 10, arbitrary: ok }, { weight: 1, arbitrary: near });
  switch (spec.t) {
    case 'string': {
      const min = spec.min ?? 0;
      const max = Math.min(spec.max ?? 8, 8);
      return mostly(fc.string({ minLength: min, maxLength: Math.max(min, max) }), fc.string({ minLength: Math.max(0, min - 1), maxLength: max + 1 }));
    }
    case 'number': {
      const edges = [spec.gte, spec.gt, spec.lte, spec.lt].filter((x) => x !== undefined).flatMap((x) => [x - 1, x - 0.5, x, x + 0.5, x + 1]);
      return mostly(
        fc.oneof(fc.integer({ min: -3, max: 30 }), fc.maxSafeInteger()),
        fc.oneof(fc.double(), fc.constantFrom(2 ** 53, 2 ** 53 - 1, -(2 ** 53), 1e21, ...edges)),
      );
    }
    case 'boolean':
      return fc.boolean();
    case 'unknown':
      return fc.anything();
    case 'enum':
      return mostly(fc.constantFrom(...spec.values), fc.constantFrom('other', 1, true, ''));
    case 'optional':
      return fc.option(arb(spec.inner), { nil: undefined, freq: 2 });
    case 'nullable':
      return fc.option(arb(spec.inner), { nil: null, freq: 2 });
    case 'array': {
      const min = spec.min ?? 0;
      const max = Math.min(spec.max ?? 3, 3);
      return mostly(
        fc.array(arb(spec.el), { minLength: min, maxLength: Math.max(min, max) }),
        fc.array(arb(spec.el), { minLength: Math.max(0, min - 1), maxLength: max + 1 }),
      );
    }
    case 'object': {
      const model = Object.fromEntries(Object.entries(spec.shape).map(([k, s]) => [k, arb(s)]));
      const required = Object.entries(spec.shape)
        .filter(([, s]) => s.t !== 'optional')
        .map(([k]) => k);
      return fc
        .tuple(
          mostly(fc.record(model, { requiredKeys: required }), fc.record(model, { requiredKeys: [] })),
          fc.option(fc.tuple(fc.constantFrom('extra', 'path', 'PATH', '__proto__x'), fc.anything()), { nil: undefined }),
        )
        .map(([o, extra]) => (extra && !Object.hasOwn(o as object, extra[0]) ? { ...(o as object), [extra[0]]: extra[1] } : o));
    }
    case 'union':
      return fc.oneof(...spec.options.map(arb));
  }
}

function arb(spec: Spec): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 40, arbitrary: good(spec) }, { weight: 1, arbitrary: junk });
}

const withSpecs = Object.entries(operations).flatMap(([name, op]) => {
  const spec = specOf(op.input);
  return spec ? [{ name, spec, schema: op.input as z.ZodType }] : [];
});

describe('input Specs derived from the zod schemas', () => {
  it('exist for every operation the CLI runs without zod', () => {
    for (const name of Object.keys(runs)) expect(withSpecs.map((s) => s.name)).toContain(name);
  });

  for (const { name, spec, schema } of withSpecs) {
    it(`${name}: accept what zod accepts, refuse what it refuses, and give back the same data`, () => {
      let accepted = 0;
      let refused = 0;
      fc.assert(
        fc.property(arb(spec), (input) => {
          const byZod = schema.safeParse(input);
          const bySpec = fitSpec(spec, input);
          expect(bySpec !== undefined).toBe(byZod.success);
          if (byZod.success) {
            accepted++;
            expect(bySpec!.data).toStrictEqual(byZod.data);
          } else refused++;
        }),
        propertyRuns(3000),
      );
      // Both sides of the line were tried.
      expect(accepted).toBeGreaterThan(100);
      expect(refused).toBeGreaterThan(30);
    });
  }

  it('are not made of schemas that say more than a Spec can (the input then goes to zod)', () => {
    for (const schema of [
      z.string().email(),
      z.string().regex(/a/),
      z.number().multipleOf(2),
      z.number().int().default(3),
      z.string().transform((s) => s.length),
      z.object({ a: z.string() }).refine((o) => o.a !== 'x'),
      z.object({ a: z.string() }).strict(),
      z.object({ a: z.string() }).passthrough(),
      z.object({ a: z.string().trim() }),
      z.array(z.string()).length(2),
      z.discriminatedUnion('k', [z.object({ k: z.literal('a') })]),
      z.coerce.number(),
      z.string().optional().default('x'),
    ])
      expect(specOf(schema)).toBeNull();
  });
});
