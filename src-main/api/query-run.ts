/** The query operation's run: the files checked as every read checks them, then SQL over them (engine/search/log-query.ts). */
import type { z } from 'zod';
import { resolve } from 'node:path';
import { FolioError } from '../engine/errors.ts';
import { statRegularFile } from '../engine/index/identity.ts';
import { sniffBinary } from '../engine/text/binary-sniff.ts';
import { isRemoteLocator } from './input-paths.ts';
import type { CallContext } from './call-context.ts';
import type { QueryInput, QueryOutput } from './schemas/query.ts';

export async function queryRun(input: z.infer<typeof QueryInput>, ctx: CallContext): Promise<z.infer<typeof QueryOutput>> {
  const files = await Promise.all(
    input.paths.map(async (path) => {
      if (isRemoteLocator(path)) throw new FolioError('invalid_input', `query reads local files only, not ${path}`, { path });
      const identity = statRegularFile(path);
      const verdict = await sniffBinary(identity.path, identity.size);
      if (verdict.isBinary) throw new FolioError('binary_file', `binary file (${verdict.reason}): ${path}`, { path, type: verdict.type });
      // Rows are read as bytes of an ASCII-compatible encoding (stamps, levels, '\n'), as time_seek and histogram read them.
      if (verdict.bomEncoding === 'utf-16le' || verdict.bomEncoding === 'utf-16be')
        throw new FolioError('encoding_mismatch', `query reads ASCII-compatible logs; ${path} is ${verdict.bomEncoding}`, {
          path,
          encoding: verdict.bomEncoding,
        });
      return resolve(path);
    }),
  );
  const { queryLogs } = await import('../engine/search/log-query.ts');
  const r = await queryLogs(files, input.sql, {
    names: input.paths,
    ...(input.limit !== undefined ? { limit: input.limit } : {}),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  return {
    columns: r.columns,
    rows: r.rows,
    row_count: r.rows.length,
    capped: r.capped,
    links: r.links ? r.links.map((l) => (l ? { path: input.paths[files.indexOf(l.path)] ?? l.path, line: l.line } : null)) : null,
    key_columns: r.keyColumns,
    elapsed_ms: r.elapsedMs,
  };
}
