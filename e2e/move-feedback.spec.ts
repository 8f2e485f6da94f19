/**
 * What a move tells the user while it runs and when it ends, in Chromium with the notifications
 * permission granted: the target's fetch of a large push shows its progress in the stepper (git's
 * own figures), and a completed or blocked move raises a desktop notification naming the session and
 * the device, whose click opens the session's run view. Each test starts from a session of its own.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import {
  clickNotice,
  expectMoveWatchable,
  noticesOf,
  openSession,
  openWorld,
  runView,
  screenshots,
  startDemoSessionInUi,
  startMoveInUi,
  type World,
} from './support/devices.ts';
import { holdAt } from '../dev-env/step-holds.ts';
import { movedTo, ownRepo, sessionOnLaptop } from './support/starting-points.ts';

let world: World;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  // A target held after its fetch waits for the test, however long a loaded machine takes to look
  // at the move first: no prepare deadline ends the move before it.
  const env = { BATON_PREPARE_TIMEOUT_MS: '120000' };
  world = await openWorld(browser, { laptop: env, desktop: env }, { notifications: true });
});

test.afterAll(async () => {
  await world?.close();
});

/** The notifications `page` has raised about the session titled `title` (other tests' sessions raise theirs). */
async function noticesAbout(page: Page, title: string): Promise<{ title: string; body: string }[]> {
  return (await noticesOf(page)).filter((notice) => notice.body.includes(`“${title}”`));
}

/** Records, in the page, every text the stepper's progress bar shows; returns a reader. */
async function watchProgress(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { __progress: string[] }).__progress = seen;
    new MutationObserver(() => {
      const text = document.querySelector('[aria-current="step"] progress')?.getAttribute('aria-valuetext');
      if (text && seen.at(-1) !== text) seen.push(text);
    }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  return () => page.evaluate(() => (window as unknown as { __progress: string[] }).__progress);
}

test('the target’s fetch of a large push shows its progress under the current step, bytes and percent, and in its log', async () => {
  const testInfo = test.info();
  // The world's own repository "app" (no other test uses it), whose name the progress shows.
  const { sandbox, repo, origin } = world.devices;
  // The desktop has a clone already, so its prepare step fetches the push into it.
  sandbox.clone(origin, join(world.devices.desktop.workspaceRoot, 'app'));
  writeFileSync(join(repo, 'assets.bin'), randomBytes(24 * 1024 * 1024));
  sandbox.git(repo, ['add', 'assets.bin']);
  sandbox.git(repo, ['commit', '-q', '-m', 'Add the assets']);
  sandbox.push(repo);

  const laptopPage = world.laptop.page;
  const title = 'Ship the asset pipeline';
  await startDemoSessionInUi(laptopPage, { workspace: repo, title, prompt: 'Check the asset pipeline.' });
  await expect(laptopPage.getByRole('log', { name: 'Transcript' })).toContainText('Demo agent');
  const desktopPage = world.desktop.page;
  await openSession(desktopPage, title);
  const readProgress = await watchProgress(desktopPage);

  // The desktop holds after its prepare work, so the finished fetch stays under the current step.
  const release = holdAt(world.devices.desktop, 'sending-target-prepared');
  await startMoveInUi(laptopPage, 'desktop');
  const desktop = runView(desktopPage);
  await expect(desktop.currentStep).toHaveAttribute('data-state', 'requested');
  const bar = desktop.currentStep.getByRole('progressbar', { name: 'Fetching app' });
  await expect(bar).toHaveAttribute('aria-valuenow', '100');
  await expect(bar).toHaveAttribute('aria-valuetext', /^Fetching app — 2\d\.\d MiB, 100%$/);
  await expect(desktop.currentStep).toContainText(/Fetching app — 2\d\.\d MiB, 100%/);
  await expect(bar).toBeInViewport({ ratio: 1 });
  await screenshots(desktopPage, (n) => testInfo.outputPath(n), 'fetch-progress');
  const shown = await readProgress();
  console.log(`the stepper showed: ${shown.join(' | ')}`);
  expect(shown[0]).toBe('Fetching app…');
  expect(shown.at(-1)).toMatch(/^Fetching app — 2\d\.\d MiB, 100%$/);
  expect(world.devices.desktop.process.stderr()).toMatch(/handoff \S+: fetch app: 2\d\.\d MiB of 2\d\.\d MiB \(100%\)/);
  release();

  await expect(desktop.ownership).toContainText('generation 2');
  await expect(desktop.currentStep).toHaveCount(0);
});

test('a completed move raises a desktop notification on both devices naming the session and the device; a click opens its run view', async () => {
  const title = 'Ship the release notes';
  const sessionId = await sessionOnLaptop(world, { title, workspace: ownRepo(world, 'notes') });
  for (const page of [world.laptop.page, world.desktop.page]) await openSession(page, title);
  await movedTo(world, sessionId, 'desktop');
  // The move completed while both pages had the session open: each raised one.
  for (const page of [world.laptop.page, world.desktop.page]) {
    await expect
      .poll(() => noticesAbout(page, title))
      .toEqual([{ title: 'Move completed', body: `“${title}” is now on desktop (moved from laptop).` }]);
  }
  const page = world.laptop.page;
  await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Devices' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Devices' })).toBeVisible();
  await clickNotice(
    page,
    (await noticesOf(page)).findIndex((notice) => notice.body.includes(`“${title}”`)),
  );
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
  await expect(runView(page).ownership).toContainText('generation 2');
});

test('a blocked move raises a desktop notification naming the session, both devices and the reason', async () => {
  const title = 'Ship the changelog';
  const { workspace } = await movedTo(world, await sessionOnLaptop(world, { title, workspace: ownRepo(world, 'changelog') }), 'desktop');
  const page = world.desktop.page;
  await openSession(page, title);
  await expect(runView(page).message).toBeEnabled();
  writeFileSync(join(workspace, 'scratch.txt'), 'not committed\n');
  await startMoveInUi(page, 'laptop');
  await expect(runView(page).blocked).toContainText('dirty_tree');
  await expect
    .poll(async () => (await noticesAbout(page, title)).at(-1))
    .toEqual({
      title: 'Move blocked',
      body: expect.stringMatching(new RegExp(`^“${title}” stays on desktop; moving it to laptop is blocked: .*uncommitted`)),
    });
});

test('while a move runs the owner, generation, current step, Move and Cancel stay in view in a half-screen window and at 720×600', async () => {
  const title = 'Ship the installer';
  await movedTo(world, await sessionOnLaptop(world, { title, workspace: ownRepo(world, 'installer') }), 'desktop');
  const page = world.desktop.page;
  await openSession(page, title);
  const release = holdAt(world.devices.laptop, 'target-step-at-requested');
  await startMoveInUi(page, 'laptop');
  await expect(runView(page).currentStep).toHaveAttribute('data-state', 'requested');
  await expectMoveWatchable(page);
  release();
  await expect(runView(page).ownership).toContainText('generation 3');
});
