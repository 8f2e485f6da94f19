/**
 * Claude Code asking, end to end through the UI with the real `claude` (the agent-CLI lab): at the
 * default level a command is asked in the region "Permission request" on both devices, with a
 * desktop notification; the device that does not own the session answers "Allow for this session"
 * and the command runs (its output in the transcript), and the same command is not asked again; a
 * deny's message reaches the agent; a Move with a request pending denies it, the target says why,
 * the rule is there after the move, and an answer bound to the old generation is refused. Each test
 * starts from a session of its own (the later ones made through the API: support/starting-points.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { openAgentWorld, type AgentWorld } from './support/agent-world.ts';
import { noticesOf, openSession, runView, sendMessage, screenshots, startMoveInUi, startSessionInUi } from './support/devices.ts';
import { ownRepo, sessionOnLaptop, sessionWithCommandAllowed } from './support/starting-points.ts';

let world: AgentWorld;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  world = await openAgentWorld(browser, {}, { notifications: true });
});

test.afterAll(async () => {
  await world?.close();
});

const SUM = `node -e "console.log('sum ' + 6 * 7)"`;
const WRITE = `node -e "require('fs').writeFileSync('denied.txt', 'x')"`;

test('asks on both devices; the other device answers "Allow for this session", the command runs, and the same command is not asked again', async () => {
  const laptopPage = world.laptop.page;
  const desktopPage = world.desktop.page;
  const title = 'Answer from anywhere';
  await startSessionInUi(laptopPage, {
    provider: 'Claude Code',
    workspace: ownRepo(world, 'anywhere'),
    title,
    prompt: `run command ${SUM}`,
  });
  await expect(laptopPage.getByText('Permissions: Edit files, ask before commands')).toBeVisible();
  const asked = runView(laptopPage).permissionRequest;
  await expect(asked).toContainText(`Claude Code wants to run ${SUM}.`);
  await expect(asked.getByLabel('Command')).toHaveText(SUM);
  await expect(runView(laptopPage).agentMap.getByRole('listitem').first()).toContainText('waiting for you');
  await expect
    .poll(() => noticesOf(laptopPage))
    .toContainEqual({ title: 'Permission request', body: `laptop: Claude Code wants to run \`${SUM}\`` });
  await screenshots(laptopPage, (n) => test.info().outputPath(n), 'permission-request');

  // The desktop shows the same request (learned sealed through the backend) and answers it.
  await openSession(desktopPage, title);
  const there = runView(desktopPage).permissionRequest;
  await expect(there).toContainText(`Claude Code wants to run ${SUM} on laptop.`);
  await expect(there).toContainText(`“Allow for this session” also allows ${SUM} (with any plain arguments) from now on, on any device.`);
  await there.getByRole('button', { name: 'Allow for this session' }).click();
  for (const page of [laptopPage, desktopPage]) {
    await expect(runView(page).transcript).toContainText('Command output: sum 42');
    await expect(runView(page).transcript).toContainText('allowed for this session on desktop');
    await expect(runView(page).permissionRequest).toBeHidden();
  }
  await expect(desktopPage.getByRole('status').filter({ hasText: 'Your answer reached the agent' })).toBeVisible();

  // The same command again: allowed by the session's rule, nobody is asked.
  await sendMessage(laptopPage, `run command ${SUM}`);
  await expect(runView(laptopPage).transcript).toContainText("allowed by this session's rule");
  await expect(runView(laptopPage).transcript.getByText('Command output: sum 42')).toHaveCount(2);
  await expect(runView(laptopPage).permissionRequest).toBeHidden();
});

test("a deny's message reaches the agent, and the command does not run", async () => {
  const laptopPage = world.laptop.page;
  const title = 'Deny with a message';
  const repo = ownRepo(world, 'deny');
  await sessionOnLaptop(world, { title, workspace: repo, provider: 'claude-code', prompt: 'say hello' });
  await openSession(laptopPage, title);
  await sendMessage(laptopPage, `run command ${WRITE}`);
  const asked = runView(laptopPage).permissionRequest;
  await expect(asked).toContainText(`wants to run ${WRITE}`);
  await asked.getByLabel('Message to the agent with a deny (optional)').fill('Do not write files; print instead');
  await asked.getByRole('button', { name: 'Deny' }).click();
  await expect(runView(laptopPage).transcript).toContainText('The tool call failed: Do not write files; print instead');
  await expect(runView(laptopPage).transcript).toContainText('denied on laptop: “Do not write files; print instead”');
  expect(existsSync(join(repo, 'denied.txt'))).toBe(false);
});

test('a Move with a request pending denies it, saying why on the target; the rule came along, and an answer for the old generation is refused', async () => {
  const laptopPage = world.laptop.page;
  const desktopPage = world.desktop.page;
  // A session whose agent ran SUM once, allowed for the session (its rule).
  const title = 'Move while asking';
  const repo = ownRepo(world, 'pending');
  const sessionId = await sessionWithCommandAllowed(world, {
    title,
    workspace: repo,
    provider: 'claude-code',
    command: SUM,
    ran: /Command output: sum 42/,
  });
  await openSession(laptopPage, title);
  await openSession(desktopPage, title);
  await sendMessage(laptopPage, `run command ${WRITE}`);
  await expect(runView(laptopPage).permissionRequest).toBeVisible();
  const detail = await world.laptop.device.client.call('getSession', { sessionId });
  const request = detail!.permissionRequests[0]!;

  await runView(laptopPage).move.click();
  const dialog = laptopPage.getByRole('dialog', { name: 'Move session' });
  await expect(dialog).toContainText(`The agent is waiting for an answer: it wants to run ${WRITE}.`);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await startMoveInUi(laptopPage, 'desktop');
  for (const page of [laptopPage, desktopPage]) await expect(runView(page).ownership).toContainText('generation 2');
  await expect(runView(desktopPage).transcript).toContainText('denied by Baton: “The session is moving to desktop; ask again there.”');
  await expect(runView(desktopPage).transcript).toContainText('The tool call failed: The session is moving to desktop; ask again there.');
  await expect(runView(desktopPage).permissionRequest).toBeHidden();

  const stale = await world.laptop.device.client.call('answerPermission', {
    sessionId,
    requestId: request.id,
    generation: 1,
    decision: 'allow',
  });
  expect(stale).toMatchObject({ ok: false, code: 'stale_generation' });

  // On the desktop the rule allowed on it before the move still holds: the command runs, unasked.
  await sendMessage(desktopPage, `run command ${SUM}`);
  await expect(runView(desktopPage).transcript.getByText('Command output: sum 42')).toHaveCount(2);
  await expect(runView(desktopPage).permissionRequest).toBeHidden();
});
