/**
 * The tools/list schemas are strict: every tool (those added later too) has an
 * input schema and outputSchema that ajv compiles in strict mode, and an input
 * schema inside OpenAI strict mode's and Gemini's function-declaration subsets
 * (test/fixtures/function-schema-rules.ts). Calls in the advertised form (JSON
 * text, one key of a flattened union) reach the api as its zod input expects.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UpsertInput } from '../../src-main/api/schemas.ts';
import { toolArgumentsOf, toolInputSchemaOf } from '../../src-main/api/tool-schema.ts';
import { forgetStores } from '../../src-main/review/index.ts';
import { geminiViolations, openAiStrictViolations } from '../fixtures/function-schema-rules.ts';
import { connectStdio, type McpSession } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

/**
 * ajv 8, the one the MCP SDK validates tool schemas with (the hoisted `ajv` is
 * eslint's v6): resolved from the SDK's own ajv provider, so it follows the SDK.
 */
interface AjvLike {
  compile(schema: object): unknown;
}
const sdkRequire = createRequire(createRequire(import.meta.url).resolve('@modelcontextprotocol/sdk/validation/ajv'));
const Ajv = sdkRequire('ajv').default as new (options: object) => AjvLike;

const tmp = tempDir('folio-mcp-tool-schemas-');
const cacheDir = tmp.path('cache');
const ws = tmp.path('ws');
let review: McpSession;
let auto: McpSession;
let tools: Tool[];

beforeAll(async () => {
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'notes.txt'), 'one\ntwo\n');
  writeFileSync(join(ws, 'data.json'), '{\n  "name": "demo",\n  "tags": ["a"]\n}\n');
  [review, auto] = await Promise.all([
    connectStdio(ws, { cacheDir, clientName: 'schema-agent' }),
    connectStdio(ws, { cacheDir, clientName: 'schema-auto-agent', flags: ['--review', 'auto'] }),
  ]);
  tools = (await review.client.listTools()).tools;
});
afterAll(async () => {
  await Promise.all([review?.close(), auto?.close()]);
  forgetStores();
  tmp.cleanup();
});

const toolNamed = (name: string) => tools.find((t) => t.name === name)!;

