/**
 * Moving back goes home, as a person sees it: a session started on the laptop in ~/src/app (outside
 * its workspace root), moved to the desktop and back, runs in ~/src/app again. With an uncommitted
 * file there, the move back is blocked on the laptop's side before anything moves: the alert names
 * the checkout and the fix on both devices, and stays after a reload; "Move into a fresh clone"
 * moves it anyway, the transcript says where it went, and the file is still in the old checkout.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { openSession, runView, screenshots, startDemoSessionInUi, startMoveInUi, useWorld } from './support/devices.ts';

const TITLE = 'Tidy the importer';

const opened = useWorld();
/** The laptop's checkout outside its workspace root, where the session starts (made by the first test). */
let home = '';

/** Waits until `page` shows the session owned here at `generation`. */
async function ownedAt(page: Page, generation: number): Promise<void> {
  const view = runView(page);
  await expect(view.ownership).toContainText(`generation ${generation}`, { timeout: 30_000 });
  await expect(view.move).toBeEnabled({ timeout: 30_000 });
}

test('moved away and back, the session runs in the checkout it started in, not in a clone under the root', async () => {
  const world = opened();
  home = world.devices.sandbox.clone(world.devices.origin, join(world.devices.sandbox.root, 'src', 'app'));
  const laptop = world.laptop.page;
  const desktop = world.desktop.page;
  await startDemoSessionInUi(laptop, { workspace: home, title: TITLE, prompt: 'Read the importer.' });
  await expect(laptop.getByRole('log', { name: 'Transcript' })).toContainText('Demo agent');
  await openSession(desktop, TITLE);

  await startMoveInUi(laptop, 'desktop');
  await ownedAt(desktop, 2);
  await expect(desktop.getByRole('main')).toContainText(join(world.devices.desktop.workspaceRoot, 'app'));
  await startMoveInUi(desktop, 'laptop');
  await ownedAt(laptop, 3);
  await expect(laptop.getByRole('main')).toContainText(home);
  await expect(laptop.getByRole('log', { name: 'Transcript' })).not.toContainText('now runs in');
});

test('with uncommitted work in that checkout the move back is blocked on the laptop, on both devices, across a reload', async () => {
  const world = opened();
  const testInfo = test.info();
  const laptop = world.laptop.page;
  const desktop = world.desktop.page;
  await startMoveInUi(laptop, 'desktop');
  await ownedAt(desktop, 4);
  world.devices.sandbox.writeFile(home, 'notes/draft.md', 'left on the laptop\n');

  await startMoveInUi(desktop, 'laptop');
  const sentence = `laptop's checkout ${home}, which this session continues in there, has 1 uncommitted change.`;
  for (const page of [desktop, laptop]) {
    const alert = runView(page).blocked;
    await expect(alert).toBeVisible({ timeout: 30_000 });
    await expect(alert).toContainText(sentence);
    await expect(alert).toContainText(`git -C ${home} stash -u`);
  }
  await expect(runView(desktop).ownership).toContainText('generation 4');
  await screenshots(desktop, (n) => testInfo.outputPath(n), 'move-blocked-by-target-checkout');

  // The blocked state is the session's: a reload shows it again.
  await desktop.reload();
  await openSession(desktop, TITLE);
  await expect(runView(desktop).blocked).toContainText(sentence);
});

test('moved into a fresh clone when asked: the transcript says where, and the old checkout keeps its work', async () => {
  const world = opened();
  const laptop = world.laptop.page;
  const desktop = world.desktop.page;
  await runView(desktop).blocked.getByRole('button', { name: 'Move into a fresh clone on laptop' }).click();
  await ownedAt(laptop, 5);
  const fresh = join(world.devices.laptop.workspaceRoot, 'app-2');
  await expect(laptop.getByRole('main')).toContainText(fresh);
  const note = `On laptop the session now runs in ${fresh}, not in ${home}: as asked, laptop cloned it afresh and left ${home} as it was.`;
  for (const page of [laptop, desktop]) {
    await expect(page.getByRole('log', { name: 'Transcript' })).toContainText(note);
    await expect(runView(page).blocked).toHaveCount(0);
  }
  expect(existsSync(join(home, 'notes', 'draft.md'))).toBe(true);
  expect(readFileSync(join(home, 'notes', 'draft.md'), 'utf8')).toBe('left on the laptop\n');
});
