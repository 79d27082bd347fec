import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

/** The rules that keep the layers apart: static imports, and import() of a string. */
const BOUNDARY_RULES = new Set(['no-restricted-imports', '@typescript-eslint/no-restricted-imports', 'no-restricted-syntax']);

async function violations(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  const fatal = (result?.messages ?? []).filter((m) => m.fatal);
  expect(fatal, `${filePath} must parse`).toEqual([]);
  return (result?.messages ?? []).filter((m) => m.ruleId && BOUNDARY_RULES.has(m.ruleId)).map((m) => m.message);
}

describe('the import rule enforces doors -> api -> review -> engine', () => {
  it('fails an engine module that imports from api, review, doors, electron or react', async () => {
    for (const spec of ['../api/handle.ts', '../review/queue.ts', '../doors/cli/main.ts', 'electron', 'react', 'node:http']) {
      const msgs = await violations('src-main/engine/x.ts', `import '${spec}';\n`);
      expect(msgs, spec).toHaveLength(1);
    }
  });

  it('fails a door that reaches past the api into engine or review', async () => {
    expect(await violations('src-main/doors/cli/x.ts', `import '../../engine/errors.ts';\n`)).toHaveLength(1);
    expect(await violations('src-main/doors/http/x.ts', `import '../../review/store.ts';\n`)).toHaveLength(1);
  });

  it('fails the renderer importing engine code or Node built-ins', async () => {
    expect(await violations('src-renderer/x.ts', `import '../src-main/engine/errors.ts';\n`)).toHaveLength(1);
    expect(await violations('src-renderer/x.ts', `import 'node:fs';\n`)).toHaveLength(1);
  });

  it('allows the imports that follow the direction', async () => {
    expect(await violations('src-main/api/x.ts', `import '../engine/errors.ts';\n`)).toHaveLength(0);
    expect(await violations('src-main/doors/cli/x.ts', `import '../../api/handle.ts';\n`)).toHaveLength(0);
    expect(await violations('src-main/doors/electron/x.ts', `import 'electron';\n`)).toHaveLength(0);
    expect(await violations('src-renderer/x.ts', `import type { FileInfo } from '../src-main/api/schemas.ts';\n`)).toHaveLength(0);
  });
});

describe('inside the engine, kernels -> index -> text -> read -> {write, search, address}', () => {
  const wrong: [from: string, spec: string][] = [
    ['src-main/engine/kernels/x.ts', '../index/store.ts'],
    ['src-main/engine/index/x.ts', '../text/codec.ts'],
    ['src-main/engine/text/x.ts', '../read/read.ts'],
    ['src-main/engine/read/x.ts', '../write/upsert.ts'],
    ['src-main/engine/read/x.ts', '../search/search.ts'],
    ['src-main/engine/read/x.ts', '../address/tokens.ts'],
    ['src-main/engine/write/x.ts', '../search/search.ts'],
    ['src-main/engine/search/x.ts', '../address/tokens.ts'],
    ['src-main/engine/address/x.ts', '../write/upsert.ts'],
    ['src-main/engine/errors.ts', './read/read.ts'],
  ];
  for (const [from, spec] of wrong) {
    it(`fails ${from} importing ${spec}`, async () => {
      expect(await violations(from, `import '${spec}';\n`)).toHaveLength(1);
    });
  }

  it('allows a folder to import the folders below it, itself and errors.ts', async () => {
    for (const spec of ['../read/read.ts', '../text/codec.ts', '../index/line-index.ts', '../kernels/kernels.mjs', '../errors.ts', './matchers.mjs']) {
      expect(await violations('src-main/engine/search/x.mjs', `import '${spec}';\n`), spec).toHaveLength(0);
    }
    expect(await violations('src-main/engine/kernels/x.ts', `import '../errors.ts';\n`)).toHaveLength(0);
    expect(await violations('src-main/engine/text/x.ts', `import '../index/store.ts';\n`)).toHaveLength(0);
  });

  it('fails an engine folder or review importing the api or its governance', async () => {
    expect(await violations('src-main/engine/read/x.ts', `import '../../api/agent/policy.ts';\n`)).toHaveLength(1);
    expect(await violations('src-main/engine/search/x.ts', `import '../../api/handle.ts';\n`)).toHaveLength(1);
    expect(await violations('src-main/review/x.ts', `import '../api/app/recent-files.ts';\n`)).toHaveLength(1);
  });
});

