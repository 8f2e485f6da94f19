/**
 * A remote URL with a password in it, as both devices' windows show it: the Move is refused at the
 * desktop's prepare (the remote does not answer), and the ownership strip on each device says why
 * with the remote redacted. No page text anywhere holds the password.
 */
import { expect, test } from '@playwright/test';
import { openSession, openWorld, runView, screenshots, startDemoSessionInUi, type World } from './support/devices.ts';

const TITLE = 'Ship the importer';
const PASSWORD = 'pa55-E2eSECRET';
const REMOTE = `http://builder:${PASSWORD}@127.0.0.1:9/acme/app.git`;
const REDACTED = 'http://builder:***@127.0.0.1:9/acme/app.git';

let world: World;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  world = await openWorld(browser);
});

test.afterAll(async () => {
  await world?.close();
});

test('a refused Move names the remote with its password redacted on both devices, and no page shows the password', async () => {
  const testInfo = test.info();
  const { sandbox, repo } = world.devices;
  // Pushed and tracking, then pointed at a remote whose URL carries a password (and does not answer).
  sandbox.git(repo, ['remote', 'set-url', 'origin', REMOTE]);
  const laptopPage = world.laptop.page;
  const desktopPage = world.desktop.page;
  await startDemoSessionInUi(laptopPage, { workspace: repo, title: TITLE, prompt: 'Read the importer.' });
  await expect(laptopPage.getByRole('log', { name: 'Transcript' })).toContainText('Demo agent');
  await openSession(desktopPage, TITLE);

  const laptop = runView(laptopPage);
  const desktop = runView(desktopPage);
  await laptop.move.click();
  const dialog = laptopPage.getByRole('dialog', { name: 'Move session' });
  await expect(dialog.getByRole('radio', { name: 'desktop' })).toBeEnabled();
  await dialog.getByRole('radio', { name: 'desktop' }).check();
  await dialog.getByRole('button', { name: 'Start move' }).click();

  // The target's refusal is the session's blocked move now: its alert tells it, on both devices.
  for (const view of [laptop, desktop]) {
    await expect(view.blocked).toContainText('target_cannot_open_workspace');
    await expect(view.blocked).toContainText(REDACTED);
  }
  await screenshots(laptopPage, (n) => testInfo.outputPath(n), 'redacted-remote');
  for (const page of [laptopPage, desktopPage]) {
    expect(await page.locator('body').innerText()).not.toContain(PASSWORD);
    expect(await page.content()).not.toContain(PASSWORD);
  }
});
