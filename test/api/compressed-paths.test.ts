/**
 * A compressed log through the operations (api/compressed-paths.ts): every
 * read-only operation answers on the decompressed text, as zcat | sed / grep see
 * it, and names the original path (never the cache file); file_info says it is
 * compressed; writes are refused with details.compressed; delete_file acts on the
 * .gz itself; the app's head window is answered while the job runs, with its
 * progress; errors name the original path.
 */
import { execFileSync, execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAgentSession, runAgentTool } from '../../src-main/api/agent/session.ts';
import { handle } from '../../src-main/api/handle.ts';
import { decompressDir } from '../../src-main/engine/read/decompressed.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { writeLogFile } from '../fixtures/generate.ts';

const HUMAN = { kind: 'human', name: 'test' } as const;
const tmp = engineTempDir();
let gz: string;
let plainLines: string[];

function sed(path: string, from: number, to: number): string {
  return execSync(`zcat '${path}' | sed -n '${from},${to}p'`, { maxBuffer: 1 << 28 }).toString('utf8');
}

/** No string anywhere in `value` names the cache dir. */
function namesNoCacheFile(value: unknown): void {
  expect(JSON.stringify(value)).not.toContain(decompressDir());
}

beforeAll(() => {
  writeLogFile(tmp.path('app.log'), 4 * 1024 * 1024, 3);
  const plain = readFileSync(tmp.path('app.log'));
  plainLines = plain.toString('utf8').split(/(?<=\n)/);
  gz = tmp.path('app.log.gz');
  writeFileSync(gz, gzipSync(plain, { level: 1 }));
});

describe('a gzip log through the operations', () => {
  it("the app's head window answers before the whole decompression, with its progress, then reads wait for the job", async () => {
    const src = tmp.path('head.log.gz');
    writeFileSync(src, readFileSync(gz));
    const head = await handle('read', { path: src, start_byte: 0, max_bytes: 16_384 }, HUMAN);
    expect(head.path).toBe(src);
    expect(head.total_lines).toBeNull();
    expect(head.indexing).toMatchObject({ total_bytes: readFileSync(src).length, stage: 'decompressing' });
    expect(head.content).toBe(sed(src, 1, head.end_line!));
    expect(head.content.length).toBeGreaterThan(8000);
    namesNoCacheFile(head);
    const deep = await handle('read', { path: src, offset: 30_000, limit: 5 }, HUMAN);
    expect(deep.content).toBe(sed(src, 30_000, 30_004));
    // The job is done: a head window now is the plain file's.
    const again = await handle('read', { path: src, start_byte: 0, max_bytes: 16_384 }, HUMAN);
    expect(again.content).toBe(head.content);
    expect(existsSync(`${decompressDir()}`)).toBe(true);
  });

  it('read: any window equals zcat | sed, names the .gz, and says it was decompressed once in notes', async () => {
    const r = await handle('read', { path: gz, ranges: [{ start: 100, end: 120 }] }, HUMAN);
    expect(r.path).toBe(gz);
    expect(r.content).toBe(sed(gz, 100, 120));
    expect(r.notes.filter((n) => n.includes('decompressed from gzip'))).toHaveLength(1);
    const last = await handle('read', { path: gz, tail: 3 }, HUMAN);
    expect(last.content).toBe(plainLines.slice(-3).join(''));
    namesNoCacheFile([r, last]);
  });

  it('file_info: the decompressed text, with compressed {format, compressed_bytes, etag}', async () => {
    const info = await handle('file_info', { path: gz }, HUMAN);
    expect(info.path).toBe(gz);
    expect(info.lines).toBe(Number(execSync(`zcat '${gz}' | wc -l`).toString().trim()));
    expect(info.size).toBe(readFileSync(tmp.path('app.log')).length);
    expect(info.compressed).toMatchObject({ format: 'gzip', compressed_bytes: readFileSync(gz).length });
    namesNoCacheFile(info);
  });

  it('search equals zcat | grep -n', async () => {
    const s = await handle('search', { path: gz, pattern: 'timeout retry', max: 10_000 }, HUMAN);
    expect(s.path).toBe(gz);
    const grep = execSync(`zcat '${gz}' | grep -n 'timeout retry'`, { maxBuffer: 1 << 28 })
      .toString('utf8')
      .trimEnd()
      .split('\n');
    expect(s.matches.map((m) => `${m.line}:${m.text}`)).toEqual(grep);
    namesNoCacheFile(s);
  });

  it('outline, time_seek, histogram, merge and query name the .gz, never the cache file', async () => {
    const target = plainLines[30_000]!.slice(0, 24);
    const seek = await handle('time_seek', { path: gz, time: target }, HUMAN);
    expect(seek.path).toBe(gz);
    expect(seek.line).toBe(30_001);
    const hist = await handle('histogram', { path: gz }, HUMAN);
    expect(hist.path).toBe(gz);
    expect(hist.buckets.reduce((sum, b) => sum + b.error + b.warn + b.info + b.debug + b.other, 0)).toBe(plainLines.length);
    const merged = await handle('merge', { paths: [gz, tmp.path('app.log')], lines: 4 }, HUMAN);
    expect(merged.files.map((f) => f.path)).toEqual([gz, tmp.path('app.log')]);
    expect(merged.lines.filter((l) => l.file === 0).every((l) => l.path === gz)).toBe(true);
    const q = await handle('query', { paths: [gz], sql: "SELECT file, line FROM log WHERE level = 'ERROR' ORDER BY line LIMIT 3" }, HUMAN);
    expect(q.rows.every((row) => row[0] === gz)).toBe(true);
    const outline = await handle('outline', { path: gz }, HUMAN);
    namesNoCacheFile([seek, hist, merged, q, outline]);
  });

  it('upsert, edit and patch of a .gz are binary_file with details.compressed; nothing changes', async () => {
    const before = readFileSync(gz);
    const info = await handle('file_info', { path: gz }, HUMAN);
    for (const [op, input] of [
      ['upsert', { path: gz, if_match: info.version.etag, target: { replace: { start: 1, end: 1 } }, content: 'x\n' }],
      ['edit', { path: gz, edits: [{ old_text: plainLines[0]!.trimEnd(), new_text: 'x' }] }],
      ['patch', { path: gz, patch: `<<<<<<< SEARCH\n${plainLines[0]!.trimEnd()}\n=======\nx\n>>>>>>> REPLACE\n` }],
    ] as const) {
      const err = await handle(op, input, HUMAN).catch((e: unknown) => e);
      expect(err, op).toMatchObject({ code: 'binary_file', details: { compressed: 'gzip' } });
      expect((err as Error).message).toContain('does not write it');
    }
    expect(readFileSync(gz).equals(before)).toBe(true);
  });

  it('delete_file acts on the .gz itself, with the etag file_info gives as compressed.etag', async () => {
    const victim = tmp.path('victim.log.gz');
    writeFileSync(victim, readFileSync(gz));
    const info = await handle('file_info', { path: victim }, HUMAN);
    await handle('delete_file', { path: victim, if_match: info.compressed!.etag }, HUMAN, { workspace: tmp.dir });
    expect(existsSync(victim)).toBe(false);
  });

  it('a truncated .gz: parse_error naming the .gz, at_byte given', async () => {
    const bad = tmp.path('bad.log.gz');
    const whole = readFileSync(gz);
    writeFileSync(bad, whole.subarray(0, whole.length >> 1));
    const err = await handle('read', { path: bad, offset: 1, limit: 2 }, HUMAN).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'parse_error', details: { path: bad, format: 'gzip' } });
    namesNoCacheFile(err);
    // zcat fails on it too.
    expect(() => execFileSync('zcat', [bad], { stdio: 'ignore' })).toThrow();
  });
});

