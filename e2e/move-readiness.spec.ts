/**
 * What a person sees before and around a move, on real devices: the Move dialog checks readiness
 * as it opens (an uncommitted file and an unpushed commit, fixed in place, then "Ready to move"); a
 * blocked move is part of the session's state, so its alert survives a reload and turns into "Ready
 * to move" with Move now; a move stuck on its target says what it waits for, then that it timed out,
 * why and what was kept, and Try again moves it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { holdAt } from '../dev-env/step-holds.ts';
import { openSession, openWorld, runView, startDemoSessionInUi, startMoveInUi, type World } from './support/devices.ts';
import { movedTo, ownRepo, sessionOnLaptop } from './support/starting-points.ts';
/** Short enough to watch a move time out, long enough for a real prepare on a busy machine. */
const PREPARE_TIMEOUT_MS = 10_000;

let world: World;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  const env = { BATON_PREPARE_TIMEOUT_MS: String(PREPARE_TIMEOUT_MS) };
  world = await openWorld(browser, { laptop: env, desktop: env });
});

test.afterAll(async () => {
  await world?.close();
});

/** The text of the ownership strip as it is rendered (closed Details are not). */
const shownText = (page: Page) => runView(page).ownership.evaluate((node: HTMLElement) => node.innerText);

test('the Move dialog shows readiness as it opens, with Commit and Push in place, then "Ready to move"', async () => {
  const { sandbox } = world.devices;
  const repo = ownRepo(world, 'readiness');
  const page = world.laptop.page;
  await startDemoSessionInUi(page, { workspace: repo, title: 'Tidy the parser', prompt: 'Tidy the parser.' });
  await expect(page.getByRole('log', { name: 'Transcript' })).toContainText('Demo agent');
  sandbox.commitFile(repo, 'src/parser.ts', 'export const parse = (s: string) => s.trim();\n', 'Add the parser');
  writeFileSync(join(repo, 'notes.md'), 'trim before split\n');

  await runView(page).move.click();
  const dialog = page.getByRole('dialog', { name: 'Move session' });
  const readiness = dialog.getByRole('region', { name: /this device/ });
  // Before Start: the check ran as the dialog opened.
  await expect(readiness).toContainText('1 uncommitted file · 1 unpushed commit');
  await expect(readiness).not.toContainText('Ready to move');
  await expect(dialog.getByRole('radio', { name: 'desktop' })).toHaveAccessibleDescription('Online now and ready to receive it.');

  await readiness.getByLabel('Commit message').fill('Note the parser fix');
  await readiness.getByRole('button', { name: 'Commit' }).click();
  await expect(readiness).toContainText('2 unpushed commits');
  await readiness.getByRole('button', { name: 'Push' }).click();
  await expect(readiness).toContainText('Ready to move');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
});

test('a blocked move survives a reload, then turns into "Ready to move" whose Move now moves it', async () => {
  const title = 'Keep the scratch file';
  const repo = ownRepo(world, 'blocked');
  await sessionOnLaptop(world, { title, workspace: repo });
  const page = world.laptop.page;
  await openSession(page, title);
  const view = runView(page);
  writeFileSync(join(repo, 'scratch.txt'), 'not committed\n');
  await startMoveInUi(page, 'desktop');
  await expect(view.blocked).toContainText('1 uncommitted file');
  await expect(view.blocked).toContainText('scratch.txt');

  await page.reload();
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
  await expect(view.blocked).toContainText('scratch.txt');
  await expect(view.ownership).toContainText('Move blocked');
  // The codes stay in Details: the alert as shown says what is wrong in words.
  expect(await view.blocked.evaluate((node: HTMLElement) => node.innerText)).not.toContain('dirty_tree');

  await view.blocked.getByLabel('Commit message').fill('Keep the scratch file');
  await view.blocked.getByRole('button', { name: 'Commit' }).click();
  await view.blocked.getByRole('button', { name: 'Push' }).click();
  await expect(view.readyToMove).toContainText('Nothing blocks moving it from this device to desktop now.');
  await view.readyToMove.getByRole('button', { name: 'Move now' }).click();
  await expect(view.readyToMove).toBeHidden();
  await expect(view.ownership).toContainText('Running on desktop');
  await expect(view.ownership).toContainText('generation 2');
  await page.reload();
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
  await expect(view.blocked).toHaveCount(0);
});

test('a move stuck on its target says what it waits for, then why it stopped and what was kept; Try again moves it', async () => {
  const title = 'Move the parser back';
  await movedTo(world, await sessionOnLaptop(world, { title, workspace: ownRepo(world, 'stuck') }), 'desktop');
  await openSession(world.laptop.page, title);
  const page = world.desktop.page;
  const view = runView(page);
  await openSession(page, title);
  await expect(view.ownership).toContainText('Running on desktop — this device');

  const release = holdAt(world.devices.laptop, 'target-step-at-requested');
  await startMoveInUi(page, 'laptop');
  await expect(view.currentStep).toContainText('Preparing laptop');
  await expect(view.currentStep).toContainText('Waiting for laptop to answer — is Baton running there and online?', { timeout: 9000 });
  await expect(view.currentStep.locator('.step-time')).toHaveText(/^\d+(\.\d)? s$/);

  // The prepare deadline passes: the move ends, saying why in words and what was kept.
  await expect(view.ownership).toContainText('laptop did not get ready in time', { timeout: PREPARE_TIMEOUT_MS + 10_000 });
  await expect(view.ownership).toContainText('The session stays on desktop; nothing was lost.');
  const shown = await shownText(page);
  expect(shown).not.toContain('target_timeout');
  expect(shown).not.toContain('requested');
  await expect(view.ownership.locator('details')).toContainText('target_timeout');
  release();

  await view.ownership.getByRole('button', { name: 'Try again' }).click();
  await expect(view.ownership).toContainText('Running on laptop');
  await expect(view.ownership).toContainText('generation 3');
  await expect(runView(world.laptop.page).message).toBeEnabled();
});
