/**
 * What `folio mcp` does once its flags are parsed, shared by the command line
 * (mcp.ts) and the quick entry an agent host starts (mcp-main.ts).
 */
import { resolve } from 'node:path';
import { Exit, printError, type CliIO } from './cli-io.ts';

/** The values of `--review`. */
export const REVIEW_POLICIES: ReadonlySet<string> = new Set(['review', 'auto', 'deny']);

export interface McpFlags {
  root: string;
  allow?: string[];
  readOnly?: string[];
  deny?: string[];
  review?: 'review' | 'auto' | 'deny';
}

/** Serves MCP on stdin/stdout until the client goes; a failure to start is printed and thrown as Exit. */
export async function serveMcp(f: McpFlags, io: CliIO): Promise<void> {
  try {
    const { runStdio } = await import('../mcp/server.ts'); // the MCP SDK loads for this command only
    await runStdio(resolve(f.root), {
      ...(f.allow ? { roots: f.allow } : {}),
      ...(f.readOnly ? { readOnly: f.readOnly } : {}),
      ...(f.deny ? { deny: f.deny } : {}),
      ...(f.review ? { review: f.review } : {}),
    });
  } catch (err) {
    throw new Exit(printError(err, false, io));
  }
}
