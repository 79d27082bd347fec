import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Nothing the run started outlives it, a SIGKILLed vitest included: test/fixtures/reaper.ts.
    // One PostgreSQL, Azurite and S3 server per run, started by the first file that needs each.
    // The test children (crashers, racers) bundled once per run: test/fixtures/child-bundles.ts.
    globalSetup: ['test/fixtures/reaper.ts', 'test/fixtures/test-servers.ts', 'test/fixtures/child-bundles.ts'],
    pool: 'forks',
    // Files side by side: vitest's default (cores - 1) runs them one at a time on the
    // 2-core build machines, and most files spend their time waiting on child processes
    // (CLI runs, servers, crash tests' kill loops), so one core idled. Temp dirs are per
    // file, servers listen on port 0 or a socket in their dir, and time limits scale with
    // the load (test/fixtures/load.ts). FOLIO_TEST_WORKERS overrides.
    maxWorkers: Number(process.env.FOLIO_TEST_WORKERS) || Math.max(2, availableParallelism()),
    // Seeds and counts of properties; children left running are killed (test/fixtures/suite-setup.ts).
    setupFiles: ['test/fixtures/suite-setup.ts'],
    // Limits for a loaded machine (npm run test:hog: a busy loop on every core beside
    // the suite): a test that passes in 20 s on a quiet machine took over 60 s there.
    // They only delay the report of a test that hangs.
    testTimeout: 180_000,
    hookTimeout: 300_000,
  },
});
