/**
 * A permission request in the run view, as docs/using-agents.md shows it: a demo-agent session on the
 * laptop whose agent asks to run a command, shown on the desktop (the device that does not own it),
 * where it can be answered too; then its answer in the transcript.
 */
import { expect, test } from '@playwright/test';
import { openSession, runView, startDemoSessionInUi, useWorld } from '../support/devices.ts';
import { saveScreen } from '../support/screens.ts';

const world = useWorld();

test('a permission request, on the device that does not own the session', async () => {
  const { laptop, desktop, devices } = world();
  await startDemoSessionInUi(laptop.page, { workspace: devices.repo, title: 'Release checklist', prompt: 'Please run a command' });
  await openSession(desktop.page, 'Release checklist');
  const asked = runView(desktop.page).main.getByRole('region', { name: 'Permission request' });
  await expect(asked).toContainText('Demo agent wants to run npm test on laptop.');
  await saveScreen(desktop.page, 'permission-request', { docs: true });
  await asked.getByRole('button', { name: 'Allow', exact: true }).click();
  // The answer in the transcript, its command shown as code.
  await expect(desktop.page.getByRole('log', { name: 'Transcript' })).toContainText('Permission to run npm test: allowed on desktop');
  await saveScreen(desktop.page, 'permission-answered');
});