describe('a gzip log through the agent door', () => {
  it('the guard pins the .gz (/proc/self/fd/N): read and search answer the decompressed text and name the workspace path', async () => {
    const s = createAgentSession(tmp.dir, 'gz-agent');
    const read = (await runAgentTool(s, 'read', { path: 'app.log.gz', offset: 2_000, limit: 3 })) as { path: string; content: string };
    expect(read.content).toBe(sed(gz, 2_000, 2_002));
    expect(read.path).not.toContain('/proc/self/fd');
    namesNoCacheFile(read);
    const found = (await runAgentTool(s, 'search', { path: 'app.log.gz', pattern: 'ERROR \\[auth\\] retry' })) as { matches: { line: number }[] };
    const grep = execSync(`zcat '${gz}' | grep -n 'ERROR \\[auth\\] retry' | cut -d: -f1`, { encoding: 'utf8' }).trimEnd().split('\n').map(Number);
    expect(found.matches.map((m) => m.line)).toEqual(grep.slice(0, found.matches.length));
    const err = await runAgentTool(s, 'upsert', { path: 'app.log.gz', target: { replace: { start: 1, end: 1 } }, content: 'x\n', if_match: 'x' }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'binary_file', details: { compressed: 'gzip' } });
  });
});

describe('redaction of a gzip log at the agent door', () => {
  it("a key block's body is redacted in a window without its BEGIN line, as in the plain file; search finds no secret", async () => {
    const body = Array.from({ length: 12 }, (_, i) => `MIIEpAIBAAKCAQEA${String(i).padStart(2, '0')}${'Qk9VTkRBUlk'.repeat(4)}`);
    const text = [
      '2026-01-01T00:00:00Z INFO boot',
      '-----BEGIN RSA PRIVATE KEY-----',
      ...body,
      '-----END RSA PRIVATE KEY-----',
      '2026-01-01T00:00:01Z INFO up',
      '',
    ].join('\n');
    writeFileSync(tmp.path('keys.log'), text);
    writeFileSync(tmp.path('keys.log.gz'), gzipSync(text));
    const s = createAgentSession(tmp.dir, 'gz-redact');
    for (const name of ['keys.log', 'keys.log.gz']) {
      const r = (await runAgentTool(s, 'read', { path: name, offset: 6, limit: 3 })) as { content: string; redactions: number };
      expect(r.content, name).not.toContain('MIIEpAIBAAKCAQEA');
      expect(r.redactions, name).toBeGreaterThan(0);
      const found = (await runAgentTool(s, 'search', { path: name, pattern: 'MIIEpAIBAAKCAQEA05' })) as { matches: { text: string }[] };
      expect(JSON.stringify(found.matches), name).not.toContain('MIIEpAIBAAKCAQEA05');
    }
    const outline = (await runAgentTool(s, 'outline', { path: 'app.log.gz' })) as Record<string, unknown>;
    namesNoCacheFile(outline);
    expect(JSON.stringify(outline)).not.toContain('/proc/self/fd');
  });
});
