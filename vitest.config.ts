import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/fixtures/sequencer.ts';

/**
 * Files that leave state in their worker's modules that another file would trip on
 * (registered backends, remote-value caches keyed by a locator another file reuses),
 * or that start their own vitest or servers: each runs in a fresh worker. Every other
 * file shares its worker with the files before it (isolate: false): a fresh worker
 * per file cost ~0.35 CPU s to start, over a minute of CPU per run. A file that
 * passes alone but fails after another belongs here.
 */
const ISOLATED = [
  'test/engine/backend/**/*.test.ts',
  'test/scripts/**/*.test.ts',
  // The stores' timers outlive a test and fire in the next file (no DOM there).
  'test/renderer/**/*.test.ts',
  // It reads the niceness of every thread of its process.
  'test/engine/index-priority.test.ts',
];

const shared = {
  // Seeds and counts of properties; children left running are killed (test/fixtures/suite-setup.ts).
  setupFiles: ['test/fixtures/suite-setup.ts'],
  pool: 'forks' as const,
  // Limits for a loaded machine (npm run test:hog: a busy loop on every core beside
  // the suite): a test that passes in 20 s on a quiet machine took over 60 s there.
  // They only delay the report of a test that hangs.
  testTimeout: 180_000,
  hookTimeout: 300_000,
};

export default defineConfig({
  test: {
    // Nothing the run started outlives it, a SIGKILLed vitest included: test/fixtures/reaper.ts.
    // One PostgreSQL, Azurite and S3 server per run, started by the first file that needs each.
    // The test children (crashers, racers) bundled once per run: test/fixtures/child-bundles.ts.
    // In the root config only: vitest runs the root's global setup once for every project.
    globalSetup: ['test/fixtures/reaper.ts', 'test/fixtures/test-servers.ts', 'test/fixtures/child-bundles.ts'],
    // Two files side by side on the 2-core build machines: with Playwright beside them
    // both cores are busy the whole run (docs/TESTING.md, "What the suite's time goes
    // to"). Three were 939 s against ~970 but an e2e test beside them failed more often
    // (viewer.spec "wheel and keys"; it has failed once with two as well). Temp dirs are per file, servers listen on port 0 or a socket in
    // their dir, and time limits scale with the load (test/fixtures/load.ts).
    // FOLIO_TEST_WORKERS overrides.
    maxWorkers: Number(process.env.FOLIO_TEST_WORKERS) || Math.max(2, availableParallelism()),
    // Longest first, across the projects (test/fixtures/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    projects: [
      { test: { ...shared, name: 'isolated', include: ISOLATED } },
      { test: { ...shared, name: 'shared', include: ['test/**/*.test.ts'], exclude: ISOLATED, isolate: false } },
    ],
  },
});
