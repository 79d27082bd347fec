/**
 * `folio mcp [--root DIR] [--allow DIR]... [--read-only GLOB]... [--deny GLOB]... [--review review|auto|deny]`:
 * an MCP server over stdio for one agent. Proposals it makes land in the
 * workspace's review state (<root>/.folio), where a running `folio serve` or app
 * sees them at once: they watch that state, so nothing needs forwarding.
 *
 * `folio audit [--path P] [--since T] [--root DIR] [--json]`: the audit log.
 */
import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { AGENT_TOOL_NAMES } from '../../api/agent-tool-names.ts';
import { handle } from '../../api/quick-handle.ts';
import { Exit, printError, type CliIO } from './cli-io.ts';
import { REVIEW_POLICIES, serveMcp, type McpFlags } from './mcp-serve.ts';

const collect = (v: string, all: string[] = []) => [...all, v];

export function registerMcp(program: Command, io: CliIO): void {
  program
    .command('mcp')
    .description(`Serve agents over MCP on stdin/stdout (tools: ${AGENT_TOOL_NAMES.join(', ')}).`)
    .option('--root <dir>', 'workspace root: policy (folio.config.json), review state and audit log live there', '.')
    .option('--allow <dir>', 'an allowed root (repeatable; default: the workspace root)', collect)
    .option('--read-only <glob>', 'paths agents may read but not edit (repeatable)', collect)
    .option('--deny <glob>', 'paths agents may not open (repeatable; added to the defaults)', collect)
    .option('--review <policy>', 'how agent edits are handled everywhere: review (default), auto, deny', (v: string) => {
      if (!REVIEW_POLICIES.has(v)) throw new InvalidArgumentError(`--review takes review, auto or deny, got "${v}"`);
      return v;
    })
    .action((f: McpFlags) => serveMcp(f, io));

  program
    .command('audit')
    .description('Show the audit log of the workspace (one entry per agent operation).')
    .option('--root <dir>', 'workspace root', '.')
    .option('--path <path>', 'only this file')
    .option('--since <time>', 'only entries at or after this time (ISO 8601 or ms)')
    .option('--json', 'print one JSON object')
    .action(async (f: { root: string; path?: string; since?: string; json?: boolean }) => {
      try {
        const since = f.since === undefined ? undefined : /^\d+$/.test(f.since) ? Number(f.since) : f.since;
        const r = await handle(
          'audit_log',
          { ...(f.path ? { path: f.path } : {}), ...(since !== undefined ? { since } : {}) },
          { kind: 'human', name: 'cli' },
          { workspace: resolve(f.root) },
        );
        if (f.json) {
          io.stdout.write(JSON.stringify(r) + '\n');
          return;
        }
        for (const e of r.entries) {
          const range = e.range?.start_line ? ` lines ${e.range.start_line}-${e.range.end_line}` : '';
          io.stdout.write(
            `${e.time} ${e.actor.kind}:${e.actor.name} ${e.op} ${e.path ?? '-'}${range} ${e.outcome}${e.code ? ` ${e.code}` : ''}${e.reason ? ` (${e.reason.replace(/\s*\n\s*/g, ' ')})` : ''}${e.caller_reason ? ` why: ${JSON.stringify(e.caller_reason)}` : ''}\n`,
          );
        }
      } catch (err) {
        throw new Exit(printError(err, Boolean(f.json), io));
      }
    });
}
