/**
 * Move here through the UI, against a real backend and two headless devices on real repos: the
 * desktop pulls the laptop's session to itself, and its agent is told it moved; and the laptop pulls
 * back a session the desktop runs, is blocked by a dirty tree on the desktop — the alert on both, the
 * fixes on the desktop, Check again on the laptop asking again — and moves it once nothing blocks.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { openSession, runView, startDemoSessionInUi, useWorld } from './support/devices.ts';
import { movedTo, ownRepo, sessionOnLaptop } from './support/starting-points.ts';

const world = useWorld();

test('Move here on the desktop moves the laptop session to it: both show the desktop as owner, the record says it asked', async () => {
  const { laptop, desktop } = world();
  const title = 'Pull the parser fix here';
  await startDemoSessionInUi(laptop.page, { workspace: ownRepo(world(), 'pull'), title, prompt: 'Look at the parser.' });
  await openSession(desktop.page, title);
  const here = runView(desktop.page);
  await expect(here.ownership).toContainText('Running on laptop');
  await expect(here.ownership).toContainText('use Move here');
  await here.ownership.getByRole('button', { name: 'Move here' }).click();

  for (const view of [here, runView(laptop.page)]) {
    await expect(view.ownership).toContainText('generation 2', { timeout: 30_000 });
    await expect(view.ownership.locator('.owner-name')).toHaveText('desktop');
  }
  await expect(here.message).toBeEnabled();
  await expect(here.ownership.getByRole('button', { name: 'Move here' })).toHaveCount(0);
  const sessionId = (await desktop.device.client.call('listSessions', {})).find((s) => s.title === title)!.id;
  const [move] = await desktop.device.client.call('handoffHistory', { sessionId });
  const desktopId = (await desktop.device.client.call('getStatus', {})).deviceId;
  expect(move).toMatchObject({ state: 'completed', initiatorDeviceId: desktopId, targetDeviceId: desktopId });

  // The agent is told it moved, with the first message there: from which device to which, and its workspace now.
  await here.message.fill('Carry on here.');
  await here.message.press('Enter');
  const transcript = desktop.page.getByRole('log', { name: 'Transcript' });
  await expect(transcript).toContainText('Baton told me: "Baton: this session just moved from the device "laptop" to "desktop"');
  const workspace = (await desktop.device.client.call('getSession', { sessionId }))!.workspace;
  await expect(transcript).toContainText(`Your workspace is now ${workspace}`);
});

test('a blocked Move here shows the alert on both devices; the fixes run on the owner and Check again asks again', async () => {
  const { laptop, desktop } = world();
  // A session the desktop took from the laptop, open on both.
  const title = 'Pull the parser fix back';
  const sessionId = await sessionOnLaptop(world(), { title, workspace: ownRepo(world(), 'pull-back') });
  const { workspace } = await movedTo(world(), sessionId, 'desktop');
  await openSession(laptop.page, title);
  await openSession(desktop.page, title);
  writeFileSync(join(workspace, 'notes-here.md'), 'parser: trim before split\n');
  const asker = runView(laptop.page);
  const owner = runView(desktop.page);
  await asker.ownership.getByRole('button', { name: 'Move here' }).click();

  for (const view of [asker, owner]) {
    await expect(view.blocked).toBeVisible({ timeout: 30_000 });
    await expect(view.blocked).toContainText('notes-here.md');
    await expect(view.blocked).toContainText('dirty_tree');
  }
  // On the asking device each fix is said to be made on the owner, and nothing acts here.
  await expect(asker.blocked).toContainText('Make each fix on desktop, where its files are.');
  await expect(asker.blocked.getByRole('button', { name: 'Commit' })).toHaveCount(0);
  // Nothing moved.
  for (const view of [asker, owner]) await expect(view.ownership).toContainText('generation 2');
  expect(await desktop.device.client.call('handoffHistory', { sessionId })).toHaveLength(1);

  // The owner commits; the asker sees what still blocks, and checking again asks the owner again.
  await owner.blocked.getByLabel('Commit message').fill('Note the parser fix');
  await owner.blocked.getByRole('button', { name: 'Commit' }).click();
  await expect(asker.blocked).toContainText('unpushed_commits');
  await expect(asker.blocked).not.toContainText('dirty_tree');
  await asker.blocked.getByRole('button', { name: 'Check again' }).click();
  await expect(asker.blocked).toContainText('unpushed_commits');
  expect(await desktop.device.client.call('handoffHistory', { sessionId })).toHaveLength(1);

  // The owner pushes: nothing blocks any more, and the owner moves it without being asked again.
  await owner.blocked.getByRole('button', { name: 'Push' }).click();
  for (const view of [asker, owner]) {
    await expect(view.ownership).toContainText('generation 3', { timeout: 30_000 });
    await expect(view.ownership.locator('.owner-name')).toHaveText('laptop');
  }
  await expect(asker.message).toBeEnabled();
  for (const view of [asker, owner]) await expect(view.blocked).toBeHidden();
});
