/**
 * The Electron app, where an Electron binary is installed. Without one the test
 * reports as skipped with the reason (never as passed).
 */
import { join } from 'node:path';
import { _electron as electron, expect, test } from '@playwright/test';
import { findElectronBinary } from '../scripts/electron-binary.mjs';
import { makeFixtureDir, writeTextFixture } from './fixtures.ts';
import { REPO_ROOT } from './folio-serve.ts';

const binary = findElectronBinary(REPO_ROOT);

test('the Electron window shows file_info of the file on the command line, sandboxed', async () => {
  if (binary.path === null) {
    test.skip(true, `no Electron binary installed: ${binary.reason}`);
    return;
  }
  const fixtures = makeFixtureDir();
  const file = writeTextFixture(fixtures.dir, 'electron.txt', { lines: 4_321, newline: '\n', finalNewline: true });
  const { ELECTRON_RUN_AS_NODE: _ignored, ...env } = process.env;
  const app = await electron.launch({
    executablePath: binary.path,
    args: ['--no-sandbox', join(REPO_ROOT, 'out', 'main', 'index.js'), file.path],
    env: env as Record<string, string>,
  });
  try {
    const window = await app.firstWindow();
    await expect(window.getByTestId('file-lines')).toHaveText(new Intl.NumberFormat('en-US').format(file.lines));
    const exposed = await window.evaluate(() => ({
      bridge: typeof (window as { folio?: unknown }).folio,
      require: typeof (globalThis as { require?: unknown }).require,
      process: typeof (globalThis as { process?: unknown }).process,
    }));
    expect(exposed).toEqual({ bridge: 'object', require: 'undefined', process: 'undefined' });
    await window.screenshot({ path: join(REPO_ROOT, 'e2e', 'artifacts', 'electron-window.png') });
  } finally {
    await app.close();
    fixtures.remove();
  }
});
