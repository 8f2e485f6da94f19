/**
 * The run view while a Move runs, as the README shows it: a demo-agent session on the laptop moving to
 * the desktop, held (its gate, holdAt) while the desktop is about to claim the checkpoint, so the stepper shows
 * the steps done with their times and the one under way.
 */
import { expect, test } from '@playwright/test';
import { holdAt } from '../../dev-env/step-holds.ts';
import { runView, startDemoSessionInUi, startMoveInUi, useWorld } from '../support/devices.ts';
import { saveScreen } from '../support/screens.ts';

const world = useWorld();

test('the run view mid-move', async () => {
  const { laptop, desktop, devices } = world();
  devices.sandbox.commitFile(devices.repo, 'src/parser.ts', 'export const parse = (s: string) => s.trim();\n', 'Add the parser');
  devices.sandbox.push(devices.repo);
  await startDemoSessionInUi(laptop.page, {
    workspace: devices.repo,
    title: 'Fix the flaky parser test',
    prompt: 'Find out why the parser test fails one run in five.',
  });
  const view = runView(laptop.page);
  await expect(laptop.page.getByRole('log', { name: 'Transcript' })).toContainText('Demo agent');
  await expect(view.message).toBeEnabled();

  const release = holdAt(desktop.device, 'sending-ownership-transferred+target-activating');
  try {
    await startMoveInUi(laptop.page, desktop.device.name);
    await expect(view.currentStep).toHaveAttribute('data-state', 'source-relinquished-and-checkpointed');
    await saveScreen(laptop.page, 'run-view-moving', { docs: true });
  } finally {
    release();
  }
  await expect(view.ownership).toContainText('generation 2');
});
