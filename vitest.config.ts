import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // The seed and run count of every fast-check property (test/fixtures/effort.ts).
    setupFiles: ['test/fixtures/property-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
