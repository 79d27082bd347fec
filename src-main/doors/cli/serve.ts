/** `folio serve [FILE] [--port P] [--host H] [--open]`: the renderer and its API over HTTP. */
import type { Command } from 'commander';
import type { RunningServer } from '../http/serve.ts';
import type { CliIO } from './cli-io.ts';

/**
 * What `folio serve` prints: the person's URL first on stdout (what scripts and
 * tests read), then on stderr the MCP client config that hands an agent its own
 * token for /api/mcp (the person's URL and token open nothing there).
 */
export function announceServer(server: RunningServer, io: CliIO): void {
  io.stdout.write(server.url + '\n');
  io.stderr.write(`MCP for an agent (Streamable HTTP; the URL above does not open it): ${JSON.stringify(server.mcpClientConfig)}\n`);
}

export function registerServe(program: Command, io: CliIO): void {
  program
    .command('serve')
    .description('Serve the Folio app and its API on 127.0.0.1; the first line printed is the URL to open, stderr has the MCP client config for an agent.')
    .argument('[file]', 'file to show when the URL is opened')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '0')
    .option('--host <host>', 'loopback address to bind', '127.0.0.1')
    .option('--open', 'open the URL in the default browser')
    .action(async (file: string | undefined, opts: { port: string; host: string; open?: boolean }) => {
      const { serve } = await import('../http/serve.ts'); // the HTTP server loads for this command only
      const server = await serve({ file, port: Number(opts.port), host: opts.host, open: Boolean(opts.open) });
      announceServer(server, io);
      await new Promise<void>((resolve) => {
        const stop = () => void server.close().then(resolve);
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
    });
}
