import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findElectronBinary } from '../../scripts/electron-binary.mjs';
import { tempDir } from '../fixtures/generate.ts';

describe('npm start without an Electron binary', () => {
  const hasBinary = findElectronBinary(process.cwd()).path !== null;

  it.skipIf(hasBinary)('says so in one line and serves the browser mode, whose first stdout line is the URL', async () => {
    const tmp = tempDir('folio-start-');
    const file = join(tmp.dir, 'hello.txt');
    writeFileSync(file, 'hello\n');
    const child = spawn(process.execPath, ['scripts/start.mjs', file, '--port', '0'], {
      env: { ...process.env, BROWSER: 'true', DISPLAY: '' },
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
      setTimeout(() => reject(new Error(`no URL in 30s: ${err}`)), 30_000);
    });
    try {
      expect(err.split('\n').filter((l) => l.startsWith('folio:'))).toEqual([expect.stringMatching(/^folio: no Electron binary is present .*browser mode/)]);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+&file=/);
      const { origin, searchParams } = new URL(url);
      const r = await fetch(`${origin}/api/file_info`, {
        method: 'POST',
        headers: { authorization: `Bearer ${searchParams.get('token')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ path: file }),
      });
      expect(r.status).toBe(200);
      expect(await r.json()).toMatchObject({ lines: 1, size: 6 });
    } finally {
      child.kill('SIGTERM');
      tmp.cleanup();
    }
  });
});
