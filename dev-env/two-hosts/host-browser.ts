/**
 * A Chromium running on one host of a host lab (host-lab.ts), showing a machine's UI: it runs in that
 * host's network namespace (started through a wrapper that enters it), so 127.0.0.1 in it is that
 * host's, as a browser on that machine would see it. Playwright drives it over a pipe, which crosses
 * no network.
 */
import { join } from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import { CHROMIUM_LAUNCH } from '../chromium.ts';
import type { Machine } from './two-machines.ts';

/** Opens `machine`'s UI in a Chromium on its host (the wrapper is written into `dir`); close the browser when done. */
export async function openOnHost(machine: Machine, dir: string): Promise<{ browser: Browser; page: Page }> {
  const wrapper = join(dir, `chromium-${machine.name}`);
  await machine.host.writeWrapper(wrapper, CHROMIUM_LAUNCH.executablePath);
  const browser = await chromium.launch({ ...CHROMIUM_LAUNCH, executablePath: wrapper, headless: true });
  const page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
  page.on('pageerror', (error) => console.error(`[${machine.name} page] ${error.message}`));
  await page.goto(machine.ui());
  return { browser, page };
}
