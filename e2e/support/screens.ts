/**
 * Screens saved as images at the window sizes every screen is made for: `npm run screenshots` (the
 * `*.screens.ts` files in e2e/screens/) writes each into test-results/screens/, and the ones the docs
 * show also into docs/images/.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { PROJECT_ROOT } from '../../dev-env/process-harness.ts';
import { HALF_SCREEN } from './devices.ts';

/** The window sizes every screen works at (the design's), the first the one the docs show. */
export const SCREEN_SIZES = [{ width: 1280, height: 800 }, HALF_SCREEN, { width: 720, height: 600 }] as const;

/** Where every size of every screen is saved. */
export const SCREENS_DIR = join(PROJECT_ROOT, 'test-results', 'screens');

/** Where the screens the docs show are saved (the first size only). */
export const DOCS_IMAGES_DIR = join(PROJECT_ROOT, 'docs', 'images');

/** Let colour and layout transitions (140 ms) settle after a resize. */
const SETTLE_MS = 300;

/**
 * Saves `page` as `NAME-WxH.png` at each of SCREEN_SIZES into SCREENS_DIR (animations stopped, light
 * colours), and with `docs` the first size also as docs/images/NAME.png; the window is left at its
 * size before. Returns the files written.
 */
export async function saveScreen(page: Page, name: string, options: { docs?: boolean } = {}): Promise<string[]> {
  mkdirSync(SCREENS_DIR, { recursive: true });
  const before = page.viewportSize();
  await page.emulateMedia({ colorScheme: 'light' });
  const written: string[] = [];
  for (const size of SCREEN_SIZES) {
    await page.setViewportSize(size);
    await page.waitForTimeout(SETTLE_MS);
    const path = join(SCREENS_DIR, `${name}-${size.width}x${size.height}.png`);
    await page.screenshot({ path, animations: 'disabled' });
    written.push(path);
  }
  if (options.docs) {
    mkdirSync(DOCS_IMAGES_DIR, { recursive: true });
    const path = join(DOCS_IMAGES_DIR, `${name}.png`);
    copyFileSync(written[0]!, path);
    written.push(path);
  }
  if (before) await page.setViewportSize(before);
  return written;
}
