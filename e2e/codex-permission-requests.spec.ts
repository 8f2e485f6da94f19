/**
 * Codex asking, end to end through the UI with the real `codex app-server` (the agent-CLI lab): at
 * the default level a command is asked in the region "Permission request" on both devices; the
 * device that does not own the session answers "Allow for this session", Codex runs the command (its
 * output in the transcript), and the same command is not asked again; a deny's message reaches the
 * model; a Move with a request pending denies it and the thread goes on on the target; at "Ask
 * before edits and commands" a file change is asked with its diff, and Allow writes it. Each test
 * starts from a session of its own (the middle ones made through the API: support/starting-points.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { useAgentWorld } from './support/agent-world.ts';
import { openSession, runView, sendMessage, startMoveInUi, startSessionInUi } from './support/devices.ts';
import { ownRepo, sessionOnLaptop, sessionWithCommandAllowed } from './support/starting-points.ts';

const world = useAgentWorld();

const SUM = `node -e "console.log('sum ' + 6 * 7)"`;
const WRITE = `node -e "require('fs').writeFileSync('denied.txt', 'x')"`;
const OUTPUT = /Command output: [\s\S]*sum 42/;

test('asks on both devices; the other device answers "Allow for this session", Codex runs the command, and the same command is not asked again', async () => {
  const laptopPage = world().laptop.page;
  const desktopPage = world().desktop.page;
  const title = 'Codex asks';
  await startSessionInUi(laptopPage, { provider: 'Codex', workspace: ownRepo(world(), 'asks'), title, prompt: `run command ${SUM}` });
  await expect(laptopPage.getByText('Permissions: Edit files, ask before commands')).toBeVisible();
  const asked = runView(laptopPage).permissionRequest;
  await expect(asked).toContainText(`Codex wants to run ${SUM}.`);
  await expect(asked.getByLabel('Command')).toHaveText(SUM);
  await expect(runView(laptopPage).agentMap.getByRole('listitem').first()).toContainText('waiting for you');

  await openSession(desktopPage, title);
  const there = runView(desktopPage).permissionRequest;
  await expect(there).toContainText(`Codex wants to run ${SUM} on laptop.`);
  await there.getByRole('button', { name: 'Allow for this session' }).click();
  for (const page of [laptopPage, desktopPage]) {
    await expect(runView(page).transcript).toContainText(OUTPUT);
    await expect(runView(page).transcript).toContainText('allowed for this session on desktop');
    await expect(runView(page).permissionRequest).toBeHidden();
  }

  // The next turn is a new app-server process that asks again: the session's rule answers it.
  await sendMessage(laptopPage, `run command ${SUM}`);
  await expect(runView(laptopPage).transcript).toContainText("allowed by this session's rule");
  await expect(runView(laptopPage).transcript.getByText(/^Command output:/)).toHaveCount(2);
  await expect(runView(laptopPage).permissionRequest).toBeHidden();
});

test("a deny's message reaches the model, and the command does not run", async () => {
  const laptopPage = world().laptop.page;
  const title = 'Codex hears a deny';
  const repo = ownRepo(world(), 'deny');
  await sessionOnLaptop(world(), { title, workspace: repo, provider: 'codex', prompt: 'say hello' });
  await openSession(laptopPage, title);
  await sendMessage(laptopPage, `run command ${WRITE}`);
  const asked = runView(laptopPage).permissionRequest;
  await expect(asked).toContainText(`Codex wants to run ${WRITE}`);
  await asked.getByLabel('Message to the agent with a deny (optional)').fill('Do not write files; print instead');
  await asked.getByRole('button', { name: 'Deny' }).click();
  await expect(runView(laptopPage).transcript).toContainText('denied on laptop: “Do not write files; print instead”');
  await expect(runView(laptopPage).transcript).toContainText(
    `Scripted reply to: I denied your request to run ${WRITE}: Do not write files; print instead`,
  );
  expect(existsSync(join(repo, 'denied.txt'))).toBe(false);
});

test('a Move with a request pending denies it, and the thread goes on on the target, where the rule still holds', async () => {
  const laptopPage = world().laptop.page;
  const desktopPage = world().desktop.page;
  // A session whose agent ran SUM once, allowed for the session (its rule).
  const title = 'Codex moves while asking';
  const repo = ownRepo(world(), 'pending');
  await sessionWithCommandAllowed(world(), { title, workspace: repo, provider: 'codex', command: SUM, ran: OUTPUT });
  await openSession(laptopPage, title);
  await openSession(desktopPage, title);
  await sendMessage(laptopPage, `run command ${WRITE}`);
  await expect(runView(laptopPage).permissionRequest).toBeVisible();
  await startMoveInUi(laptopPage, 'desktop');
  for (const page of [laptopPage, desktopPage]) await expect(runView(page).ownership).toContainText('generation 2');
  await expect(runView(desktopPage).ownership).toContainText('checkpoint-import');
  await expect(runView(desktopPage).transcript).toContainText('denied by Baton: “The session is moving to desktop; ask again there.”');
  await expect(runView(desktopPage).permissionRequest).toBeHidden();
  expect(existsSync(join(repo, 'denied.txt'))).toBe(false);

  await sendMessage(desktopPage, `run command ${SUM}`);
  await expect(runView(desktopPage).transcript.getByText(/^Command output:/)).toHaveCount(2);
  await expect(runView(desktopPage).permissionRequest).toBeHidden();
});

test('"Ask before edits and commands" asks before a file change, with its diff; Allow writes it', async () => {
  const laptopPage = world().laptop.page;
  const repo = ownRepo(world(), 'careful');
  const file = join(repo, 'careful.txt');
  await startSessionInUi(laptopPage, {
    provider: 'Codex',
    workspace: repo,
    title: 'Codex asks before edits',
    prompt: 'write file careful.txt with checked',
    permission: 'Ask before edits and commands',
  });
  const asked = runView(laptopPage).permissionRequest;
  await expect(asked).toContainText(`Codex wants to change ${file}.`);
  await expect(asked.getByLabel('Diff of the change')).toContainText('+checked');
  expect(existsSync(file)).toBe(false);
  await asked.getByRole('button', { name: 'Allow', exact: true }).click();
  await expect(runView(laptopPage).transcript).toContainText('Wrote careful.txt.');
  expect(readFileSync(file, 'utf8').trim()).toBe('checked');
});
