/**
 * Honest connection state, as a person sees it: a backend address that does not answer is refused
 * in words and the device keeps the one it uses; the headless device's address is the same after a
 * restart, and its page opened without the token says how to get the link; a revoked device says so
 * on its own screens within seconds, stops heartbeating and disables what it can no longer do.
 */
import { expect, test } from '@playwright/test';
import { screenshots, startDemoSessionInUi, useWorld } from './support/devices.ts';

const opened = useWorld();

test('a backend address that does not answer is tried first and refused, and the one in use is kept', async () => {
  const world = opened();
  const { page } = world.laptop;
  const backendUrl = world.devices.backendUrl;
  await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Devices' }).click();
  const settings = page.getByRole('region', { name: 'Sync backend' });
  const dead = 'http://127.0.0.1:9';
  await settings.getByRole('textbox', { name: 'Backend addresses' }).fill(dead);
  await settings.getByRole('button', { name: 'Save addresses' }).click();
  await expect(settings).toContainText(
    `That address does not work for this device: ${dead}: nothing answers at that address (connection refused). Nothing was changed: this device still uses ${backendUrl}.`,
  );
  await expect(settings.getByText('Saved; in use now.')).toHaveCount(0);
  await expect(settings.getByRole('listitem')).toHaveText([`${backendUrl} (in use)`]);
  await expect(page.getByRole('button', { name: 'Add a device' })).toBeEnabled();
  expect((await world.devices.laptop.client.call('getStatus', {})).backendUrls).toEqual([backendUrl]);
});

test('the device keeps its address across a restart; its page without the token says how to get the link', async () => {
  const world = opened();
  const { page } = world.laptop;
  const old = world.devices.laptop;
  const before = old.process.url;
  await old.process.stop();
  world.devices.laptop = await world.devices.startDevice({
    name: old.name,
    profile: old.profile,
    workspaceRoot: old.workspaceRoot,
    env: old.env,
  });
  expect(world.devices.laptop.process.url).toBe(before);

  const bare = new URL(before);
  bare.search = '';
  await page.goto(bare.toString());
  await expect(page.getByRole('heading', { level: 1, name: 'Open this device with its link' })).toBeVisible();
  await expect(page.getByRole('main')).toContainText('baton open --profile DIR');
  // The same bookmark works again after the restart.
  await page.goto(before);
  await expect(page.getByRole('button', { name: 'New session' })).toBeEnabled();
});

test('a revoked device says so on its screens within seconds, stops heartbeating and acting', async () => {
  const world = opened();
  const testInfo = test.info();
  const laptop = world.laptop.page;
  const desktop = world.desktop.page;
  await startDemoSessionInUi(laptop, { workspace: world.devices.repo, title: 'Before the revocation', prompt: 'Look around.' });
  await expect(desktop.getByRole('button', { name: 'New session' })).toBeEnabled();

  await laptop.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Devices' }).click();
  const row = laptop.locator('.device-row').filter({ hasText: 'desktop' });
  await row.getByRole('button', { name: 'Revoke' }).click();
  const revokedAt = Date.now();
  await laptop.getByRole('dialog', { name: 'Revoke device' }).getByRole('button', { name: 'Revoke desktop' }).click();

  await expect(desktop.getByRole('alert').filter({ hasText: 'This device was removed from the account' })).toBeVisible({ timeout: 10_000 });
  console.log(`the desktop said it was revoked ${Date.now() - revokedAt} ms after the click`);
  await expect(desktop.getByRole('button', { name: 'New session' })).toBeDisabled();
  await screenshots(desktop, (n) => testInfo.outputPath(n), 'device-revoked');
  // Stopped heartbeating: the refusal that told it, then no more (the interval is 1 s here).
  await new Promise((resolve) => setTimeout(resolve, 4000));
  const log = world.devices.desktop.process.stderr();
  expect((log.match(/heartbeat refused: device_revoked/g) ?? []).length).toBeLessThanOrEqual(1);
  expect(log).toContain('this device was revoked: it stops heartbeating and acting');
  await expect(row).toContainText('Revoked');
});
