/**
 * Claude Code and Codex end to end through the UI, with the real CLIs (the agent-CLI lab: the
 * scripted model server, each device with its own throwaway CLI homes): New session in a real repo
 * with a bare origin; a turn that edits a file (the file exists; the transcript and agent map show
 * the tool call); the blocked move and its remediation (commit, push); the Move to the other device,
 * whose next turn continues the same CLI session with its history (the scripted server says what it
 * received), the strip showing `checkpoint-import`; then the move back. And a Claude Code session
 * continued with Codex on a desktop that has both, picked in the Move dialog (a summary continuation).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { personsWords } from '../dev-env/scripted-model-server/rules.ts';
import type { ModelApi } from '../dev-env/scripted-model-server/server.ts';
import { requestsFor as requestsOf, useAgentWorld } from './support/agent-world.ts';
import { expectContinuedWith, openSession, runView, sendMessage, screenshots, startMoveInUi, startSessionInUi } from './support/devices.ts';
import { ownRepo } from './support/starting-points.ts';

const world = useAgentWorld();

interface Agent {
  label: 'Claude Code' | 'Codex';
  api: ModelApi;
  file: string;
  /** The request header naming the CLI's own session (Claude session id, Codex thread id). */
  sessionHeader: string;
  /** What the transcript shows for the agent's write of `path`. */
  toolCall(path: string): string;
}

const AGENTS: Agent[] = [
  {
    label: 'Claude Code',
    api: 'anthropic-messages',
    file: 'plan-claude.txt',
    sessionHeader: 'x-claude-code-session-id',
    toolCall: (p) => `Write ${p}`,
  },
  {
    label: 'Codex',
    api: 'openai-responses',
    file: 'plan-codex.txt',
    sessionHeader: 'thread-id',
    toolCall: (p) => `Changed files: add ${p}`,
  },
];

/** The model calls the scripted server received for `api` whose newest user text is `text`. */
const requestsFor = (api: ModelApi, text: string) => requestsOf(world(), api, text);

for (const agent of AGENTS) {
  test(`${agent.label}: edits a file, is blocked until committed and pushed, moves with the same CLI session and its history, and moves back`, async () => {
    const laptopPage = world().laptop.page;
    const desktopPage = world().desktop.page;
    const repo = ownRepo(world(), agent.file.replace('.txt', ''));
    const title = `${agent.label} plan`;
    const first = `write file ${agent.file} with the plan`;

    await startSessionInUi(laptopPage, { provider: agent.label, workspace: repo, title, prompt: first });
    const laptop = runView(laptopPage);
    const transcript = laptopPage.getByRole('log', { name: 'Transcript' });
    await expect(laptopPage.getByRole('heading', { level: 1 })).toHaveText(title);
    await expect(laptopPage.getByText('Permissions: Edit files, ask before commands')).toBeVisible();
    await expect(transcript).toContainText(agent.toolCall(join(repo, agent.file)));
    await expect(transcript).toContainText(`Wrote ${agent.file}.`);
    await expect(laptop.agentMap.getByRole('listitem').first()).toContainText(agent.label);
    expect(readFileSync(join(repo, agent.file), 'utf8').trim()).toBe('the plan');
    const sessionId = requestsFor(agent.api, first)[0]?.headers[agent.sessionHeader];
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    await screenshots(laptopPage, (n) => test.info().outputPath(n), `${agent.label}-edited`);

    // The agent's file is not committed: the move is blocked with the fix, and the fix lets it through.
    await startMoveInUi(laptopPage, 'desktop');
    await expect(laptop.blocked).toBeVisible();
    await expect(laptop.blocked).toContainText('dirty_tree');
    await expect(laptop.blocked).toContainText(agent.file);
    await laptop.blocked.getByLabel('Commit message').fill(`Add the ${agent.label} plan`);
    await laptop.blocked.getByRole('button', { name: 'Commit' }).click();
    await expect(laptop.blocked).not.toContainText('dirty_tree');
    await expect(laptop.blocked).toContainText('unpushed_commits');
    await laptop.blocked.getByRole('button', { name: 'Push' }).click();
    await expect(laptop.readyToMove).toBeVisible();
    await laptop.readyToMove.getByRole('button', { name: 'Move now' }).click();
    await expect(laptop.readyToMove).toBeHidden();
    await expect(laptop.blocked).toBeHidden();

    await openSession(desktopPage, title);
    const desktop = runView(desktopPage);
    for (const view of [laptop, desktop]) await expect(view.ownership).toContainText('generation 2');
    await expect(desktop.ownership).toContainText('checkpoint-import');
    await expect(desktopPage.getByText('Permissions: Edit files, ask before commands')).toBeVisible();
    const workspaceThere = (await world().desktop.device.client.call('listSessions', {})).find((s) => s.title === title)!.workspace;
    expect(existsSync(join(workspaceThere, agent.file))).toBe(true);

    // The next turn on the desktop continues the same CLI session, and the server received its history.
    await sendMessage(desktopPage, 'what did I say first?');
    await expect(desktopPage.getByRole('log', { name: 'Transcript' })).toContainText(`I remember: ${first}`);
    const there = requestsFor(agent.api, 'what did I say first?').at(-1);
    expect(there?.headers[agent.sessionHeader]).toBe(sessionId);
    expect(there?.userTexts.map(personsWords)).toEqual(expect.arrayContaining([first, 'what did I say first?']));
    await screenshots(desktopPage, (n) => test.info().outputPath(n), `${agent.label}-moved`);

    // And back to the laptop: imported again, the same session, its history now two turns long.
    await startMoveInUi(desktopPage, 'laptop');
    for (const view of [laptop, desktop]) await expect(view.ownership).toContainText('generation 3');
    await expect(laptop.ownership).toContainText('checkpoint-import');
    await sendMessage(laptopPage, 'say hello');
    await expect(transcript).toContainText('Hello from the scripted model.');
    const back = requestsFor(agent.api, 'say hello').at(-1);
    expect(back?.headers[agent.sessionHeader]).toBe(sessionId);
    expect(back?.userTexts.map(personsWords)).toEqual(expect.arrayContaining([first, 'what did I say first?', 'say hello']));
  });
}

test('a Claude Code session moved to a desktop that has Claude Code and Codex may go on with Codex, by summary', async () => {
  const laptopPage = world().laptop.page;
  const title = 'Pick Codex there';
  await startSessionInUi(laptopPage, { provider: 'Claude Code', workspace: ownRepo(world(), 'pick-codex'), title, prompt: 'say hello' });
  const laptop = runView(laptopPage);
  await expect(laptopPage.getByRole('log', { name: 'Transcript' })).toContainText('Hello from the scripted model.');

  await laptop.move.click();
  const dialog = laptopPage.getByRole('dialog', { name: 'Move session' });
  await dialog.getByRole('radio', { name: 'desktop' }).check();
  const agents = dialog.getByRole('group', { name: 'Agent on desktop' });
  await expect(agents.getByRole('radio', { name: 'Continue with Claude Code (the same session)' })).toBeChecked();
  await agents.getByRole('radio', { name: 'Continue with Codex: a summary continuation' }).check();
  await dialog.getByRole('button', { name: 'Start move' }).click();
  await expect(dialog).toBeHidden();

  await expectContinuedWith(world().desktop.page, title, 'Codex');
});
