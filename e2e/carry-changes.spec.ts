/**
 * Carry my changes end to end through the UI, with the real `claude` (the agent-CLI lab): a Claude
 * Code session on the laptop writes a file; with that new file, an edited tracked file and an
 * unpushed commit in the checkout, the blocked move offers Carry my changes beside Commit and Push,
 * saying what it takes; carried, the desktop's checkout holds exactly that work (same HEAD, same
 * status, same bytes) before the agent's next turn there continues the same CLI session, and the
 * completed panel on each side says what came along and which stash keeps the laptop's copy.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { requestsFor, useAgentWorld } from './support/agent-world.ts';
import { openSession, runView, sendMessage, screenshots, startMoveInUi, startSessionInUi } from './support/devices.ts';
import { ownRepo } from './support/starting-points.ts';

const world = useAgentWorld();

const git = (repo: string, args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' });

test('Claude Code: a move carries uncommitted, untracked and unpushed work, which arrives intact before the agent runs on', async () => {
  const laptopPage = world().laptop.page;
  const desktopPage = world().desktop.page;
  const { sandbox } = world().devices;
  const repo = ownRepo(world(), 'carried');
  const title = 'Carried plan';
  const first = 'write file plan-claude.txt with the plan';

  await startSessionInUi(laptopPage, { provider: 'Claude Code', workspace: repo, title, prompt: first });
  const laptop = runView(laptopPage);
  await expect(laptop.transcript).toContainText('Wrote plan-claude.txt.');
  const sessionId = requestsFor(world(), 'anthropic-messages', first)[0]?.headers['x-claude-code-session-id'];
  // The agent's new file stays untracked; a commit not pushed and an edit of a tracked file join it.
  const head = sandbox.commitFile(repo, 'src/notes.md', 'first notes\n', 'Add notes, not pushed');
  writeFileSync(join(repo, 'README.md'), '# carried\n\nedited, not committed\n');
  const status = git(repo, ['status', '--porcelain']);

  await startMoveInUi(laptopPage, 'desktop');
  await expect(laptop.blocked).toContainText('2 uncommitted files · 1 unpushed commit');
  const offer = laptop.blocked.getByRole('region', { name: 'Or carry your changes to desktop as they are' });
  await expect(offer).toContainText('Takes 1 changed file, 1 new file, 1 unpushed commit along, sealed: only your devices can open it.');
  await expect(laptop.blocked.getByRole('button', { name: 'Commit' })).toBeVisible();
  await screenshots(laptopPage, (n) => test.info().outputPath(n), 'carry-offered');
  await offer.getByRole('button', { name: 'Carry my changes' }).click();
  await expect(laptop.blocked).toBeHidden();

  await openSession(desktopPage, title);
  const desktop = runView(desktopPage);
  for (const view of [laptop, desktop]) await expect(view.ownership).toContainText('generation 2');
  await expect(desktop.ownership).toContainText(
    'Your changes came along: 1 changed file, 1 new file, 1 unpushed commit, still uncommitted here as they were on laptop.',
  );
  await expect(laptop.ownership).toContainText('Your copy here is kept in the stash “baton: carried to desktop at');
  const there = (await world().desktop.device.client.call('listSessions', {})).find((s) => s.title === title)!.workspace;
  expect(git(there, ['rev-parse', 'HEAD']).trim()).toBe(head);
  expect(git(there, ['status', '--porcelain'])).toBe(status);
  expect(readFileSync(join(there, 'plan-claude.txt'), 'utf8').trim()).toBe('the plan');
  expect(readFileSync(join(there, 'README.md'), 'utf8')).toBe('# carried\n\nedited, not committed\n');
  // The laptop keeps its copy in the stash, its checkout clean at the commit on the remote.
  expect(git(repo, ['status', '--porcelain'])).toBe('');
  expect(git(repo, ['stash', 'list', '--format=%gs'])).toContain('baton: carried to desktop at');
  await screenshots(desktopPage, (n) => test.info().outputPath(n), 'carry-arrived');

  // The agent goes on in the same CLI session, over the carried work.
  await sendMessage(desktopPage, 'what did I say first?');
  await expect(desktop.transcript).toContainText(`I remember: ${first}`);
  expect(requestsFor(world(), 'anthropic-messages', 'what did I say first?').at(-1)?.headers['x-claude-code-session-id']).toBe(sessionId);
});
