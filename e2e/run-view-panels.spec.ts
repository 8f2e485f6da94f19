/**
 * The run view never shows a panel left from an earlier state, on two real devices: a blocked Move
 * here finishes on its own once the owner fixed it (both alerts and the asker's note go), a "Ready
 * to move" drawn before the session moved away goes with it (its Move now would move it back), the
 * arrival's "matched the checkpoint" is not said beside a blocked move, the Switch agent dialog
 * closes when the session moves away, the header off the owner says where it runs, the owner is
 * marked offline while it is frozen and the refusal that said so goes once it is back, an answer's
 * confirmation goes with a move; and the transcript keeps a third of the window, follows the newest
 * entry (the move's "resumed on …"), and offers "Jump to latest" to a reader who scrolled up.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { openSession, runView, sendMessage, startDemoSessionInUi, startMoveInUi, useWorld, type World } from './support/devices.ts';

const TITLE = 'Check the panels';
const SIZES = [
  { width: 1280, height: 800 },
  { width: 820, height: 640 },
  { width: 720, height: 600 },
];

test.describe.configure({ mode: 'serial' });
const world = useWorld();

/** Waits until both devices show the session run by `owner` at `generation`, its move completed there. */
async function runsOn(w: World, owner: 'laptop' | 'desktop', generation: number): Promise<void> {
  for (const page of [w.laptop.page, w.desktop.page]) {
    const view = runView(page);
    await expect(view.ownership).toContainText(`generation ${generation}`, { timeout: 30_000 });
    await expect(view.ownership.locator('.owner-name')).toHaveText(owner);
  }
  await expect(runView(w[owner].page).move).toBeEnabled({ timeout: 30_000 });
}

/** The session's folder on `device` (where an uncommitted file makes its tree dirty). */
async function workspaceOn(w: World, device: 'laptop' | 'desktop'): Promise<string> {
  const client = w[device].device.client;
  const sessionId = (await client.call('listSessions', {})).find((s) => s.title === TITLE)!.id;
  return (await client.call('getSession', { sessionId }))!.workspace;
}

/** Commits and pushes from the blocked alert on `page` (the owner). */
async function commitAndPush(page: Page, message: string): Promise<void> {
  const alert = runView(page).blocked;
  await alert.getByLabel('Commit message').fill(message);
  await alert.getByRole('button', { name: 'Commit' }).click();
  await alert.getByRole('button', { name: 'Push' }).click();
}

/** At each size, the transcript panel is at least a third of the window high, and its newest entry is in view. */
async function expectTranscriptRoom(page: Page): Promise<void> {
  const panel = page.getByRole('main').getByRole('region', { name: 'Transcript' });
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await expect(async () => {
      const box = await panel.boundingBox();
      expect(box!.height, `the transcript at ${size.width}×${size.height}`).toBeGreaterThanOrEqual(size.height / 3);
    }).toPass({ timeout: 15_000 });
    await expect(runView(page).transcript.locator('.entry').last()).toBeInViewport();
  }
  await page.setViewportSize(SIZES[0]!);
}

test('a blocked Move here finishes on its own once the owner fixed it: both alerts and the note go, the session moves', async () => {
  const w = world();
  await startDemoSessionInUi(w.laptop.page, { workspace: w.devices.repo, title: TITLE, prompt: 'Look at the panels.' });
  await openSession(w.desktop.page, TITLE);
  await startMoveInUi(w.laptop.page, 'desktop');
  await runsOn(w, 'desktop', 2);

  writeFileSync(join(await workspaceOn(w, 'desktop'), 'draft.md'), 'not committed yet\n');
  const asker = runView(w.laptop.page);
  const owner = runView(w.desktop.page);
  await asker.ownership.getByRole('button', { name: 'Move here' }).click();
  for (const view of [asker, owner]) await expect(view.blocked).toBeVisible({ timeout: 30_000 });
  await expect(asker.blocked).toContainText('desktop moves it here on its own');
  await expectTranscriptRoom(w.laptop.page);

  // The person at the desktop fixes it; nobody asks again.
  await commitAndPush(w.desktop.page, 'Keep the draft');
  await runsOn(w, 'laptop', 3);
  for (const view of [asker, owner]) {
    await expect(view.blocked).toHaveCount(0);
    await expect(view.readyToMove).toHaveCount(0);
  }
  await expect(asker.ownership).not.toContainText('Asked desktop');
  // The transcript follows the newest entry: the move's "resumed on laptop" is in view.
  await expect(asker.transcript.getByText(/resumed on laptop/).last()).toBeInViewport();
});

