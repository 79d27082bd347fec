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
  // Retries in CI, each reported as flaky in the list: locators' pg:// follow after a journaled
  // `folio upsert --append` missed the append in 2 of 2 attempts of one full fresh-clone run (it passes
  // alone and beside log-marks; cause not found yet, see the 2026-11-27 evening note). To be fixed, not kept.
  retries: process.env.CI ? 2 : 0,
  workers: 2,
  timeout: 60_000,
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
