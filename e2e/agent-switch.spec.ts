/**
 * Continuing a session with another agent, through the UI, with the real CLIs (the agent-CLI lab):
 * the Move dialog offers the desktop, which has only Codex, as "continue with Codex" for a Claude
 * Code session, and the desktop's run view then shows Codex running it, each agent's part of the
 * history and the provider change in the handoff history; and Switch agent on the laptop continues a
 * Codex session with Claude Code, which the desktop's history shows too.
 */
import { expect, test } from '@playwright/test';
import { openAgentWorld, type AgentWorld } from './support/agent-world.ts';
import { description, expectContinuedWith, openSession, runView, screenshots, startSessionInUi } from './support/devices.ts';
import { ownRepo } from './support/starting-points.ts';

let world: AgentWorld;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  world = await openAgentWorld(browser, {}, { only: { desktop: ['codex'] } });
});

test.afterAll(async () => {
  await world?.close();
});

test('the Move dialog offers a device without Claude Code as "continue with Codex", which then runs the session', async () => {
  const laptopPage = world.laptop.page;
  const desktopPage = world.desktop.page;
  const title = 'Hand it to Codex';
  await startSessionInUi(laptopPage, { provider: 'Claude Code', workspace: ownRepo(world, 'to-codex'), title, prompt: 'say hello' });
  const laptop = runView(laptopPage);
  await expect(laptopPage.getByRole('log', { name: 'Transcript' })).toContainText('Hello from the scripted model.');
  await expect(laptop.message).toBeEnabled();

  await laptop.move.click();
  const dialog = laptopPage.getByRole('dialog', { name: 'Move session' });
  const desktopRadio = dialog.getByRole('radio', { name: 'desktop' });
  await expect(desktopRadio).toBeEnabled();
  expect(await description(desktopRadio)).toBe('Continue with Codex: a summary continuation (desktop has no Claude Code).');
  await screenshots(laptopPage, (n) => test.info().outputPath(n), 'continue-with-codex-dialog');
  await desktopRadio.check();
  await dialog.getByRole('button', { name: 'Start move' }).click();
  await expect(dialog).toBeHidden();

  const desktop = await expectContinuedWith(desktopPage, title, 'Codex');
  const log = desktopPage.getByRole('log', { name: 'Transcript' });
  await expect(log.getByRole('separator')).toHaveText([
    "Claude Code's part",
    'Codex continues from here (moved to desktop), from a summary of the Claude Code part',
  ]);
  const history = desktopPage.getByRole('region', { name: 'Handoff history' });
  await expect(history).toContainText('Continued with another agent: Claude Code → Codex');
  // Codex answers there; the laptop, which no longer runs it, shows the same parts.
  await desktop.message.fill('say hello');
  await desktop.message.press('Enter');
  await expect(log.getByText('Hello from the scripted model.')).toHaveCount(2);
  await expect(laptopPage.getByRole('log', { name: 'Transcript' }).getByRole('separator')).toHaveCount(2);
  await screenshots(desktopPage, (n) => test.info().outputPath(n), 'continued-with-codex');
});

test('Switch agent continues a Codex session on the laptop with Claude Code, and every device shows it in the history', async () => {
  const laptopPage = world.laptop.page;
  const title = 'Switch me over';
  await startSessionInUi(laptopPage, { provider: 'Codex', workspace: ownRepo(world, 'switch'), title, prompt: 'say hello' });
  const laptop = runView(laptopPage);
  const log = laptopPage.getByRole('log', { name: 'Transcript' });
  await expect(log).toContainText('Hello from the scripted model.');
  await expect(laptop.message).toBeEnabled();

  await laptop.main.getByRole('button', { name: 'Switch agent' }).click();
  const dialog = laptopPage.getByRole('dialog', { name: 'Switch agent' });
  // Every other agent on the laptop is offered (Claude Code, Copilot, Qwen Code), never the session's own.
  await expect(dialog.getByRole('radio')).toHaveCount(3);
  for (const other of ['Claude Code', 'Copilot', 'Qwen Code']) await expect(dialog.getByRole('radio', { name: other })).toHaveCount(1);
  await expect(dialog.getByRole('radio', { name: 'Codex' })).toHaveCount(0);
  await dialog.getByRole('radio', { name: 'Claude Code' }).check();
  await dialog.getByRole('button', { name: 'Switch' }).click();
  await expect(dialog).toBeHidden();

  await expect(laptopPage.locator('.run-meta')).toContainText('Claude Code');
  await expect(log.getByRole('separator').last()).toHaveText(
    'Claude Code continues from here (switched on laptop), from a summary of the Codex part',
  );
  await expect(log).toContainText('Switched from Codex to Claude Code on laptop.');
  const history = laptopPage.getByRole('region', { name: 'Handoff history' });
  await expect(history).toContainText('Switched agent on laptop');
  await expect(history).toContainText('Codex → Claude Code · summary continuation');
  await expect(laptop.message).toBeEnabled();
  await laptop.message.fill('what did I say first?');
  await laptop.message.press('Enter');
  await expect(log).toContainText('I remember: This is a continuation of the session "Switch me over"');
  const last = world.lab.server.requests.filter((r) => r.lastUserText === 'what did I say first?').at(-1);
  expect(last?.api).toBe('anthropic-messages');

  await openSession(world.desktop.page, title);
  await expect(world.desktop.page.getByRole('region', { name: 'Handoff history' })).toContainText('Switched agent on laptop');
  await screenshots(laptopPage, (n) => test.info().outputPath(n), 'switched-agent');
});