describe('vendor adapters are plugins: src-main/backends, loaded by scheme', () => {
  it('fails the engine importing src-main/backends, statically or with import()', async () => {
    expect(await violations('src-main/engine/backend/x.ts', `import '../../backends/index.ts';\n`)).toHaveLength(1);
    expect(await violations('src-main/engine/backend/x.ts', `export const m = () => import('../../backends/postgres/postgres.ts');\n`)).toHaveLength(1);
    expect(await violations('src-main/engine/read/x.ts', `import type { PostgresConfig } from '../../backends/postgres/postgres-pool.ts';\n`)).toHaveLength(1);
  });

  it('fails a vendor SDK imported anywhere outside src-main/backends', async () => {
    const sdks = ['pg', 'pg-cursor', '@azure/storage-blob', '@aws-sdk/client-s3', '@aws-sdk/lib-storage', '@smithy/signature-v4'];
    for (const from of ['src-main/engine/backend/x.ts', 'src-main/api/x.ts', 'src-main/review/x.ts', 'src-main/doors/mcp/x.ts', 'src-main/doors/electron/x.ts'])
      for (const sdk of sdks) expect(await violations(from, `import '${sdk}';\n`), `${from} → ${sdk}`).toHaveLength(1);
    expect(await violations('src-main/api/x.ts', `export const c = () => import('@aws-sdk/client-s3');\n`)).toHaveLength(1);
    expect(await violations('src-renderer/x.ts', `import '@azure/storage-blob';\n`)).toHaveLength(1);
  });

  it('fails a door or review importing a backend, and a backend importing review, api, doors or another backend', async () => {
    expect(await violations('src-main/doors/cli/x.ts', `import '../../backends/index.ts';\n`)).toHaveLength(1);
    expect(await violations('src-main/review/x.ts', `import '../backends/postgres/postgres.ts';\n`)).toHaveLength(1);
    expect(await violations('src-main/backends/postgres/x.ts', `import '../../api/remote-ops.ts';\n`)).toHaveLength(1);
    expect(await violations('src-main/backends/s3/x.ts', `import '../../review/store.ts';\n`)).toHaveLength(1);
    expect(await violations('src-main/backends/azure/x.ts', `import '../s3/s3-parts.ts';\n`)).toHaveLength(1);
    expect(await violations('src-main/backends/x.ts', `import '../doors/cli/main.ts';\n`)).toHaveLength(1);
  });

  it('allows an adapter its SDK, the engine interface and the shared helpers; the api the plugin table', async () => {
    expect(
      await violations(
        'src-main/backends/postgres/x.ts',
        `import pg from 'pg';\nimport '../../engine/backend/types.ts';\nimport './postgres-pool.ts';\nexport { pg };\n`,
      ),
    ).toHaveLength(0);
    expect(await violations('src-main/backends/s3/x.ts', `import '@aws-sdk/client-s3';\nimport '../object-util.ts';\n`)).toHaveLength(0);
    expect(await violations('src-main/backends/azure/x.ts', `import '@azure/storage-blob';\nimport '../../engine/errors.ts';\n`)).toHaveLength(0);
    expect(await violations('src-main/backends/x.ts', `export const m = () => import('./azure/azure-blob.ts');\n`)).toHaveLength(0);
    expect(
      await violations('src-main/api/x.ts', `import '../backends/index.ts';\nexport const m = () => import('../backends/postgres/postgres-jsonb.ts');\n`),
    ).toHaveLength(0);
    expect(await violations('src-main/engine/backend/x.ts', `import './registry.ts';\n`)).toHaveLength(0);
  });
});

describe('governance (api/agent, api/app) is reached through api only', () => {
  it('fails a door importing api/agent or api/app directly', async () => {
    expect(await violations('src-main/doors/mcp/x.ts', `import { createAgentSession } from '../../api/agent/session.ts';\n`)).toHaveLength(1);
    expect(await violations('src-main/doors/cli/x.ts', `import { loadPolicy } from '../../api/agent/policy.ts';\n`)).toHaveLength(1);
    expect(await violations('src-main/doors/electron/x.ts', `import '../../api/app/recent-files.ts';\n`)).toHaveLength(1);
  });

  it('allows a door the api-level re-export and api the modules themselves', async () => {
    expect(await violations('src-main/doors/mcp/x.ts', `import { createAgentSession } from '../../api/agent-door.ts';\n`)).toHaveLength(0);
    expect(await violations('src-main/api/x.ts', `import { loadPolicy } from './agent/policy.ts';\n`)).toHaveLength(0);
  });
});

