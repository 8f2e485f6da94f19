/**
 * "Needs attention" in the run view: the checkpoint body is tampered with in the backend's blob
 * store while the target is held before its claim (before it receives the body), so activation
 * fails after the transfer. The
 * handoff ends cancelled with its reason, the target keeps ownership at generation 2, raises a desktop
 * notification (the permission is granted here) and offers "Retry activation"; once the body is
 * restored, Retry activation completes the move.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { backendBlobFiles } from '../dev-env/two-devices.ts';
import { expect, test } from '@playwright/test';
import {
  clickNotice,
  description,
  noticesOf,
  openSession,
  startDemoSessionInUi,
  openWorld,
  runView,
  screenshots,
  type World,
} from './support/devices.ts';
import { holdAt } from '../dev-env/step-holds.ts';

const TITLE = 'Tidy the release notes';

let world: World;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  world = await openWorld(browser, {}, { notifications: true });
});

test.afterAll(async () => {
  await world?.close();
});

test('an activation that fails after the transfer leaves the target owning the session, needing attention; Retry activation completes it once the body is intact', async () => {
  const testInfo = test.info();
  const laptopPage = world.laptop.page;
  const desktopPage = world.desktop.page;
  await startDemoSessionInUi(laptopPage, { workspace: world.devices.repo, title: TITLE, prompt: 'Group the release notes by area.' });
  const laptop = runView(laptopPage);
  await expect(laptopPage.getByRole('log', { name: 'Transcript' })).toContainText('Demo agent');

  await openSession(desktopPage, TITLE);
  const desktop = runView(desktopPage);
  await expect(desktop.ownership).toContainText('generation 1');

  // The desktop holds before its claim (and its receipt of the body) until the test has tampered with the body.
  const release = holdAt(world.devices.desktop, 'target-step-at-source-relinquished-and-checkpointed');
  await laptop.move.click();
  const dialog = laptopPage.getByRole('dialog', { name: 'Move session' });
  await expect(dialog.getByRole('radio', { name: 'desktop' })).toBeEnabled();
  await dialog.getByRole('radio', { name: 'desktop' }).check();
  await dialog.getByRole('button', { name: 'Start move' }).click();

  // The desktop holds: the checkpoint is uploaded, not yet received, ownership not yet moved. Flip one byte of the body.
  await expect(desktop.currentStep).toHaveAttribute('data-state', 'source-relinquished-and-checkpointed');
  const blobs = backendBlobFiles(world.devices.backendData);
  expect(blobs).toHaveLength(1);
  const blob = blobs[0]!;
  const intact = readFileSync(blob);
  const tampered = Buffer.from(intact);
  tampered[Math.floor(tampered.length / 2)]! ^= 0x01;
  writeFileSync(blob, tampered);
  release();

  await expect(desktop.ownership).toContainText('Needs attention');
  const retry = desktop.ownership.getByRole('button', { name: 'Retry activation' });
  await expect(retry).toBeVisible();
  await expect(desktop.currentStep).toHaveCount(0);
  await expect(desktop.ownership).toContainText('Moved here from laptop; activation failed.');
  await expect(desktop.ownership).toContainText('digest_mismatch');
  await expect(desktop.ownership).toContainText('desktop');
  await expect(desktop.ownership).toContainText('generation 2');
  await expect(desktop.message).toBeDisabled();
  await expect(desktop.move).toBeDisabled();
  for (const page of [laptopPage, desktopPage]) {
    const history = page.getByRole('region', { name: 'Handoff history' });
    await expect(history).toContainText('moved · activation failed');
    await expect(history).toContainText('digest_mismatch');
  }
  await expect(laptop.ownership).toContainText('desktop');
  await expect(laptop.ownership).toContainText('generation 2');
  await expect(laptop.message).toBeDisabled();
  await expect(laptop.ownership).toContainText('Moved to desktop, whose activation failed.');
  expect(await description(desktop.move)).toContain('needs attention');
  await screenshots(desktopPage, (n) => testInfo.outputPath(n), 'needs-attention');
  // The desktop raised a desktop notification (the laptop none); clicking it opens the session there.
  await expect
    .poll(() => noticesOf(desktopPage))
    .toEqual([
      {
        title: 'Needs attention',
        body: `“${TITLE}” needs attention on desktop: The checkpoint body does not match its content address (digest_mismatch).`,
      },
    ]);
  expect(await noticesOf(laptopPage)).toEqual([]);
  await desktopPage.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Devices' }).click();
  await clickNotice(desktopPage, 0);
  await expect(desktopPage.getByRole('heading', { level: 1, name: TITLE })).toBeVisible();

  // Still tampered: retrying says why and changes nothing.
  await retry.click();
  await expect(desktop.ownership.locator('.attention-note')).toContainText('does not match its content address');
  await expect(desktop.ownership).toContainText('Needs attention');

  writeFileSync(blob, intact);
  await retry.click();
  await expect(retry).toBeHidden();
  await expect(desktop.ownership).toContainText('Owned here');
  await expect(desktop.ownership).toContainText('activation failed, then succeeded on retry');
  await expect(desktopPage.getByRole('log', { name: 'Transcript' })).toContainText(
    'Activation retried on desktop and succeeded: the session resumed by importing its checkpoint (no drift).',
  );
  await expect(desktop.ownership).toContainText('generation 2');
  await expect(desktop.message).toBeEnabled();
  await expect(desktop.move).toBeEnabled();
  await expect(laptop.message).toBeDisabled();
  await desktop.message.fill('Carry on here.');
  await desktop.message.press('Enter');
  await expect(desktopPage.getByRole('log', { name: 'Transcript' })).toContainText('Carry on here.');
  await screenshots(desktopPage, (n) => testInfo.outputPath(n), 'retried');
});
