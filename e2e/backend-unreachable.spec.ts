/**
 * A device that cannot reach its sync backend says so: the backend process is stopped under a
 * running session, and within a few seconds the page shows "Can't reach the sync backend (tried …)
 * — showing what this device last knew", with Move and New session disabled for that reason;
 * restarted, the notice goes and Move is enabled again. The devices screen's "Sync backend"
 * settings point the device at other addresses.
 */
import { expect, test } from '@playwright/test';
import { description, runView, screenshots, startDemoSessionInUi, useWorld } from './support/devices.ts';

const opened = useWorld();

test('the page says within seconds that the backend is unreachable, disables what needs it, and clears when it answers', async () => {
  const world = opened();
  const { page } = world.laptop;
  await startDemoSessionInUi(page, { workspace: world.devices.repo, title: 'Reachability', prompt: 'Look around.' });
  const view = runView(page);
  await expect(view.move).toBeEnabled();
  const notice = page.getByRole('status').filter({ hasText: "Can't reach the sync backend" });
  await expect(notice).toHaveCount(0);

  const stoppedAt = Date.now();
  await world.devices.backend.stop(5000);
  await expect(notice).toBeVisible({ timeout: 5000 });
  const shownAfterMs = Date.now() - stoppedAt;
  console.log(`the unreachable notice showed ${shownAfterMs} ms after the backend process was stopped`);
  await expect(notice).toContainText(`(tried ${world.devices.backendUrl}) — showing what this device last knew.`);
  await expect(view.move).toBeDisabled();
  expect(await description(view.move)).toContain("Can't reach the sync backend");
  await expect(page.getByRole('button', { name: 'New session' })).toBeDisabled();
  // The cached session is still shown, under the notice.
  await expect(page.getByRole('heading', { level: 1, name: 'Reachability' })).toBeVisible();
  await screenshots(page, (n) => test.info().outputPath(n), 'backend-unreachable');

  const restartedAt = Date.now();
  await world.devices.restartBackend();
  await expect(notice).toHaveCount(0, { timeout: 10_000 });
  console.log(`the notice went ${Date.now() - restartedAt} ms after the backend was started again`);
  await expect(view.move).toBeEnabled();
  await expect(page.getByRole('button', { name: 'New session' })).toBeEnabled();
});

test('the Sync backend settings list the addresses, refuse a malformed list in words, and use a new list at once', async () => {
  const world = opened();
  const { page } = world.laptop;
  const backendUrl = world.devices.backendUrl;
  await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Devices' }).click();
  const settings = page.getByRole('region', { name: 'Sync backend' });
  await expect(settings.getByRole('listitem')).toHaveText([`${backendUrl} (in use)`]);
  const field = settings.getByRole('textbox', { name: 'Backend addresses' });
  await field.fill(`${backendUrl},ftp://elsewhere`);
  await settings.getByRole('button', { name: 'Save addresses' }).click();
  await expect(settings.getByText('"ftp://elsewhere" is not an http:// or https:// address')).toBeVisible();

  // A dead first address: the device fails over to the second and says which one it uses.
  const dead = 'http://127.0.0.1:9';
  await field.fill(`${dead}, ${backendUrl}`);
  await settings.getByRole('button', { name: 'Save addresses' }).click();
  await expect(settings.getByText('Saved; in use now.')).toBeVisible();
  await expect(settings.getByRole('listitem')).toHaveText([dead, `${backendUrl} (in use)`]);
  await expect(settings).toContainText(`Connected through ${backendUrl}.`);
  await expect(page.getByRole('status').filter({ hasText: "Can't reach the sync backend" })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Add a device' })).toBeEnabled();
  await screenshots(page, (n) => test.info().outputPath(n), 'sync-backend-settings');
});