describe('the renderer imports only types from src-main/api', () => {
  it('fails a value import of the operation table or handle', async () => {
    expect(await violations('src-renderer/x.ts', `import { operations } from '../src-main/api/operations.ts';\n`)).toHaveLength(1);
    expect(await violations('src-renderer/x.ts', `import { handle } from '../src-main/api/handle.ts';\n`)).toHaveLength(1);
    expect(await violations('src-renderer/x.ts', `export { handle } from '../src-main/api/handle.ts';\n`)).toHaveLength(1);
  });

  it('allows a value import of the browser-safe link parser, which itself imports nothing', async () => {
    expect(await violations('src-renderer/x.ts', `import { folioLinkOf } from '../src-main/api/folio-link.ts';\n`)).toHaveLength(0);
    expect(await violations('src-renderer/x.ts', `import { x } from '../src-main/api/folio-link.tsx';\n`)).toHaveLength(1);
    for (const spec of ['node:path', './input-paths.ts', 'zod'])
      expect(await violations('src-main/api/folio-link.ts', `import '${spec}';\n`), spec).toHaveLength(1);
  });

  it('fails even a type import of governance state', async () => {
    expect(await violations('src-renderer/x.ts', `import type { AgentSession } from '../src-main/api/agent/session.ts';\n`)).toHaveLength(1);
  });

  it('allows type imports and type re-exports of the contract', async () => {
    expect(await violations('src-renderer/x.ts', `import type { OperationName } from '../src-main/api/operations.ts';\n`)).toHaveLength(0);
    expect(await violations('src-renderer/x.ts', `export type { FolioEvent } from '../src-main/api/events.ts';\n`)).toHaveLength(0);
    expect(await violations('src-renderer/x.ts', `export type Ops = typeof import('../src-main/api/operations.ts');\n`)).toHaveLength(0);
  });
});

describe('dynamic import() of a string is checked like a static import', () => {
  it('fails a dynamic import that breaks a rule', async () => {
    expect(await violations('src-main/engine/x.ts', `export const m = await import('../api/handle.ts');\n`)).toHaveLength(1);
    expect(await violations('src-main/engine/index/x.ts', `export const m = () => import('../read/read.ts');\n`)).toHaveLength(1);
    expect(await violations('src-main/doors/cli/x.ts', `export const m = () => import('../../api/agent/policy.ts');\n`)).toHaveLength(1);
    expect(await violations('src-renderer/x.ts', `export const ops = () => import('../src-main/api/operations.ts');\n`)).toHaveLength(1);
  });

  it('allows a dynamic import that follows the direction', async () => {
    expect(await violations('src-main/api/x.ts', `export const m = () => import('../engine/write/upsert.ts');\n`)).toHaveLength(0);
    expect(await violations('src-renderer/x.ts', `export const m = () => import('./mount.tsx');\n`)).toHaveLength(0);
  });
});

describe('wasm/ (AssemblyScript) is linted', () => {
  it('parses AS decorators and types and reports an unused variable', async () => {
    const code = `// @ts-ignore: decorator\n@inline function twice(a: i32): i32 {\n  const unused: v128 = i32x4.splat(0);\n  return a << 1;\n}\nexport function f(p: usize): u32 {\n  return <u32>twice(<i32>load<u8>(p));\n}\n`;
    const [result] = await eslint.lintText(code, { filePath: 'wasm/x.ts' });
    const messages = result?.messages ?? [];
    expect(messages.filter((m) => m.fatal)).toEqual([]);
    expect(messages.map((m) => m.ruleId)).toEqual(['@typescript-eslint/no-unused-vars']);
  });

  it('still wants a reason on @ts-ignore', async () => {
    const [result] = await eslint.lintText(`// @ts-ignore\n@inline function g(): void {}\nexport { g };\n`, { filePath: 'wasm/x.ts' });
    expect((result?.messages ?? []).map((m) => m.ruleId)).toEqual(['@typescript-eslint/ban-ts-comment']);
  });
});
