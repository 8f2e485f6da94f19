/**
 * Every screen passes an automated accessibility check: axe-core (through @axe-core/playwright, the
 * WCAG 2.1 A and AA rules) runs in the page at each stop of the tour of every screen
 * (support/screen-tour.ts) on real devices, and on the set-up screen of a device with no account.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { useWorld } from './support/devices.ts';
import { startFreshDevices } from './support/fresh-device.ts';
import { startHostedDevices } from './support/hosted-devices.ts';
import { tourEnrolledScreens, tourHostedBackend, tourSetUp } from './support/screen-tour.ts';

const world = useWorld();

/** Runs axe on `page` and adds each violation, named for the screen, to `found`. */
async function check(page: Page, name: string, found: string[]): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  for (const violation of results.violations) {
    const where = violation.nodes
      .slice(0, 3)
      .map((node) => node.target.join(' '))
      .join(', ');
    found.push(`${name}: ${violation.id} (${violation.impact ?? 'unknown'}) ${violation.help} — ${where}`);
  }
}

test('every screen of an enrolled device passes axe', async () => {
  test.setTimeout(300_000);
  const found: string[] = [];
  const checked: string[] = [];
  await tourEnrolledScreens(world(), async (page, name) => {
    checked.push(name);
    await check(page, name, found);
  });
  console.log(`axe checked ${checked.length} screens: ${checked.join(', ')}`);
  expect(found).toEqual([]);
  // The revoked device's own screen comes once its runtime learns it was revoked; every other one is checked.
  expect(checked.length).toBeGreaterThanOrEqual(18);
});

test('the set-up screen passes axe, with a refused invite too, and the page opened without its token', async ({ browser }) => {
  const fresh = await startFreshDevices(['laptop']);
  const context = await browser.newContext();
  const found: string[] = [];
  try {
    const page = await context.newPage();
    await page.goto(fresh.devices[0]!.url);
    await tourSetUp(page, (shown, name) => check(shown, name, found));
  } finally {
    await context.close();
    await fresh.close();
  }
  expect(found).toEqual([]);
});

test('the screens of a backend a device hosts pass axe', async ({ browser }) => {
  const hosted = await startHostedDevices();
  const found: string[] = [];
  try {
    await tourHostedBackend(hosted, browser, (shown, name) => check(shown, name, found));
  } finally {
    await hosted.close();
  }
  expect(found).toEqual([]);
});
