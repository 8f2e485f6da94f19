/**
 * First run, as a person does it: two fresh headless devices (no account, no flags) show the set-up
 * screen; the laptop creates an account on the backend, makes an invite on its devices screen, and
 * the desktop joins with it (pasted with line breaks, as from a wrapped terminal) and is approved by
 * the running laptop. A bad invite is refused next to its field, saying where to get a new one, and
 * the screen stays.
 */
import { expect, test, type Page } from '@playwright/test';
import { screenshots } from './support/devices.ts';
import { startFreshDevices, type FreshDevices } from './support/fresh-device.ts';

let fresh: FreshDevices;

test.beforeAll(async () => {
  fresh = await startFreshDevices(['laptop', 'desktop'], 'baton-e2e-first-run-');
});

test.afterAll(async () => {
  await fresh?.close();
});

async function openFresh(browserPage: () => Promise<Page>, url: string): Promise<Page> {
  const page = await browserPage();
  await page.goto(url);
  await expect(page.getByRole('heading', { level: 1, name: 'Set up Baton on this device' })).toBeVisible();
  return page;
}

test('a fresh device creates an account; another joins it with an invite made on the first', async ({ browser }) => {
  const laptop = await openFresh(async () => (await browser.newContext()).newPage(), fresh.devices[0]!.url);
  const desktop = await openFresh(async () => (await browser.newContext()).newPage(), fresh.devices[1]!.url);
  await screenshots(laptop, (n) => test.info().outputPath(n), 'first-run');

  // The laptop creates the account; the backend address and the device's name are offered already.
  const create = laptop.getByRole('region', { name: 'Create an account' });
  const addresses = create.getByRole('textbox', { name: 'Backend addresses' });
  await expect(addresses).toHaveValue(fresh.backend.url);
  await expect(create.getByRole('textbox', { name: 'Device name' })).toHaveValue('laptop');
  // A malformed list is refused in words before anything is sent.
  await addresses.fill(`${fresh.backend.url}, localhost:8787`);
  await create.getByRole('button', { name: 'Create account' }).click();
  await expect(create.getByText('"localhost:8787" is not an http:// or https:// address')).toBeVisible();
  await expect(addresses).toHaveAttribute('aria-invalid', 'true');
  await addresses.fill(fresh.backend.url);
  await create.getByRole('button', { name: 'Create account' }).click();
  await expect(laptop.getByRole('button', { name: 'New session' })).toBeVisible();

  // A bad invite is refused in words, and the desktop stays on the set-up screen.
  const join = desktop.getByRole('region', { name: 'Join with an invite' });
  await join.getByRole('textbox', { name: 'Invite' }).fill('baton-invite-v1.not-a-real-invite');
  await expect(join.getByRole('textbox', { name: 'Device name' })).toHaveValue('desktop');
  await join.getByRole('button', { name: 'Join' }).click();
  const inviteField = join.getByRole('textbox', { name: 'Invite' });
  await expect(inviteField).toHaveAttribute('aria-invalid', 'true');
  await expect(inviteField).toHaveAccessibleDescription(/invite.*Devices → Add a device/);
  await expect(desktop.getByRole('heading', { level: 1, name: 'Set up Baton on this device' })).toBeVisible();

  // The laptop makes an invite on its devices screen; the desktop joins with it.
  await laptop.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Devices' }).click();
  await laptop.getByRole('button', { name: 'Add a device' }).click();
  const invite = await laptop.getByRole('textbox', { name: 'Invite' }).inputValue();
  expect(invite).toMatch(/\S{40,}/);
  // Pasted as from a wrapped terminal: a line break and indentation inside, spaces around.
  await join.getByRole('textbox', { name: 'Invite' }).fill(`  ${invite.slice(0, 30)}\n    ${invite.slice(30)}\n`);
  await join.getByRole('button', { name: 'Join' }).click();
  await expect(desktop.getByRole('button', { name: 'New session' })).toBeVisible();

  // Both devices are in the account, each online.
  const list = laptop.getByRole('region', { name: 'Enrolled devices' }).getByRole('listitem');
  await expect(list).toHaveCount(2);
  await expect(list.filter({ hasText: 'desktop' })).toContainText('Online');
  await desktop.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Devices' }).click();
  const seenFromDesktop = desktop.getByRole('region', { name: 'Enrolled devices' }).getByRole('listitem');
  await expect(seenFromDesktop.filter({ hasText: 'desktop' })).toContainText('this device');
  await expect(seenFromDesktop.filter({ hasText: 'laptop' })).toBeVisible();
});
