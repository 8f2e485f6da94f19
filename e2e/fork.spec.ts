/**
 * Fork from here through the UI, against a real backend and two headless devices on real repos: the
 * laptop's session moves to the desktop; on the desktop, the handoff history's Fork from here makes
 * a new session from that move's checkpoint — its run view opens, generation 1, owned there, its
 * history saying where it came from — while the original stays as it was; then the fork moves to
 * the laptop like any session (its branch was pushed when it was made, so nothing blocks it).
 */
import { expect, test } from '@playwright/test';
import { openSession, runView, startDemoSessionInUi, startMoveInUi, useWorld } from './support/devices.ts';

const TITLE = 'Try the parser another way';

const world = useWorld();

test('Fork from here makes a new session from the move, and the fork moves', async () => {
  const { laptop, desktop, devices } = world();
  await startDemoSessionInUi(laptop.page, { workspace: devices.repo, title: TITLE, prompt: 'Look at the parser.' });
  await expect(runView(laptop.page).message).toBeEnabled();
  await startMoveInUi(laptop.page, 'desktop');
  await expect(runView(laptop.page).ownership).toContainText('generation 2', { timeout: 30_000 });

  await openSession(desktop.page, TITLE);
  const original = runView(desktop.page);
  await expect(original.ownership).toContainText('generation 2');
  const history = desktop.page.getByRole('region', { name: 'Handoff history' });
  await history.getByRole('button', { name: 'Fork from here' }).click();

  // The fork's run view opens: its own title, generation 1 on the desktop, a note of where it came from.
  await desktop.page.getByRole('heading', { level: 1, name: `${TITLE} (fork)` }).waitFor({ timeout: 30_000 });
  const fork = runView(desktop.page);
  await expect(fork.ownership).toContainText('generation 1');
  await expect(fork.ownership.locator('.owner-name')).toHaveText('desktop');
  await expect(fork.transcript).toContainText(`Forked from "${TITLE}"`);
  await expect(fork.transcript).toContainText('from laptop');
  await expect(fork.transcript).toContainText(', pushed.');
  await expect(fork.message).toBeEnabled();

  // The original is as it was: generation 2 on the desktop, no new move.
  const sessions = await desktop.device.client.call('listSessions', {});
  const originalId = sessions.find((s) => s.title === TITLE)!.id;
  const forkId = sessions.find((s) => s.title === `${TITLE} (fork)`)!.id;
  expect(await desktop.device.client.call('getSession', { sessionId: originalId })).toMatchObject({ generation: 2, isOwner: true });
  expect(await desktop.device.client.call('handoffHistory', { sessionId: originalId })).toHaveLength(1);

  // The fork moves to the laptop, where it runs at generation 2; the original stays on the desktop.
  await startMoveInUi(desktop.page, 'laptop');
  await expect(fork.ownership).toContainText('generation 2', { timeout: 30_000 });
  await expect(fork.ownership.locator('.owner-name')).toHaveText('laptop');
  await openSession(laptop.page, `${TITLE} (fork)`);
  await expect(runView(laptop.page).message).toBeEnabled();
  expect(await laptop.device.client.call('getSession', { sessionId: forkId })).toMatchObject({ generation: 2, isOwner: true });
  expect(await desktop.device.client.call('getSession', { sessionId: originalId })).toMatchObject({ generation: 2, isOwner: true });
});
