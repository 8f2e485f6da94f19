/**
 * Agent sessions through the UI, against real device processes: the New session dialog's
 * "Permissions" (its default, the choice shown in the run view and kept by a Move); adopting an
 * existing Claude Code session of the workspace (its history in the run view, the next message
 * resuming the same CLI session); the Move dialog's warning for a device whose Claude Code is
 * older; and a long adopted session loaded lazily (its newest window, earlier entries on demand). The real CLIs run (the agent-CLI lab, each device with its own homes); the desktop's
 * `claude` reports an older version than the laptop's. Each test starts from a repository of its own.
 */
import { expect, test, type Page } from '@playwright/test';
import { openAgentWorld, type AgentWorld } from './support/agent-world.ts';
import { writeClaudeSession } from '../dev-env/cli-session-files.ts';
import { openSession, runView, screenshots } from './support/devices.ts';
import { ownRepo, sessionOnLaptop } from './support/starting-points.ts';

const FIRST = 'write file plan.txt with the plan';

let world: AgentWorld;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  world = await openAgentWorld(browser, { laptop: { claude: '2.1.332 (Claude Code)' }, desktop: { claude: '2.1.300 (Claude Code)' } });
});

test.afterAll(async () => {
  await world?.close();
});

async function moveTo(page: Page, target: string): Promise<void> {
  await runView(page).move.click();
  const dialog = page.getByRole('dialog', { name: 'Move session' });
  await dialog.getByRole('radio', { name: target }).check();
  await dialog.getByRole('button', { name: 'Start move' }).click();
  await expect(dialog).toBeHidden();
}

test('New session offers Permissions (default: edit files, ask before commands); the run view shows the choice and the target keeps it after a Move', async () => {
  const { page } = world.laptop;
  await page.getByRole('button', { name: 'New session' }).click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await dialog.getByLabel('Provider').selectOption({ label: 'Demo agent' });
  const permissions = dialog.getByLabel('Permissions');
  await expect(permissions).toHaveValue('workspace');
  await expect(permissions.locator('option:checked')).toHaveText('Edit files, ask before commands');
  await expect(permissions.locator('option')).toHaveText([
    'Ask before edits and commands',
    'Edit files, ask before commands',
    'Full access',
  ]);
  await permissions.selectOption({ label: 'Ask before edits and commands' });
  await dialog.getByLabel('Workspace').fill(ownRepo(world, 'careful'));
  await dialog.getByLabel('Title').fill('Careful session');
  await dialog.getByLabel('Prompt').fill('Please edit a file');
  await dialog.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(dialog).toBeHidden();

  const laptop = runView(page);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Careful session');
  await expect(page.getByText('Permissions: Ask before edits and commands')).toBeVisible();
  // The agent asks before the edit, and is told no.
  const asking = page.getByRole('region', { name: 'Permission request' });
  await expect(asking).toContainText('Demo agent wants to Edit');
  await screenshots(page, (n) => test.info().outputPath(n), 'permissions-run-view');
  await asking.getByRole('button', { name: 'Deny' }).click();
  await expect(page.getByRole('log', { name: 'Transcript' })).toContainText('you said no');

  await moveTo(page, 'desktop');
  await expect(laptop.ownership).toContainText('generation 2');
  const desktopPage = world.desktop.page;
  await openSession(desktopPage, 'Careful session');
  await expect(runView(desktopPage).ownership).toContainText('checkpoint-import');
  await expect(desktopPage.getByText('Permissions: Ask before edits and commands')).toBeVisible();
});