describe('every tool of tools/list has strict schemas', () => {
  it('ajv (draft-07, strict mode) compiles each input schema and outputSchema', () => {
    // strict: unknown keywords, keywords without their type, required names that are not properties all throw.
    const inputs = new Ajv({ strict: true, allErrors: true });
    // Outputs may say "integer or null" with a type array (they are not function declarations).
    const outputs = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
    expect(tools.length).toBeGreaterThanOrEqual(6);
    for (const t of tools) {
      expect(() => inputs.compile(t.inputSchema), `${t.name} inputSchema`).not.toThrow();
      expect(t.outputSchema, `${t.name} declares an outputSchema`).toBeDefined();
      expect(() => outputs.compile(t.outputSchema!), `${t.name} outputSchema`).not.toThrow();
    }
  });

  it('each input schema keeps to OpenAI strict-mode function rules', () => {
    for (const t of tools) expect(openAiStrictViolations(t.name, t.inputSchema), t.name).toEqual([]);
  });

  it("each input schema keeps to Gemini's function-declaration schema subset", () => {
    for (const t of tools) expect(geminiViolations(t.name, t.inputSchema), t.name).toEqual([]);
  });

  it('carries no $schema, no safe-integer bounds, no additionalProperties, no anyOf, no type arrays in inputs', () => {
    for (const t of tools) {
      const text = JSON.stringify(t.inputSchema);
      expect(text, t.name).not.toMatch(/\$schema|9007199254740991|additionalProperties|anyOf|"type":\[/);
    }
  });

  it("advertises upsert's target as one object taking exactly one key, and the json value as JSON text", () => {
    const target = (toolNamed('upsert').inputSchema.properties as Record<string, { [k: string]: unknown }>).target!;
    expect(target).toMatchObject({ type: 'object', description: expect.stringMatching(/exactly one of/i) });
    expect(Object.keys(target.properties as object)).toEqual(expect.arrayContaining(['insert', 'replace', 'delete', 'append', 'section', 'json']));
    const json = (target.properties as Record<string, { properties: Record<string, { type: string; description: string }> }>).json!;
    expect(json.properties.value).toMatchObject({ type: 'string', description: expect.stringMatching(/JSON text/) });
  });
});

describe('the rules catch what the SDK used to advertise', () => {
  // What McpServer.registerTool emitted for upsert (zod's own JSON Schema of the input).
  const sdkUpsert = z.toJSONSchema(UpsertInput, { target: 'draft-7', io: 'input' }) as { [k: string]: unknown };

  it('OpenAI strict: $schema is not supported; the json value has no type', () => {
    const broken = openAiStrictViolations('upsert', sdkUpsert);
    expect(broken).toContain('$: keyword $schema is not supported');
    expect(broken.some((b) => /json.*value: no type/.test(b))).toBe(true);
  });

  it('Gemini: $schema and const are outside the subset; a type array and an untyped value', () => {
    const broken = geminiViolations('upsert', sdkUpsert);
    expect(broken).toContain('$: keyword $schema is not in the Schema subset');
    expect(broken).toContain('$.properties.if_not_modified_since: type is not one string (["number","string"])');
    expect(broken.some((b) => /at_end: keyword const/.test(b))).toBe(true);
    expect(broken.some((b) => /value: type is not one string/.test(b))).toBe(true);
  });
});

describe('toolArgumentsOf: the advertised form back to the zod input', () => {
  const wire = toolInputSchemaOf(UpsertInput);

  it('finds the JSON-text value and the exactly-one target', () => {
    expect(wire.jsonText).toEqual([['target', 'json', 'value']]);
    expect(wire.exactlyOne).toEqual([{ path: ['target'], keys: ['insert', 'replace', 'delete', 'append', 'whole_file', 'section', 'json'] }]);
  });

  it('decodes JSON text, takes any other value as it is, and leaves the caller’s object alone', () => {
    const args = { path: 'a.json', target: { json: { path: '$.a', op: 'set', value: '{"b":[1,"x"]}' } } };
    expect(toolArgumentsOf(wire, args)).toEqual({ path: 'a.json', target: { json: { path: '$.a', op: 'set', value: { b: [1, 'x'] } } } });
    expect(args.target.json.value).toBe('{"b":[1,"x"]}');
    expect(toolArgumentsOf(wire, { path: 'a', target: { json: { path: '$.a', op: 'set', value: '"text"' } } })).toMatchObject({
      target: { json: { value: 'text' } },
    });
    const raw = { path: 'a', target: { json: { path: '$.a', op: 'set', value: { already: 'json' } } } };
    expect(toolArgumentsOf(wire, raw)).toEqual(raw);
  });

  it('refuses JSON text that does not parse, and a target with two keys, as invalid_input', () => {
    expect(() => toolArgumentsOf(wire, { path: 'a', target: { json: { path: '$.a', op: 'set', value: 'text' } } })).toThrow(
      expect.objectContaining({ code: 'invalid_input', details: { field: 'target.json.value' } }),
    );
    expect(() => toolArgumentsOf(wire, { path: 'a', target: { insert: { at: 1 }, append: { at_end: true } } })).toThrow(
      expect.objectContaining({ code: 'invalid_input', message: expect.stringMatching(/exactly one of/) }),
    );
  });

  it('advertises a discriminated union as one object whose discriminator lists every value', () => {
    const kinds = toolInputSchemaOf(
      z.object({
        op: z.discriminatedUnion('kind', [z.object({ kind: z.literal('a'), x: z.number() }), z.object({ kind: z.literal('b'), y: z.string() })]),
      }),
    );
    expect(kinds.schema.properties).toEqual({
      op: { type: 'object', properties: { kind: { type: 'string', enum: ['a', 'b'] }, x: { type: 'number' }, y: { type: 'string' } }, required: ['kind'] },
    });
    expect(openAiStrictViolations('t', kinds.schema)).toEqual([]);
    expect(geminiViolations('t', kinds.schema)).toEqual([]);
  });

  it('decodes JSON text inside arrays', () => {
    const listed = toolInputSchemaOf(z.object({ items: z.array(z.object({ v: z.unknown() })) }));
    expect(listed.jsonText).toEqual([['items', '*', 'v']]);
    expect(toolArgumentsOf(listed, { items: [{ v: '1' }, { v: '[2]' }, {}] })).toEqual({ items: [{ v: 1 }, { v: [2] }, {}] });
  });
});

describe('calls in the advertised form over MCP', () => {
  it('a json set with the value as JSON text writes that JSON', async () => {
    const etag = (await auto.call('read', { path: 'data.json', full: true })).body.version.etag;
    const r = await auto.call('upsert', { path: 'data.json', target: { json: { path: '$.tags', op: 'set', value: '["a",{"b":2}]' } }, if_match: etag });
    expect(r.isError, r.text).toBe(false);
    expect(JSON.parse(readFileSync(join(ws, 'data.json'), 'utf8'))).toEqual({ name: 'demo', tags: ['a', { b: 2 }] });
  });

  it('bad arguments answer an isError {error: {code: invalid_input}} result', async () => {
    const badJson = await review.call('upsert', { path: 'data.json', target: { json: { path: '$.name', op: 'set', value: 'plain' } }, if_match: 'x' });
    expect(badJson).toMatchObject({ isError: true, body: { error: { code: 'invalid_input', field: 'target.json.value' } } });
    // Refused inside the agent guard: audited like any failed call.
    const audit = readFileSync(join(ws, '.folio', 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(audit.at(-1)).toMatchObject({ op: 'upsert', outcome: 'error', code: 'invalid_input', path: join(ws, 'data.json') });
    const twoKeys = await review.call('upsert', { path: 'notes.txt', target: { insert: { at: 1 }, append: { at_end: true } }, content: 'x\n', if_match: 'x' });
    expect(twoKeys).toMatchObject({ isError: true, body: { error: { code: 'invalid_input' } } });
    const missing = await review.call('read', { head: 1 });
    expect(missing).toMatchObject({ isError: true, body: { error: { code: 'invalid_input', message: expect.stringMatching(/path/) } } });
  });
});

describe('protocol', () => {
  it('an unknown tool name is a JSON-RPC error -32602 naming the tools, not a tool result; the attempt is audited', async () => {
    const err = await review.client.callTool({ name: 'write_file', arguments: { path: 'notes.txt', content: 'x' } }).then(
      (r) => ({ result: r }),
      (e: unknown) => e as { code?: number; message?: string },
    );
    expect(err).toMatchObject({ code: -32602 });
    expect((err as { message: string }).message).toMatch(/unknown tool: write_file; the tools are read, .*upsert/);
    expect(readFileSync(join(ws, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');
    const audit = readFileSync(join(ws, '.folio', 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(audit.at(-1)).toMatchObject({ op: 'write_file', outcome: 'error', code: 'invalid_input' });
  });
});
