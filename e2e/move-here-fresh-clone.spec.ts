/**
 * Move here blocked by the asking device's own checkout: the laptop asks for a session the desktop
 * runs while the laptop's checkout of it holds uncommitted work. Both devices show the block once,
 * and the laptop's alert sends the person to the laptop — where the files are — not to the desktop;
 * "Move into a fresh clone on this device", clicked on the laptop, moves the session there into a
 * fresh clone, the laptop shows it running here with no blocked move left, and the old checkout
 * keeps its work.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { openSession, runView, startDemoSessionInUi, startMoveInUi, useWorld } from './support/devices.ts';

const TITLE = 'Sort the importer';

test.describe.configure({ mode: 'serial' });
const world = useWorld();
/** The laptop's checkout outside its workspace root, where the session starts. */
let home = '';

test("the block of the laptop's own checkout sends the person to the laptop, once, on both devices", async () => {
  const w = world();
  home = w.devices.sandbox.clone(w.devices.origin, join(w.devices.sandbox.root, 'src', 'app'));
  await startDemoSessionInUi(w.laptop.page, { workspace: home, title: TITLE, prompt: 'Read the importer.' });
  await openSession(w.desktop.page, TITLE);
  await startMoveInUi(w.laptop.page, 'desktop');
  await expect(runView(w.laptop.page).ownership).toContainText('generation 2', { timeout: 30_000 });
  await expect(runView(w.desktop.page).move).toBeEnabled({ timeout: 30_000 });
  w.devices.sandbox.writeFile(home, 'notes/draft.md', 'left on the laptop\n');

  const asker = runView(w.laptop.page);
  await asker.ownership.getByRole('button', { name: 'Move here' }).click();
  const sentence = `laptop's checkout ${home}, which this session continues in there, has 1 uncommitted change.`;
  for (const page of [w.laptop.page, w.desktop.page]) {
    const view = runView(page);
    await expect(view.blocked).toContainText(sentence, { timeout: 30_000 });
    // Said once: the alert tells the cancelled move, the ownership strip does not tell it again.
    const text = await view.main.innerText();
    expect(text.split(sentence).length - 1, `how often ${page === w.laptop.page ? 'the laptop' : 'the desktop'} says it`).toBe(1);
  }
  await expect(asker.blocked).not.toContainText('on desktop');
  await expect(asker.blocked).not.toContainText('make each fix there');
  await expect(runView(w.desktop.page).blocked).toContainText('Make each fix on laptop');
});

test('"Move into a fresh clone on this device", on the laptop that asked, moves it there and leaves no block', async () => {
  const w = world();
  const asker = runView(w.laptop.page);
  await asker.blocked.getByRole('button', { name: 'Move into a fresh clone on this device' }).click();
  await expect(asker.ownership).toContainText('generation 3', { timeout: 30_000 });
  await expect(asker.ownership).toContainText('Running on laptop — this device');
  await expect(asker.ownership).toContainText('Owned here');
  await expect(asker.ownership).not.toContainText('Move blocked');
  await expect(w.laptop.page.locator('.run-meta')).toContainText(w.devices.laptop.workspaceRoot);
  for (const page of [w.laptop.page, w.desktop.page]) await expect(runView(page).blocked).toHaveCount(0);
  expect(readFileSync(join(home, 'notes', 'draft.md'), 'utf8')).toBe('left on the laptop\n');
});
