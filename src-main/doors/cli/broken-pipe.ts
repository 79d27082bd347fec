/**
 * A Unix citizen when its reader goes away: `folio search BIG X | head` ends when
 * `head` closes the pipe, quietly, like `yes | head` (killed by SIGPIPE: status
 * 141). Node ignores SIGPIPE, so a write to a closed pipe is an EPIPE error on the
 * stream, which would otherwise be an unhandled 'error' with a stack trace while
 * the search workers kept scanning. process.exit stops every worker thread.
 */
import { EXIT_BROKEN_PIPE } from '../../api/error-map.ts';

type Stream = NodeJS.WritableStream & { on(event: 'error', listener: (err: NodeJS.ErrnoException) => void): unknown };

/** Exit the process with status 141 when `stream` (stdout, stderr) loses its reader; other errors are thrown as before. */
export function exitOnBrokenPipe(stream: Stream): void {
  stream.on('error', (err) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') process.exit(EXIT_BROKEN_PIPE);
    throw err;
  });
}
