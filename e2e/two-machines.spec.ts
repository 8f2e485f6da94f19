/**
 * Baton on two machines, as a person sets it up: two hosts made of network namespaces joined by a
 * veth link (dev-env/two-hosts/: each its own loopback and address; made by root directly, or by a
 * normal user inside a user namespace of its own), each running `npm start` headless, each shown in a
 * Chromium that runs on that host (so 127.0.0.1 is that host's). On desk (host A) the set-up screen
 * creates an account, whose backend desk hosts; Devices lets other machines reach it and makes an
 * invite; the laptop (host B) starts with the invite alone (BATON_INVITE) and joins over the link,
 * hosting nothing. A session moves desk → laptop and back through the UI. Then desk stops, and the
 * laptop says it can't reach the backend on desk.
 */
import { expect, test, type Browser, type Page } from '@playwright/test';
import { openOnHost } from '../dev-env/two-hosts/host-browser.ts';
import { startTwoMachines, type Machine, type TwoMachines } from '../dev-env/two-hosts/two-machines.ts';
import { openSession, runView, startDemoSessionInUi, startMoveInUi } from './support/devices.ts';

const TITLE = 'Tidy the release notes';
let world: TwoMachines;
const browsers: Browser[] = [];

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  world = await startTwoMachines();
  console.log(`two hosts made by ${world.lab.madeBy}: desk at ${world.lab.a.address}, laptop at ${world.lab.b.address}`);
});

test.afterAll(async () => {
  for (const browser of browsers) await browser.close();
  await world?.close();
});

/** A Chromium running on `machine`'s host, showing its UI. */
async function openOn(machine: Machine): Promise<Page> {
  const { browser, page } = await openOnHost(machine, world.sandbox.root);
  browsers.push(browser);
  return page;
}

async function openDevices(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Devices' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Devices' })).toBeVisible();
}

/** Waits until `page`'s run view says the session runs on `owner` at `generation`. */
async function showsOwner(page: Page, owner: string, generation: number): Promise<void> {
  const view = runView(page);
  await expect(view.ownership).toContainText(`Running on ${owner}`, { timeout: 60_000 });
  await expect(view.ownership).toContainText(`generation ${generation}`);
}

let desk: Page;
let laptop: Page;

test('desk creates the account on a backend it hosts, lets other machines reach it and makes an invite', async () => {
  await world.desk.start();
  desk = await openOn(world.desk);
  await expect(desk.getByRole('heading', { level: 1, name: 'Set up Baton on this device' })).toBeVisible();
  const create = desk.getByRole('region', { name: 'Create an account' });
  await expect(create.getByRole('radio', { name: /On this device/ })).toBeChecked();
  await expect(create.getByRole('textbox', { name: 'Device name' })).toHaveValue('desk');
  await create.getByRole('button', { name: 'Create account' }).click();
  await expect(desk.getByRole('button', { name: 'New session' })).toBeVisible();

  await openDevices(desk);
  await expect(
    desk.getByText('Your sync backend runs on this device, desk. Other devices can move sessions only while desk is on.'),
  ).toBeVisible();
  const add = desk.getByRole('region', { name: 'Add a device' });
  await expect(add).toContainText('an invite made now works only for another device on this machine');
  await add.getByRole('button', { name: /other machines/ }).click();
  const addresses = add.getByRole('list', { name: 'Other machines reach your sync backend at:' });
  await expect(addresses.getByRole('listitem').first()).toHaveText(/^https:\/\/10\.10\.0\.1:\d+$/);
  await expect(add).toContainText("this machine's firewall must let TCP port");
  await add.getByRole('button', { name: 'Add a device' }).click();
  await expect(add.getByRole('textbox', { name: 'Invite' })).not.toHaveValue('');
});

test('the laptop starts with the invite alone and joins over the link, hosting no backend', async () => {
  const invite = await desk.getByRole('region', { name: 'Add a device' }).getByRole('textbox', { name: 'Invite' }).inputValue();
  await world.laptop.start({ BATON_INVITE: invite });
  laptop = await openOn(world.laptop);
  await expect(laptop.getByRole('button', { name: 'New session' })).toBeVisible();
  await openDevices(laptop);
  await expect(laptop.getByText('Your sync backend runs on desk.')).toBeVisible();
  const list = laptop.getByRole('region', { name: 'Enrolled devices' }).getByRole('listitem');
  await expect(list.filter({ hasText: 'desk' })).toContainText('Online');
  const settings = laptop.getByRole('region', { name: 'Sync backend' });
  await expect(settings.getByRole('list').first()).toContainText(`https://${world.lab.a.address}:`);
  await expect(desk.getByRole('region', { name: 'Add a device' })).toContainText('Used: laptop joined');
});

test('a session moves from desk to the laptop and back through the UI', async () => {
  world.sandbox.commitFile(world.repo, 'NOTES.md', '# Release notes\n', 'Start the release notes');
  world.sandbox.push(world.repo);
  await startDemoSessionInUi(desk, { workspace: world.repo, title: TITLE, prompt: 'Read the release notes.' });
  await expect(runView(desk).message).toBeEnabled();
  await openSession(laptop, TITLE);
  await startMoveInUi(desk, 'laptop');
  await showsOwner(laptop, 'laptop — this device', 2);
  await showsOwner(desk, 'laptop', 2);
  await expect(runView(laptop).message).toBeEnabled();

  await startMoveInUi(laptop, 'desk');
  await showsOwner(desk, 'desk — this device', 3);
  await showsOwner(laptop, 'desk', 3);
  await expect(runView(desk).message).toBeEnabled();
});

test("desk stops, and the laptop says it can't reach the backend on desk", async () => {
  expect(await world.desk.stop()).toBe(0);
  const notice = laptop.getByRole('status').filter({ hasText: "Can't reach the sync backend on desk (tried" });
  await expect(notice).toBeVisible({ timeout: 30_000 });
  await expect(notice).toContainText(`tried https://${world.lab.a.address}:`);
  await expect(notice).toContainText('desk may be off, asleep or on another network');
  await expect(runView(laptop).move).toBeDisabled();
});
