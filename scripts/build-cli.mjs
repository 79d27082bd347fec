// @ts-check
/**
 * Bundles the CLI (src-main/doors/cli/main.ts and everything it imports from
 * src-main) into dist/cli.mjs with esbuild, next to the runtime files the engine
 * opens: the WASM module and each worker script, bundled with what it imports
 * (the same layout as the Electron bundle: scripts/engine-runtime.mjs). bin/folio.mjs runs it when it is newer than every source file, and the
 * TypeScript sources through tsx otherwise: a CLI call starts in about half the time.
 * Run by `npm run build:cli` and by `prepare`.
 *
 * Start-up is most of a small command's time (docs/BENCHMARKS.md, "Whole process"),
 * so the bundle is split: dist/cli.mjs holds the command line and what every
 * command shares, and each dynamic import (an operation's run, the MCP and HTTP
 * doors, JSON and Markdown addressing) is a chunk, dist/cli-HASH.mjs, loaded when a
 * command first needs it. The chunks sit beside cli.mjs so that
 * `new URL('./index-worker.mjs', import.meta.url)` resolves from any of them.
 * npm packages are bundled too (one file to parse instead of a module graph to
 * resolve, which costs more than parsing), except those that find files next to
 * their own code or are large and rarely loaded. dist/cli-meta.json (esbuild's
 * metafile) says which sources each chunk holds: test/cli/startup-modules.test.ts
 * checks what a read loads. dist/cli-inputs.json lists every source file the
 * bundle and the workers were made from, for bin/folio.mjs to check that the bundle
 * is newer than each without walking src-main on every call.
 *
 * The input Specs of the operations src-main/api/runs.ts holds (read, file_info,
 * search, upsert, edit) are derived here from their zod schemas and built in as
 * __FOLIO_INPUT_SPECS__: the CLI checks such input without loading zod
 * (src-main/api/quick-handle.ts, input-spec.ts). Likewise the MCP tool list with its
 * JSON Schemas, __FOLIO_MCP_TOOLS__ (src-main/doors/mcp/tool-list.ts).
 */
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { tsImport } from 'tsx/esm/api';
import { NODE_BUNDLE, writeEngineRuntime } from './engine-runtime.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');

/**
 * Left in node_modules: Automerge loads its .wasm from its own folder; gpt-tokenizer's
 * vocabularies are big and load for one mode. The MCP SDK is bundled (into the chunk
 * `folio mcp` loads): left outside, it brought a second copy of zod and ~150 files to
 * resolve, a third of an MCP start. The vendor SDKs of the backends (pg, @azure/*,
 * @aws-sdk/*) are bundled too, each into the chunk of its adapter
 * (src-main/backends/<name>/), loaded by the first locator of that scheme.
 */
const EXTERNAL = ['@automerge/automerge', 'gpt-tokenizer'];

/**
 * The MCP SDK's server imports its Ajv validator (Ajv, ajv-formats, fast-uri: 275 KB)
 * at the top, to build one when a server is given none. Folio's server is given one
 * (src-main/doors/mcp/server.ts, `lazyAjv`) that requires the SDK's provider from
 * node_modules on first use, which never comes (it checks answers to elicitations,
 * and Folio asks for none). So the bundle gets a stand-in for that import: parsing
 * and evaluating Ajv was a tenth of an MCP start.
 */
const sdkAjvStandIn = {
  name: 'sdk-ajv-stand-in',
  setup(/** @type {import('esbuild').PluginBuild} */ b) {
    b.onResolve({ filter: /validation\/ajv-provider\.js$/ }, (args) =>
      args.importer.includes('@modelcontextprotocol/sdk') ? { path: 'ajv-provider', namespace: 'sdk-ajv-stand-in' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'sdk-ajv-stand-in' }, () => ({
      contents:
        "export class AjvJsonSchemaValidator { constructor() { throw new Error('the MCP SDK built its own Ajv: pass jsonSchemaValidator (scripts/build-cli.mjs)'); } }",
      loader: 'js',
    }));
  },
};

const runtimeInputs = writeEngineRuntime(dist);
const { operations } = await tsImport('../src-main/api/operations.ts', import.meta.url);
const { runs } = await tsImport('../src-main/api/runs.ts', import.meta.url);
const { specOf } = await tsImport('../src-main/api/input-spec.ts', import.meta.url);
/** @type {Record<string, unknown>} */
const inputSpecs = {};
for (const name of Object.keys(runs)) {
  const spec = specOf(operations[name].input);
  if (spec) inputSpecs[name] = spec;
}
const { AGENT_TOOLS } = await tsImport('../src-main/api/agent/session.ts', import.meta.url);
const { mcpToolsOf } = await tsImport('../src-main/doors/mcp/tool-list.ts', import.meta.url);
const mcpTools = mcpToolsOf(AGENT_TOOLS);
for (const f of readdirSync(dist)) if (/^cli-[A-Z0-9]+\.mjs$/.test(f)) rmSync(join(dist, f));
const { packages: _packages, ...bundle } = NODE_BUNDLE;
const result = await build({
  ...bundle,
  entryPoints: { cli: join(root, 'src-main/doors/cli/main.ts'), mcp: join(root, 'src-main/doors/cli/mcp-main.ts') },
  outdir: dist,
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: 'cli-[hash]',
  external: EXTERNAL,
  // ESM builds of packages that ship both; CommonJS ones get a real `require` for the built-ins they load.
  mainFields: ['module', 'main'],
  banner: { js: "import { createRequire as __folioCreateRequire } from 'node:module'; const require = __folioCreateRequire(import.meta.url);" },
  metafile: true,
  plugins: [sdkAjvStandIn],
  define: { __FOLIO_INPUT_SPECS__: JSON.stringify(inputSpecs), __FOLIO_MCP_TOOLS__: JSON.stringify(mcpTools) },
});
writeFileSync(join(dist, 'cli-meta.json'), JSON.stringify(result.metafile));
const cliInputs = Object.keys(result.metafile.inputs).map((f) => relative(root, resolve(process.cwd(), f)));
const sources = [...new Set([...cliInputs, ...runtimeInputs])].filter((f) => !f.startsWith('..') && !f.includes('node_modules'));
writeFileSync(join(dist, 'cli-inputs.json'), JSON.stringify(sources.sort()));