test('adopts an existing Claude Code session from the New session dialog: its history is in the run view and the next message resumes it', async () => {
  const { page } = world.laptop;
  const repo = ownRepo(world, 'adopted');
  // What the user ran before Baton: the real claude in the workspace, one turn that wrote a file.
  const ran = await world.lab.run('claude', ['-p', '--permission-mode', 'acceptEdits', FIRST], {
    cwd: repo,
    env: world.homes.laptop.env,
  });
  expect(ran.code).toBe(0);
  const sessionId = world.lab.server.requests.find((r) => r.lastUserText === FIRST)?.headers['x-claude-code-session-id'];
  expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
  // The agent's file is committed and pushed, as the user would before moving.
  world.devices.sandbox.git(repo, ['add', '-A']);
  world.devices.sandbox.git(repo, ['commit', '-q', '-m', 'Add the plan']);
  world.devices.sandbox.push(repo);
  await page.getByRole('button', { name: 'New session' }).click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await dialog.getByLabel('Workspace').fill(repo);
  await dialog.getByLabel('Provider').selectOption({ label: 'Claude Code' });
  const existingGroup = dialog.getByRole('group', { name: 'Existing sessions' });
  await expect(existingGroup.getByRole('listitem')).toHaveCount(1);
  await expect(existingGroup.getByRole('listitem')).toContainText(FIRST);
  await expect(existingGroup.locator('time')).toHaveAttribute('datetime', /^\d{4}-\d\d-\d\dT/);
  await screenshots(page, (n) => test.info().outputPath(n), 'adopt-dialog');
  await existingGroup.getByRole('button', { name: `Adopt ${FIRST}` }).click();
  await expect(dialog).toBeHidden();

  const view = runView(page);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(FIRST);
  const transcript = page.getByRole('log', { name: 'Transcript' });
  await expect(transcript).toContainText('Wrote plan.txt.');
  await expect(transcript).toContainText(`Write ${repo}/plan.txt`);
  await expect(transcript).toContainText(`Adopted Claude Code session ${sessionId}`);
  await expect(view.agentMap.getByRole('listitem').first()).toContainText('Claude Code');
  await view.message.fill('what did I say first?');
  await view.message.press('Enter');
  await expect(transcript).toContainText(`I remember: ${FIRST}`);
  const resumed = world.lab.server.requests.filter((r) => r.lastUserText === 'what did I say first?').at(-1);
  expect(resumed?.headers['x-claude-code-session-id']).toBe(sessionId);
  expect(resumed?.userTexts).toEqual([FIRST, 'what did I say first?']);

  // Offered again, it is marked as already in Baton.
  await page.getByRole('button', { name: 'New session' }).click();
  await dialog.getByLabel('Workspace').fill(repo);
  await dialog.getByLabel('Provider').selectOption({ label: 'Claude Code' });
  await expect(dialog.getByRole('group', { name: 'Existing sessions' })).toContainText('Already in Baton');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
});

test('the Move dialog warns next to a device whose Claude Code is older; moved there, the session continues from a summary with that reason', async () => {
  const { page } = world.laptop;
  // A Claude Code session the laptop's Claude Code (the newer) has written.
  const title = 'Written with the newer Claude Code';
  await sessionOnLaptop(world, { title, workspace: ownRepo(world, 'older'), provider: 'claude-code', prompt: 'say hello' });
  await openSession(page, title);
  await runView(page).move.click();
  const dialog = page.getByRole('dialog', { name: 'Move session' });
  const desktop = dialog.getByRole('radio', { name: 'desktop' });
  await expect(desktop).toBeEnabled();
  const warning = 'desktop has Claude Code 2.1.300, older than the Claude Code 2.1.332 this session was written with';
  await expect(dialog).toContainText(warning);
  await screenshots(page, (n) => test.info().outputPath(n), 'move-dialog-older-cli');
  await desktop.check();
  await dialog.getByRole('button', { name: 'Start move' }).click();
  await expect(dialog).toBeHidden();

  const desktopPage = world.desktop.page;
  await openSession(desktopPage, title);
  const strip = runView(desktopPage).ownership;
  await expect(strip).toContainText('summary-continuation');
  await expect(strip).toContainText('The target device has Claude Code 2.1.300, older than the Claude Code 2.1.332');
});

test('a long session shows its newest entries and loads the earlier ones on demand', async () => {
  const { page } = world.laptop;
  // A Claude session of 150 turns the user had before Baton: 300 entries once adopted, more than the run view's window.
  const turns = Array.from({ length: 150 }, (_, i) => ({ user: `long session step ${i}`, assistant: `done with step ${i}` }));
  const repo = ownRepo(world, 'long');
  writeClaudeSession(world.homes.laptop.claudeConfigDir, repo, { turns });
  await page.getByRole('button', { name: 'New session' }).click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await dialog.getByLabel('Workspace').fill(repo);
  await dialog.getByLabel('Provider').selectOption({ label: 'Claude Code' });
  await dialog.getByRole('group', { name: 'Existing sessions' }).getByRole('button', { name: 'Adopt long session step 0' }).click();
  await expect(dialog).toBeHidden();

  const transcript = page.getByRole('log', { name: 'Transcript' });
  await expect(transcript).toContainText('done with step 149');
  // The newest 200 of 301 entries (300 adopted, then Baton's note) are loaded; the first turns are not.
  const earlier = transcript.getByRole('button', { name: 'Show earlier entries (101 more)' });
  await expect(earlier).toBeVisible();
  await expect(transcript).not.toContainText('long session step 0');
  await earlier.click();
  await expect(transcript).toContainText('long session step 0');
  await expect(transcript.getByRole('button', { name: /Show earlier entries/ })).toHaveCount(0);
  await expect(transcript.getByRole('listitem')).toHaveCount(301);
});
