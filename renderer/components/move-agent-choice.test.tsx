/**
 * The agent choice in the Move dialog: a target with the session's agent and others offers each
 * other one as a summary continuation, the same agent stays the default, and the pick reaches startMove.
 */
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { EligibilityView } from '../../shared/device-api.ts';
import { useSessionsStore } from '../stores/sessions-store.ts';
import { fakeDevice } from '../test-support/fake-device-api.ts';
import { eligible, readinessReport, SAMPLE_STAMP, sessionView } from '../test-support/views.ts';
import { MoveDialog } from './move-dialog.tsx';

const BOTH: EligibilityView = { ...eligible('d2', 'desktop'), otherAgents: ['codex', 'command'] };
const ONLY_SAME = eligible('d3', 'studio');

/** Opens the dialog for a Claude Code session s1, the device answering `devices`, and picks `target`. */
async function openAndPick(target: string, devices = [BOTH, ONLY_SAME]) {
  const user = userEvent.setup();
  useSessionsStore.setState({ sessions: [sessionView({ provider: 'claude-code' })] });
  fakeDevice.answer('moveEligibility', devices);
  fakeDevice.answer('checkReadiness', readinessReport([]));
  fakeDevice.answer('startMove', { ok: true, value: { handoffId: 'h1' } });
  render(<MoveDialog sessionId="s1" sessionTitle="Parser" drawnFor={SAMPLE_STAMP} onClose={vi.fn()} />);
  const dialog = screen.getByRole('dialog', { name: 'Move session' });
  await user.click(await within(dialog).findByRole('radio', { name: target }));
  return { user, dialog, start: within(dialog).getByRole('button', { name: 'Start move' }) };
}

describe('the agent choice in the Move dialog', () => {
  it("offers each other agent on a target that has the session's own too, marked as a summary continuation", async () => {
    const { dialog } = await openAndPick('desktop');
    const group = within(dialog).getByRole('group', { name: 'Agent on desktop' });
    expect(
      within(group)
        .getAllByRole('radio')
        .map((radio) => (radio as HTMLInputElement).labels?.[0]?.textContent),
    ).toEqual([
      'Continue with Claude Code (the same session)',
      'Continue with Codex: a summary continuation',
      'Continue with Command-line agent: a summary continuation',
    ]);
    expect(within(group).getByRole('radio', { name: 'Continue with Codex: a summary continuation' })).toHaveAccessibleDescription(
      'Codex cannot import a Claude Code session, so it starts from a summary of it.',
    );
    // What will happen, not what did: nothing has moved yet.
    for (const radio of within(group).getAllByRole('radio')) expect(radio).not.toHaveAccessibleDescription(/Continued/);
  });

  it('keeps the same agent the default: Start move as it opens asks for no other agent', async () => {
    const { user, dialog, start } = await openAndPick('desktop');
    expect(within(dialog).getByRole('radio', { name: 'Continue with Claude Code (the same session)' })).toBeChecked();
    await user.click(start);
    expect(fakeDevice.callsOf('startMove')).toEqual([{ sessionId: 's1', targetDeviceId: 'd2', generation: 1 }]);
  });

  it('asks the device to continue with the agent picked', async () => {
    const { user, dialog, start } = await openAndPick('desktop');
    await user.click(within(dialog).getByRole('radio', { name: 'Continue with Codex: a summary continuation' }));
    await user.click(start);
    expect(fakeDevice.callsOf('startMove')).toEqual([{ sessionId: 's1', targetDeviceId: 'd2', provider: 'codex', generation: 1 }]);
  });

  it('on a target without the session agent, keeps the agent offered in its place the default, the others after it', async () => {
    const instead: EligibilityView = { ...eligible('d4', 'nas'), continueWith: 'codex', otherAgents: ['command'] };
    const { user, dialog, start } = await openAndPick('nas', [instead]);
    const group = within(dialog).getByRole('group', { name: 'Agent on nas' });
    expect(within(group).getByRole('radio', { name: 'Continue with Codex: a summary continuation' })).toBeChecked();
    await user.click(start);
    expect(fakeDevice.callsOf('startMove')).toEqual([{ sessionId: 's1', targetDeviceId: 'd4', generation: 1 }]);
  });

  it('offers no choice for a target with only the session agent, and forgets a pick when another target is chosen', async () => {
    const { user, dialog, start } = await openAndPick('desktop');
    await user.click(within(dialog).getByRole('radio', { name: 'Continue with Codex: a summary continuation' }));
    await user.click(within(dialog).getByRole('radio', { name: 'studio' }));
    expect(within(dialog).queryByRole('group', { name: /^Agent on/ })).toBeNull();
    await user.click(start);
    expect(fakeDevice.callsOf('startMove')).toEqual([{ sessionId: 's1', targetDeviceId: 'd3', generation: 1 }]);
  });
});
