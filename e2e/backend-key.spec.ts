/**
 * Over HTTPS with the backend's own self-signed key, as a person sees it: the laptop pinned the key
 * when it created the account and the desktop took it from its invite, and a session moves between
 * them. Then the backend's key changes: each device refuses it, sending it nothing, and says so under
 * Devices → Sync backend with both fingerprints; an explicit re-pin there brings each back, and a
 * session moves again. Each test starts from a session of its own.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { announcedKey } from '../dev-env/process-harness.ts';
import { openSession, openWorld, runView, screenshots, startDemoSessionInUi, startMoveInUi, type World } from './support/devices.ts';
import { movedTo, ownRepo, sessionOnLaptop } from './support/starting-points.ts';

let world: World;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  world = await openWorld(browser, {}, { tls: true });
});

test.afterAll(async () => {
  await world?.close();
});

/** Waits until both run views show `owner` at `generation`. */
async function bothShowOwner(owner: string, generation: number): Promise<void> {
  for (const { page } of [world.laptop, world.desktop]) {
    const view = runView(page);
    await expect(view.ownership).toContainText(owner, { timeout: 30_000 });
    await expect(view.ownership).toContainText(`generation ${generation}`);
  }
}

/** The Backend key group of the devices screen's Sync backend card. */
async function backendKeyOn(page: Page) {
  await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Devices' }).click();
  return page.getByRole('region', { name: 'Sync backend' }).getByRole('group', { name: 'Backend key' });
}

test('moves a session over HTTPS, both devices pinning the self-signed key', async () => {
  const { devices } = world;
  const title = 'Tighten the config loader';
  expect(devices.backendUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  expect(devices.backendPins).toHaveLength(1);
  const repo = ownRepo(world, 'config');
  devices.sandbox.commitFile(repo, 'src/config.ts', 'export const load = () => ({});\n', 'Add the config loader');
  devices.sandbox.push(repo);
  await startDemoSessionInUi(world.laptop.page, { workspace: repo, title, prompt: 'Read the config loader.' });
  await openSession(world.desktop.page, title);
  await startMoveInUi(world.laptop.page, 'desktop');
  await bothShowOwner('desktop', 2);
  await expect(runView(world.desktop.page).message).toBeEnabled();
  for (const { page } of [world.laptop, world.desktop]) {
    const key = await backendKeyOn(page);
    await expect(key.getByRole('list', { name: 'Pinned keys' })).toHaveText(devices.backendPins[0]!);
    await expect(key.getByRole('alert')).toHaveCount(0);
  }
});

// Last: the backend's key it changes is the one the devices pinned when the world opened.
test("refuses the backend's new key with both fingerprints shown, until it is re-pinned under Devices → Sync backend", async () => {
  const { devices } = world;
  const title = 'Load the config once';
  await movedTo(world, await sessionOnLaptop(world, { title, workspace: ownRepo(world, 'loader') }), 'desktop');
  const old = devices.backendPins[0]!;
  // The backend is set up again with a new key of its own, at the same address.
  await devices.backend.stop(5000);
  rmSync(join(devices.backendData, 'tls-key.pem'));
  await devices.restartBackend();
  const fresh = announcedKey(devices.backend)!;
  expect(fresh).toMatch(/^sha256:/);
  expect(fresh).not.toBe(old);

  for (const { page } of [world.laptop, world.desktop]) {
    const key = await backendKeyOn(page);
    const alert = key.getByRole('alert');
    await expect(alert).toContainText('The backend presented a different key', { timeout: 30_000 });
    await expect(alert).toContainText(`Pinned${old}`);
    await expect(alert).toContainText(`Presented${fresh}`);
    if (page === world.laptop.page) {
      await alert.scrollIntoViewIfNeeded();
      await screenshots(page, (n) => test.info().outputPath(n), 'backend-key-refused');
    }
    await alert.getByRole('button', { name: 'Pin the presented key' }).click();
    await expect(key.getByRole('alert')).toHaveCount(0);
    await expect(key.getByRole('list', { name: 'Pinned keys' })).toHaveText(fresh);
  }

  // Both reach the backend again: the session moves back to the laptop.
  for (const { page } of [world.laptop, world.desktop]) await openSession(page, title);
  await startMoveInUi(world.desktop.page, 'laptop');
  await bothShowOwner('laptop', 3);
});
