/** `folio serve [FILE] [--port P] [--host H] [--open]`: the renderer and its API over HTTP. */
import type { Command } from 'commander';
import type { CliIO } from './main.ts';

export function registerServe(program: Command, io: CliIO): void {
  program
    .command('serve')
    .description('Serve the Folio app and its API on 127.0.0.1; the first line printed is the URL to open.')
    .argument('[file]', 'file to show when the URL is opened')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '0')
    .option('--host <host>', 'loopback address to bind', '127.0.0.1')
    .option('--open', 'open the URL in the default browser')
    .action(async (file: string | undefined, opts: { port: string; host: string; open?: boolean }) => {
      const { serve } = await import('../http/serve.ts'); // the HTTP server loads for this command only
      const server = await serve({ file, port: Number(opts.port), host: opts.host, open: Boolean(opts.open) });
      io.stdout.write(server.url + '\n');
      await new Promise<void>((resolve) => {
        const stop = () => void server.close().then(resolve);
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
    });
}