test('a "Ready to move" drawn before the session moved away goes with it, so its Move now cannot move it back', async () => {
  const w = world();
  const laptop = runView(w.laptop.page);
  writeFileSync(join(await workspaceOn(w, 'laptop'), 'draft-2.md'), 'not committed yet\n');
  await startMoveInUi(w.laptop.page, 'desktop');
  await expect(laptop.blocked).toBeVisible({ timeout: 30_000 });
  await commitAndPush(w.laptop.page, 'Keep the second draft');
  await expect(laptop.readyToMove.getByRole('button', { name: 'Move now' })).toBeVisible();

  await runView(w.desktop.page).ownership.getByRole('button', { name: 'Move here' }).click();
  await runsOn(w, 'desktop', 4);
  await expect(laptop.readyToMove).toHaveCount(0);
  await expect(laptop.blocked).toHaveCount(0);
});

test('"matched the checkpoint" is said of the arrival, and not beside a move the agent’s edit blocks', async () => {
  const w = world();
  const desktop = runView(w.desktop.page);
  await expect(desktop.ownership).toContainText('On arrival, the workspace matched the checkpoint.');
  await sendMessage(w.desktop.page, 'Please edit a file.');
  await expect(desktop.transcript).toContainText('notes/demo-agent.md', { timeout: 30_000 });
  await startMoveInUi(w.desktop.page, 'laptop');
  await expect(desktop.blocked).toBeVisible({ timeout: 30_000 });
  await expect(desktop.ownership).not.toContainText(/matche[sd] the checkpoint/);
  await commitAndPush(w.desktop.page, 'Keep the agent’s note');
  await desktop.readyToMove.getByRole('button', { name: 'Move now' }).click();
  await runsOn(w, 'laptop', 5);
});

test('the Switch agent dialog closes once the session moves away, and off the owner the header says where it runs', async () => {
  const w = world();
  await w.laptop.page.getByRole('button', { name: 'Switch agent' }).click();
  await expect(w.laptop.page.getByRole('dialog', { name: 'Switch agent' })).toBeVisible();
  await runView(w.desktop.page).ownership.getByRole('button', { name: 'Move here' }).click();
  await runsOn(w, 'desktop', 6);
  await expect(w.laptop.page.getByRole('dialog', { name: 'Switch agent' })).toHaveCount(0);
  const header = w.laptop.page.locator('.run-meta');
  await expect(header).toContainText('Runs on desktop');
  await expect(header).not.toContainText(w.devices.repo);
});

test('a frozen owner is marked offline, and the refusal that said so goes once it is back', async () => {
  const w = world();
  const asker = runView(w.laptop.page);
  w.desktop.device.process.child.kill('SIGSTOP');
  try {
    await expect(asker.ownership).toContainText('— offline since', { timeout: 20_000 });
    await asker.ownership.getByRole('button', { name: 'Move here' }).click();
    await expect(asker.ownership).toContainText('desktop is offline');
  } finally {
    w.desktop.device.process.child.kill('SIGCONT');
  }
  await expect(asker.ownership).not.toContainText('offline', { timeout: 20_000 });
});

test('an answer’s confirmation goes once the session moves; the permission card leaves the transcript its room', async () => {
  const w = world();
  await sendMessage(w.desktop.page, 'Please run a command.');
  const asker = runView(w.laptop.page);
  await expect(asker.permissionRequest).toBeVisible({ timeout: 30_000 });
  await expectTranscriptRoom(w.laptop.page);
  await asker.permissionRequest.getByRole('button', { name: 'Allow', exact: true }).click();
  await expect(asker.main).toContainText('Your answer reached the agent', { timeout: 30_000 });

  await asker.ownership.getByRole('button', { name: 'Move here' }).click();
  await runsOn(w, 'laptop', 7);
  await expect(asker.main).not.toContainText('Your answer reached the agent');
});

test('the transcript follows the newest entry unless the reader scrolled up, who is offered "Jump to latest"', async () => {
  const w = world();
  const page = w.laptop.page;
  const view = runView(page);
  await page.setViewportSize(SIZES[2]!);
  for (const n of [1, 2, 3]) {
    await sendMessage(page, `Status ${n}, please.`);
    await expect(view.message).toBeEnabled({ timeout: 30_000 });
  }
  await expect(view.transcript.locator('.entry').last()).toBeInViewport();
  await view.transcript.evaluate((list) => (list.scrollTop = 0));
  const jump = view.main.getByRole('button', { name: 'Jump to latest' });
  await expect(jump).toBeVisible();
  await sendMessage(page, 'One more, please.');
  await expect(view.transcript).toContainText('One more, please.');
  await expect(view.transcript.locator('.entry').last()).not.toBeInViewport();
  await jump.click();
  await expect(view.transcript.locator('.entry').last()).toBeInViewport();
  await expect(jump).toHaveCount(0);
  await page.setViewportSize(SIZES[0]!);
});
