/**
 * A session record truncated on disk while the laptop was stopped, and its workspace moved away:
 * after the restart the run view shows the session needing attention, with the reason and the
 * fix; once the workspace is back and the laptop restarted, the session runs again.
 */
import { renameSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { truncateSessionRecord } from '../dev-env/local-records.ts';
import { description, openSession, openWorld, runView, screenshots, startDemoSessionInUi, type World } from './support/devices.ts';

const TITLE = 'Untangle the config loader';

let world: World;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  world = await openWorld(browser);
});

test.afterAll(async () => {
  await world?.close();
});

/** Stops the laptop, runs `meanwhile`, starts it again and opens its new address in the same page. */
async function restartLaptop(page: Page, meanwhile: () => void): Promise<void> {
  const old = world.devices.laptop;
  await old.process.stop();
  meanwhile();
  const handle = await world.devices.startDevice({ name: old.name, profile: old.profile, workspaceRoot: old.workspaceRoot, env: old.env });
  world.devices.laptop = handle;
  await page.goto(handle.process.url);
  await openSession(page, TITLE);
}

test('a truncated record without its workspace shows why and the fix; with the workspace back the session runs', async () => {
  const testInfo = test.info();
  const page = world.laptop.page;
  const repo = world.devices.repo;
  await startDemoSessionInUi(page, { workspace: repo, title: TITLE, prompt: 'Map the config loader.' });
  await expect(page.getByRole('log', { name: 'Transcript' })).toContainText('Demo agent');
  const sessionId = (await world.devices.laptop.client.call('listSessions', {}))[0]!.id;
  const profile = world.devices.laptop.profile;

  await restartLaptop(page, () => {
    truncateSessionRecord(profile, sessionId);
    renameSync(repo, `${repo}-away`);
  });
  const view = runView(page);
  await expect(view.ownership).toContainText('Needs attention');
  await expect(view.ownership).toContainText("This device's record of the session could not be read");
  await expect(view.ownership).toContainText(`its workspace ${repo} is not on this device any more`);
  await expect(view.ownership).toContainText(`Fix: Put the workspace back at ${repo}`);
  await expect(view.ownership.getByRole('button', { name: 'Retry activation' })).toHaveCount(0);
  await expect(view.move).toBeDisabled();
  expect(await description(view.move)).toContain('needs attention');
  await expect(view.message).toBeDisabled();
  await screenshots(page, (n) => testInfo.outputPath(n), 'record-rebuilt-needs-attention');

  await restartLaptop(page, () => renameSync(`${repo}-away`, repo));
  await expect(view.ownership).toContainText('Owned here');
  await expect(view.message).toBeEnabled();
  await expect(page.getByRole('log', { name: 'Transcript' })).toContainText("laptop's record of the session could not be read");
});
