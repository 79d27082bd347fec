/**
 * The registry loads a scheme's adapter on first use (engine/backend/registry.ts):
 * backendFor answers at once, checks the locator then, and the adapter's loader runs
 * at the first call, once, again after a failure.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { backendFor, openBackend, registerBackend, type BackendOpener } from '../../../src-main/engine/backend/registry.ts';
import type { Backend, BackendVersion } from '../../../src-main/engine/backend/types.ts';
import { FolioError } from '../../../src-main/engine/errors.ts';

/** A Backend over bytes in memory, without sha256 (as the object stores). */
function memoryBackend(locator: string, bytes: Uint8Array): Backend {
  const version: BackendVersion = { token: 'v1', size: bytes.length };
  return {
    scheme: 'az',
    locator,
    stat: async () => version,
    read: async (start, end) => bytes.subarray(start, Math.min(end, bytes.length)),
    async *stream(start = 0) {
      for (let at = start; at < bytes.length; at += 3) yield bytes.subarray(at, Math.min(at + 3, bytes.length));
    },
    replace: async () => version,
    create: async () => version,
    sidecar: { get: async () => null, put: async () => undefined },
    close: async () => undefined,
  };
}

describe('backends load on first use', () => {
  it('a scheme with no backend registered, a local path and a malformed locator are invalid_input at once', () => {
    expect(() => backendFor('s3://bucket/key')).toThrow(
      expect.objectContaining({ code: 'invalid_input', message: expect.stringMatching(/no s3:\/\/ backend/) }),
    );
    expect(() => backendFor('/tmp/x.log')).toThrow(FolioError);
    registerBackend('az', async () => (l) => memoryBackend(l.scheme, new Uint8Array()));
    expect(() => backendFor('az://only-a-container')).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  });

  it('the loader runs at the first call, once for every backend of the scheme; the locator is known before', async () => {
    let loads = 0;
    const bytes = new TextEncoder().encode('hello, lazy world\n');
    registerBackend('az', async () => {
      loads++;
      return (l) => memoryBackend(`az://${l.scheme === 'az' ? l.container : ''}/x`, bytes);
    });
    const a = backendFor('az://c/a%20b.log');
    const b = backendFor('az://c/other.log');
    expect([loads, a.scheme, a.locator]).toEqual([0, 'az', 'az://c/a%20b.log']);
    expect(new TextDecoder().decode(await a.read(0, 5))).toBe('hello');
    expect((await b.stat()).size).toBe(bytes.length);
    const chunks: Uint8Array[] = [];
    for await (const c of a.stream(7)) chunks.push(c);
    expect(Buffer.concat(chunks).toString()).toBe('lazy world\n');
    expect(loads).toBe(1);
  });

  it('a failed load is the call’s error, and the next call loads again', async () => {
    let loads = 0;
    registerBackend('az', async () => {
      if (++loads === 1) throw new FolioError('io_error', 'the adapter did not load');
      return (l) => memoryBackend(l.scheme, new Uint8Array([1, 2, 3]));
    });
    const b = backendFor('az://c/k');
    await expect(b.stat()).rejects.toMatchObject({ code: 'io_error' });
    expect((await b.stat()).size).toBe(3);
    expect((await (await openBackend('az://c/k')).stat()).size).toBe(3);
    expect(loads).toBe(2);
  });

  it('sha256 is the adapter’s where it has one, else the streamed bytes hashed here', async () => {
    const bytes = new TextEncoder().encode('0123456789abcdef');
    const open: BackendOpener = (l) => memoryBackend(l.scheme, bytes);
    registerBackend('az', async () => open);
    expect(await backendFor('az://c/k').sha256!('v1')).toBe(createHash('sha256').update(bytes).digest('hex'));
    registerBackend('az', async () => (l) => ({ ...memoryBackend(l.scheme, bytes), sha256: async () => 'from-the-adapter' }));
    expect(await backendFor('az://c/k').sha256!('v1')).toBe('from-the-adapter');
  });
});
