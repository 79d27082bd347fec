/**
 * `folio mcp` parses its flags without commander (src-main/doors/cli/mcp-main.ts):
 * what it takes must be what the command line makes of the same argv, and what it
 * does not take (help, usage errors) is left to the command line. The modules an
 * MCP start loads are checked in startup-modules.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src-main/doors/cli/main.ts';
import { quickMcpFlags } from '../../src-main/doors/cli/mcp-main.ts';

const BIN = join(process.cwd(), 'bin/folio.mjs');
const sink = { write: () => true } as unknown as NodeJS.WritableStream;

/** What commander hands the mcp action for `argv`, or the usage error it throws. */
async function commanderFlags(argv: string[]): Promise<unknown> {
  const program = buildProgram({ stdout: sink, stderr: sink } as never);
  let got: unknown;
  program.commands.find((c) => c.name() === 'mcp')!.action((f: unknown) => void (got = f));
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return err.code;
    throw err;
  }
  return got;
}

describe('folio mcp flags', () => {
  it.each([
    [['mcp']],
    [['mcp', '--root', '/w']],
    [['mcp', '--root=/w', '--review=auto']],
    [['mcp', '--root', 'rel/dir', '--allow', '/a', '--allow', '/b', '--read-only', 'docs/**', '--deny', '*.pem', '--deny', 'secrets/**', '--review', 'deny']],
    [['mcp', '--review', 'review', '--root', '.']],
  ])('%j: the same flags as the command line', async (argv) => {
    const quick = quickMcpFlags(argv);
    expect(quick).not.toBeNull();
    expect(quick).toEqual(await commanderFlags(argv));
  });

  it.each([
    [['mcp', '--help'], 'commander.helpDisplayed'],
    [['mcp', '-h'], 'commander.helpDisplayed'],
    [['mcp', '--bogus'], 'commander.unknownOption'],
    [['mcp', '--review', 'maybe'], 'commander.invalidArgument'],
    [['mcp', '--root'], 'commander.optionMissingArgument'],
    [['mcp', 'extra'], 'commander.excessArguments'],
  ])('%j: left to the command line, which says %s', async (argv, code) => {
    expect(quickMcpFlags(argv)).toBeNull();
    expect(await commanderFlags(argv)).toBe(code);
  });

  it('the built entry answers help and usage errors as the command line does', () => {
    const help = spawnSync(process.execPath, [BIN, 'mcp', '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: folio mcp \[options\]/);
    const bad = spawnSync(process.execPath, [BIN, 'mcp', '--bogus'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unknown option '--bogus'/);
  });
});
