/**
 * The viewer toolbar at small windows (issue 17): with a log open, every toolbar
 * control is fully visible inside the window and inside the viewer column (not
 * scrolled out of a sideways-scrolling row, not under the review column), and is
 * the element a click at its centre lands on; clicking Wrap there works. The
 * toolbar is as tall as the page's first window's empty one, so rows do not move.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { logLineOf } from './log-fixture.ts';

let fixtures: ReturnType<typeof makeFixtureDir>;
let server: FolioServe;

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  const workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  const log = join(workspace, 'app.log');
  writeFileSync(log, Array.from({ length: 2_000 }, (_, i) => logLineOf(i + 1) + '\n').join(''));
  server = await startFolioServe([log], { cwd: workspace, env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') } });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

interface Placed {
  name: string;
  left: number;
  top: number;
  right: number;
  bottom: number;
  /** the control is what the point at its centre hits */
  hitsItself: boolean;
}

/** Every control of the toolbar: where it is, and whether its centre reaches it. */
async function toolbarControls(page: Page): Promise<{
  controls: Placed[];
  toolbar: { right: number; scrolls: boolean; height: number; emptyHeight: number };
  viewerRight: number;
}> {
  return page.evaluate(() => {
    const bar = document.querySelector('.viewer-toolbar')!;
    const controls = [...bar.querySelectorAll('button, input, select')].map((el) => {
      const r = el.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return {
        name: el.getAttribute('aria-label') ?? el.textContent?.trim() ?? el.tagName,
        left: r.left,
        top: r.top,
        right: r.right,
        bottom: r.bottom,
        hitsItself: hit !== null && (hit === el || el.contains(hit)),
      };
    });
    // The page's first window draws an empty toolbar: it must be as tall, or the rows move when the app mounts.
    const empty = document.createElement('div');
    empty.className = 'viewer-toolbar';
    bar.parentElement!.append(empty);
    const emptyHeight = empty.getBoundingClientRect().height;
    empty.remove();
    return {
      controls,
      toolbar: {
        right: bar.getBoundingClientRect().right,
        scrolls: bar.scrollWidth > bar.clientWidth,
        height: bar.getBoundingClientRect().height,
        emptyHeight,
      },
      viewerRight: document.querySelector('.viewer')!.getBoundingClientRect().right,
    };
  });
}

for (const [width, height] of [
  [1024, 700],
  [1300, 800],
] as const) {
  test(`at ${width}×${height} every toolbar control is fully visible and clickable`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    await page.goto(server.url.href);
    await expect(page.getByTestId('file-lines')).toHaveText('2,000');
    const wrap = page.getByRole('button', { name: /^Wrap: / });
    await expect(wrap).toBeEnabled();
    const { controls, toolbar, viewerRight } = await toolbarControls(page);
    // The tools the issue names, and the ones around them.
    const names = controls.map((c) => c.name);
    for (const expected of ['Find', 'Filter', 'Histogram', 'Highlights', 'Marks', 'Wrap: off', 'JSON']) expect(names).toContain(expected);
    expect(names.some((n) => /copy link/i.test(n))).toBe(true);
    expect(toolbar.scrolls, 'the toolbar scrolls sideways').toBe(false);
    expect(toolbar.height, 'the toolbar is as tall as the first window’s empty one').toBe(toolbar.emptyHeight);
    for (const c of controls) {
      expect.soft(c.left, `${c.name} starts left of the window`).toBeGreaterThanOrEqual(0);
      expect.soft(c.top, `${c.name} starts above the window`).toBeGreaterThanOrEqual(0);
      expect.soft(c.right, `${c.name} ends past the window's right edge (${width})`).toBeLessThanOrEqual(width);
      expect.soft(c.bottom, `${c.name} ends below the window`).toBeLessThanOrEqual(height);
      expect.soft(c.right, `${c.name} runs past the viewer column into the review column`).toBeLessThanOrEqual(Math.min(toolbar.right, viewerRight) + 0.5);
      expect.soft(c.hitsItself, `a click at ${c.name}'s centre lands on something else`).toBe(true);
    }
    // A user's click where Wrap is drawn turns wrapping on.
    const box = (await wrap.boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await expect(wrap).toHaveAttribute('aria-pressed', 'true');
    await expect(wrap).toHaveText('Wrap: on');
  });
}
