/**
 * Fork from here with the real Claude Code and Codex, through the UI (the agent-CLI lab: the
 * scripted model server, each device with its own CLI homes): a session moves from the laptop to
 * the desktop; on the desktop, which still runs the original, Fork from here makes the fork, whose
 * next turn runs under a new CLI session id with the history remembered, while the original's CLI
 * file stays byte for byte as it was and the original goes on under its own id.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { AgentHome } from '../dev-env/agent-clis/agent-homes.ts';
import type { ModelApi } from '../dev-env/scripted-model-server/server.ts';
import { projectSlug } from '../electron/providers/claude-code/paths.ts';
import { findRollout } from '../electron/providers/codex/rollout.ts';
import { requestsFor, useAgentWorld } from './support/agent-world.ts';
import { openSession, runView, sendMessage, startMoveInUi, startSessionInUi } from './support/devices.ts';
import { ownRepo } from './support/starting-points.ts';

const world = useAgentWorld();

interface Agent {
  label: 'Claude Code' | 'Codex';
  api: ModelApi;
  /** The request header naming the CLI's own session (Claude session id, Codex thread id). */
  sessionHeader: string;
  /** The CLI's own file of session `id` run in `workspace` on `home`. */
  file(home: AgentHome, workspace: string, id: string): Promise<string>;
}

const AGENTS: Agent[] = [
  {
    label: 'Claude Code',
    api: 'anthropic-messages',
    sessionHeader: 'x-claude-code-session-id',
    file: async (home, workspace, id) => join(home.claudeConfigDir, 'projects', projectSlug(workspace), `${id}.jsonl`),
  },
  {
    label: 'Codex',
    api: 'openai-responses',
    sessionHeader: 'thread-id',
    file: async (home, _workspace, id) => join(home.codexHome, (await findRollout(home.codexHome, id)) ?? 'missing'),
  },
];

/** The newest model call the scripted server received for `api` whose newest user text is `text`. */
const lastRequestFor = (api: ModelApi, text: string) => requestsFor(world(), api, text).at(-1);

for (const agent of AGENTS) {
  test(`${agent.label}: the fork runs under a new CLI session with the history, the original's file untouched`, async () => {
    const title = `${agent.label} fork point`;
    const first = `my secret word for ${agent.label} is apple`;
    const repo = ownRepo(world(), `fork-${agent.api}`);
    await startSessionInUi(world().laptop.page, { provider: agent.label, workspace: repo, title, prompt: first });
    await expect(world().laptop.page.getByRole('log', { name: 'Transcript' })).toContainText(`Scripted reply to: ${first}`);
    const originalId = lastRequestFor(agent.api, first)?.headers[agent.sessionHeader];
    expect(originalId).toMatch(/^[0-9a-f-]{36}$/);
    await startMoveInUi(world().laptop.page, 'desktop');
    await openSession(world().desktop.page, title);
    const original = runView(world().desktop.page);
    await expect(original.ownership).toContainText('generation 2', { timeout: 30_000 });
    await expect(original.ownership).toContainText('checkpoint-import');
    const workspace = (await world().desktop.device.client.call('listSessions', {})).find((s) => s.title === title)!.workspace;
    const file = await agent.file(world().homes.desktop, workspace, originalId!);
    const before = readFileSync(file);

    await world().desktop.page.getByRole('region', { name: 'Handoff history' }).getByRole('button', { name: 'Fork from here' }).click();
    await world()
      .desktop.page.getByRole('heading', { level: 1, name: `${title} (fork)` })
      .waitFor({ timeout: 30_000 });
    const fork = runView(world().desktop.page);
    await expect(fork.transcript).toContainText(`Forked from "${title}"`);
    await expect(fork.transcript).toContainText('was forked here as');
    await sendMessage(world().desktop.page, 'what did I say first?');
    await expect(fork.transcript).toContainText(`I remember: ${first}`);
    const asked = lastRequestFor(agent.api, 'what did I say first?');
    // Its agent read that it is a fork, ahead of the person's words.
    expect(asked?.lastUserText).toMatch(/^Baton: this session is a fork of "[^"]+", made from the checkpoint of its move from laptop/);
    const forkId = asked?.headers[agent.sessionHeader];
    expect(forkId).toMatch(/^[0-9a-f-]{36}$/);
    expect(forkId).not.toBe(originalId);
    expect(readFileSync(file)).toEqual(before);

    // The original goes on under its own CLI session, its history without the fork's turn (its first input there
    // carries the move note).
    await world().desktop.page.getByRole('navigation', { name: 'Sessions' }).getByRole('link', { name: title, exact: true }).click();
    await world().desktop.page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
    await sendMessage(world().desktop.page, 'where were we?');
    await expect(runView(world().desktop.page).transcript).toContainText(
      /Scripted reply to: Baton: this session just moved[^]*where were we\?/,
    );
    const back = lastRequestFor(agent.api, 'where were we?');
    expect(back?.headers[agent.sessionHeader]).toBe(originalId);
    expect(back?.userTexts).not.toContain('what did I say first?');
  });
}
