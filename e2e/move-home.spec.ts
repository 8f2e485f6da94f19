/**
 * Moving back goes home, as a person sees it: a session started on the laptop in ~/src/app (outside
 * its workspace root), moved to the desktop and back, runs in ~/src/app again. With an uncommitted
 * file there, the move back is blocked on the laptop's side before anything moves: the alert names
 * the checkout and the fix on both devices, and stays after a reload; "Move into a fresh clone"
 * moves it anyway, the transcript says where it went, and the file is still in the old checkout.
 * Each test starts from a checkout and a session of its own.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { openSession, runView, screenshots, startDemoSessionInUi, startMoveInUi, useWorld, type World } from './support/devices.ts';
import { movedTo, sessionOnLaptop } from './support/starting-points.ts';

const opened = useWorld();

/** A checkout on the laptop outside its workspace root, of an origin of its own named `name`, as ~/src/NAME would be. */
function homeCheckout(world: World, name: string): string {
  const { sandbox } = world.devices;
  return sandbox.clone(sandbox.makeOrigin(name), join(sandbox.root, 'src', name));
}

/**
 * A session titled `title` started on the laptop in a checkout of its own outside the workspace
 * root, moved to the desktop, with an uncommitted file left in that checkout; open on both pages.
 */
async function movedAwayWithWorkLeft(world: World, name: string, title: string): Promise<{ home: string }> {
  const home = homeCheckout(world, name);
  await movedTo(world, await sessionOnLaptop(world, { title, workspace: home }), 'desktop');
  world.devices.sandbox.writeFile(home, 'notes/draft.md', 'left on the laptop\n');
  for (const page of [world.laptop.page, world.desktop.page]) await openSession(page, title);
  return { home };
}

/** Waits until `page` shows the session owned here at `generation`. */
async function ownedAt(page: Page, generation: number): Promise<void> {
  const view = runView(page);
  await expect(view.ownership).toContainText(`generation ${generation}`, { timeout: 30_000 });
  await expect(view.move).toBeEnabled({ timeout: 30_000 });
}

test('moved away and back, the session runs in the checkout it started in, not in a clone under the root', async () => {
  const world = opened();
  const title = 'Tidy the importer';
  const home = homeCheckout(world, 'importer');
  const laptop = world.laptop.page;
  const desktop = world.desktop.page;
  await startDemoSessionInUi(laptop, { workspace: home, title, prompt: 'Read the importer.' });
  await expect(laptop.getByRole('log', { name: 'Transcript' })).toContainText('Demo agent');
  await openSession(desktop, title);

  await startMoveInUi(laptop, 'desktop');
  await ownedAt(desktop, 2);
  await expect(desktop.getByRole('main')).toContainText(join(world.devices.desktop.workspaceRoot, 'importer'));
  await startMoveInUi(desktop, 'laptop');
  await ownedAt(laptop, 3);
  await expect(laptop.getByRole('main')).toContainText(home);
  await expect(laptop.getByRole('log', { name: 'Transcript' })).not.toContainText('now runs in');
});

test('with uncommitted work in that checkout the move back is blocked on the laptop, on both devices, across a reload', async () => {
  const world = opened();
  const testInfo = test.info();
  const title = 'Tidy the exporter';
  const { home } = await movedAwayWithWorkLeft(world, 'exporter', title);
  const laptop = world.laptop.page;
  const desktop = world.desktop.page;

  await startMoveInUi(desktop, 'laptop');
  const sentence = `laptop's checkout ${home}, which this session continues in there, has 1 uncommitted change.`;
  for (const page of [desktop, laptop]) {
    const alert = runView(page).blocked;
    await expect(alert).toBeVisible({ timeout: 30_000 });
    await expect(alert).toContainText(sentence);
    await expect(alert).toContainText(`git -C ${home} stash -u`);
  }
  await expect(runView(desktop).ownership).toContainText('generation 2');
  await screenshots(desktop, (n) => testInfo.outputPath(n), 'move-blocked-by-target-checkout');

  // The blocked state is the session's: a reload shows it again.
  await desktop.reload();
  await openSession(desktop, title);
  await expect(runView(desktop).blocked).toContainText(sentence);
});

test('moved into a fresh clone when asked: the transcript says where, and the old checkout keeps its work', async () => {
  const world = opened();
  const { home } = await movedAwayWithWorkLeft(world, 'loader', 'Tidy the loader');
  const laptop = world.laptop.page;
  const desktop = world.desktop.page;
  // The move back, blocked by the work left in the laptop's checkout.
  await startMoveInUi(desktop, 'laptop');
  await expect(runView(desktop).blocked).toBeVisible({ timeout: 30_000 });

  await runView(desktop).blocked.getByRole('button', { name: 'Move into a fresh clone on laptop' }).click();
  await ownedAt(laptop, 3);
  const fresh = join(world.devices.laptop.workspaceRoot, 'loader');
  await expect(laptop.getByRole('main')).toContainText(fresh);
  const note = `On laptop the session now runs in ${fresh}, not in ${home}: as asked, laptop cloned it afresh and left ${home} as it was.`;
  for (const page of [laptop, desktop]) {
    await expect(page.getByRole('log', { name: 'Transcript' })).toContainText(note);
    await expect(runView(page).blocked).toHaveCount(0);
  }
  expect(existsSync(join(home, 'notes', 'draft.md'))).toBe(true);
  expect(readFileSync(join(home, 'notes', 'draft.md'), 'utf8')).toBe('left on the laptop\n');
});
