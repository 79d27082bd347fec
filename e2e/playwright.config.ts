/**
 * Playwright against the real app: `folio serve` as a child process in the
 * system Chromium (never a downloaded browser), and Electron where a binary is
 * installed. Run by `npm run test:e2e` after `npm run build`.
 */
import { defineConfig } from '@playwright/test';

export const CHROMIUM_PATH = process.env.FOLIO_CHROMIUM ?? '/usr/bin/chromium';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  outputDir: '../test-results',
  reporter: 'list',
  forbidOnly: Boolean(process.env.CI),
  // One retry in CI, reported as flaky in the list (so a flake is seen, not hidden).
  retries: process.env.CI ? 1 : 0,
  // FOLIO_E2E_WORKERS=N to compare; see docs/TESTING.md for the figures behind the default.
  workers: Number(process.env.FOLIO_E2E_WORKERS) || 3,
  // Limits for a loaded machine (npm run test:hog): a fixture's beforeAll took over 60 s
  // beside the CPU hog. They only delay the report of a test that hangs.
  timeout: 120_000,
  expect: { timeout: 15_000 },
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
