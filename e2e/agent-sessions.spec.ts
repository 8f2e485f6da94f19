/**
 * Agent sessions through the UI, against real device processes: the New session dialog's
 * "Permissions" (its default, the choice shown in the run view and kept by a Move); adopting an
 * existing Claude Code session of the workspace (its history in the run view, the next message
 * resuming the same CLI session); and the Move dialog's warning for a device whose Claude Code is
 * older. Claude Code here is the stand-in CLI (dev-env/stand-ins) reporting a version per device;
 * the session files it adopts are written as the real CLI writes them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { writeClaudeSession } from '../dev-env/cli-session-files.ts';
import { standInReporting } from '../dev-env/stand-ins/versioned-cli.ts';
import { openSession, openWorld, runView, screenshots, type World } from './support/devices.ts';

let world: World;
let root = '';

test.describe.configure({ mode: 'serial' });

/** The env of a device whose `claude` says `version`, with its own Claude config folder. */
function claudeAt(name: string, version: string): NodeJS.ProcessEnv {
  const bin = standInReporting(join(root, `${name}-bin`), 'claude', `${version} (Claude Code)`);
  return { PATH: [bin, process.env.PATH ?? ''].join(delimiter), CLAUDE_CONFIG_DIR: join(root, `${name}-claude`) };
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  root = mkdtempSync(join(tmpdir(), 'baton-e2e-cli-'));
  world = await openWorld(browser, { laptop: claudeAt('laptop', '2.1.332'), desktop: claudeAt('desktop', '2.1.300') });
  const { sandbox, repo } = world.devices;
  sandbox.commitFile(repo, 'src/main.ts', 'export {};\n', 'Add the entry point');
  sandbox.push(repo);
});

test.afterAll(async () => {
  await world?.close();
  rmSync(root, { recursive: true, force: true });
});

async function moveTo(page: Page, target: string): Promise<void> {
  await runView(page).move.click();
  const dialog = page.getByRole('dialog', { name: 'Move session' });
  await dialog.getByRole('radio', { name: target }).check();
  await dialog.getByRole('button', { name: 'Start move' }).click();
  await expect(dialog).toBeHidden();
}

test('New session offers Permissions (default: edit in the workspace); the run view shows the choice and the target keeps it after a Move', async () => {
  const { page } = world.laptop;
  await page.getByRole('button', { name: 'New session' }).click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await dialog.getByLabel('Provider').selectOption({ label: 'Demo agent' });
  const permissions = dialog.getByLabel('Permissions');
  await expect(permissions).toHaveValue('workspace');
  await expect(permissions.locator('option:checked')).toHaveText('Edit files in the workspace');
  await expect(permissions.locator('option')).toHaveText(['Ask before editing', 'Edit files in the workspace', 'Full access']);
  await permissions.selectOption({ label: 'Ask before editing' });
  await dialog.getByLabel('Workspace').fill(world.devices.repo);
  await dialog.getByLabel('Title').fill('Careful session');
  await dialog.getByLabel('Prompt').fill('Please edit a file');
  await dialog.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(dialog).toBeHidden();

  const laptop = runView(page);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Careful session');
  await expect(page.getByText('Permissions: Ask before editing')).toBeVisible();
  await expect(page.getByRole('log', { name: 'Transcript' })).toContainText('Permission refused');
  await screenshots(page, (n) => test.info().outputPath(n), 'permissions-run-view');

  await moveTo(page, 'desktop');
  await expect(laptop.ownership).toContainText('generation 2');
  const desktopPage = world.desktop.page;
  await openSession(desktopPage, 'Careful session');
  await expect(runView(desktopPage).ownership).toContainText('checkpoint-import');
  await expect(desktopPage.getByText('Permissions: Ask before editing')).toBeVisible();
});

test('adopts an existing Claude Code session from the New session dialog: its history is in the run view and the next message resumes it', async () => {
  const { page } = world.laptop;
  const existing = writeClaudeSession(join(root, 'laptop-claude'), world.devices.repo, {
    turns: [
      {
        user: 'Tidy the parser module',
        assistant: 'I split parse.ts in two.',
        wrote: { file: 'src/parse-head.ts', content: 'export {};' },
      },
    ],
    modifiedAt: new Date(Date.now() - 3_600_000),
  });
  await page.getByRole('button', { name: 'New session' }).click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await dialog.getByLabel('Workspace').fill(world.devices.repo);
  await dialog.getByLabel('Provider').selectOption({ label: 'Claude Code' });
  const existingGroup = dialog.getByRole('group', { name: 'Existing sessions' });
  await expect(existingGroup.getByRole('listitem')).toHaveCount(1);
  await expect(existingGroup.getByRole('listitem')).toContainText('Tidy the parser module');
  await expect(existingGroup.locator('time')).toHaveAttribute('datetime', /^\d{4}-\d\d-\d\dT/);
  await screenshots(page, (n) => test.info().outputPath(n), 'adopt-dialog');
  await existingGroup.getByRole('button', { name: 'Adopt Tidy the parser module' }).click();
  await expect(dialog).toBeHidden();

  const view = runView(page);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Tidy the parser module');
  const transcript = page.getByRole('log', { name: 'Transcript' });
  await expect(transcript).toContainText('I split parse.ts in two.');
  await expect(transcript).toContainText(`Write ${world.devices.repo}/src/parse-head.ts`);
  await expect(transcript).toContainText(`Adopted Claude Code session ${existing.sessionId}`);
  await expect(view.agentMap.getByRole('listitem').first()).toBeVisible();
  await view.message.fill('carry on');
  await view.message.press('Enter');
  await expect(transcript).toContainText(`Resumed session ${existing.sessionId}`);

  // Offered again, it is marked as already in Baton.
  await page.getByRole('button', { name: 'New session' }).click();
  await dialog.getByLabel('Workspace').fill(world.devices.repo);
  await dialog.getByLabel('Provider').selectOption({ label: 'Claude Code' });
  await expect(dialog.getByRole('group', { name: 'Existing sessions' })).toContainText('Already in Baton');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
});

test('the Move dialog warns next to a device whose Claude Code is older; moved there, the session continues from a summary with that reason', async () => {
  const { page } = world.laptop;
  await openSession(page, 'Tidy the parser module');
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
  await openSession(desktopPage, 'Tidy the parser module');
  const strip = runView(desktopPage).ownership;
  await expect(strip).toContainText('summary-continuation');
  await expect(strip).toContainText('The target device has Claude Code 2.1.300, older than the Claude Code 2.1.332');
});
