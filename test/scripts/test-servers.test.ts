/**
 * The run's shared test servers (test/fixtures/test-servers.ts) leave no process
 * behind, when a start fails too. A child runs the broker with a marker in its
 * environment, which every server process it starts inherits (PostgreSQL through
 * runuser and pg_ctl, Azurite, Swift's four servers or s3rver); the test finds them
 * by that marker in /proc/PID/environ.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { processesMarked } from '../fixtures/marked-processes.mjs';

it('a failed start stops what it started, and teardown stops the rest: no process is left', async () => {
  const marker = `FOLIO_TEST_MARK=${randomUUID()}`;
  const [name, value] = marker.split('=') as [string, string];
  const { FOLIO_TEST_SERVERS: _, ...env } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', join('test/fixtures/broker-run.ts'), 'pg', 'azurite', 's3'], {
    env: { ...env, [name]: value, FOLIO_TEST_SERVERS_FAIL: 'azurite,s3' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`the broker exited (${code}) before reporting: ${out}`)));
  });
  try {
    expect(JSON.parse(line)).toEqual({ pg: 'fulfilled', azurite: 'rejected', s3: 'rejected' });
    const up = processesMarked(marker).filter((c) => !c.includes('broker-run.ts'));
    // The marker does reach the servers: PostgreSQL is up, and the failed starts left nothing.
    expect(
      up.some((c) => /postgres/.test(c)),
      up.join('\n'),
    ).toBe(true);
    expect(up.filter((c) => /azurite|swift|s3rver/.test(c))).toEqual([]);
    child.stdin.end(); // teardown
    expect(await exited).toBe(0);
    expect(processesMarked(marker)).toEqual([]);
  } finally {
    child.stdin.end();
    processesMarked(marker, { kill: true }); // a failure above leaves no orphan either
  }
});
