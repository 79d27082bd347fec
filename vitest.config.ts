import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One PostgreSQL, Azurite and S3 server per run, started by the first file that needs each.
    globalSetup: ['test/fixtures/test-servers.ts'],
    pool: 'forks',
    // Files side by side: vitest's default (cores - 1) runs them one at a time on the
    // 2-core build machines, and most files spend their time waiting on child processes
    // (CLI runs, servers, crash tests' kill loops), so one core idled. Temp dirs are per
    // file, servers listen on port 0 or a socket in their dir, and time limits scale with
    // the load (test/fixtures/load.ts). FOLIO_TEST_WORKERS overrides.
    maxWorkers: Number(process.env.FOLIO_TEST_WORKERS) || Math.max(2, availableParallelism()),
    // The seed and run count of every fast-check property (test/fixtures/effort.ts).
    setupFiles: ['test/fixtures/property-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
