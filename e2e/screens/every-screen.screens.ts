/**
 * Every screen of the UI saved as images at 1280×800, 820×640 and 720×600 (e2e/support/screens.ts),
 * along the tour of e2e/support/screen-tour.ts on real devices, for a person to look over; the run
 * view mid-move is also the README's picture (docs/images/run-view-moving.png).
 */
import { test } from '@playwright/test';
import { useWorld } from '../support/devices.ts';
import { startFreshDevices } from '../support/fresh-device.ts';
import { saveScreen } from '../support/screens.ts';
import { startHostedDevices } from '../support/hosted-devices.ts';
import { tourEnrolledScreens, tourHostedBackend, tourSetUp } from '../support/screen-tour.ts';

const world = useWorld();

test('every screen of an enrolled device', async () => {
  test.setTimeout(300_000);
  await tourEnrolledScreens(world(), async (page, name) => {
    await saveScreen(page, name, { docs: name === 'run-view-moving' });
  });
});

test('the set-up screen', async ({ browser }) => {
  const fresh = await startFreshDevices(['laptop']);
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(fresh.devices[0]!.url);
    await tourSetUp(page, (shown, name) => saveScreen(shown, name).then(() => undefined));
  } finally {
    await context.close();
    await fresh.close();
  }
});

test('the screens of a backend a device hosts', async ({ browser }) => {
  const hosted = await startHostedDevices();
  try {
    await tourHostedBackend(hosted, browser, (shown, name) => saveScreen(shown, name).then(() => undefined));
  } finally {
    await hosted.close();
  }
});
