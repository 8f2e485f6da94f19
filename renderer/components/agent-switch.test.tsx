/**
 * Continuing with another agent in the UI: the Move dialog's "continue with" row, the Switch agent
 * dialog, and the transcript's line before each agent's part of the history.
 */
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { ProviderChange } from '../../shared/agent-switch.ts';
import type { ProviderView, SessionDetail } from '../../shared/device-api.ts';
import { useDevicesStore } from '../stores/devices-store.ts';
import { useSessionsStore } from '../stores/sessions-store.ts';
import { fakeDevice } from '../test-support/fake-device-api.ts';
import { eligible, readinessReport, SAMPLE_STAMP, sessionView } from '../test-support/views.ts';
import { MoveDialog } from './move-dialog.tsx';
import { SwitchAgentDialog } from './switch-agent-dialog.tsx';
import { Transcript } from './transcript.tsx';

const provider = (id: string, label: string, available = true): ProviderView => ({
  id,
  label,
  available,
  version: null,
  checkpointImport: id !== 'command',
  permissions: id !== 'command',
  adoption: false,
});

describe('continuing with another agent', () => {
  it('lists a device without the session\'s agent as "continue with" another, a summary continuation', async () => {
    const summary = { code: 'summary_continuation', message: 'Continue with Codex: a summary continuation (desktop has no Claude Code).' };
    fakeDevice.answer('moveEligibility', [{ ...eligible('d2', 'desktop', summary), continueWith: 'codex' }]);
    fakeDevice.answer('checkReadiness', readinessReport([]));
    render(<MoveDialog sessionId="s1" sessionTitle="Parser" drawnFor={SAMPLE_STAMP} onClose={vi.fn()} />);
    const radio = await screen.findByRole('radio', { name: 'desktop' });
    expect(radio).toBeEnabled();
    expect(radio).toHaveAccessibleDescription(summary.message);
  });

  it('offers the other agents of this device in Switch agent, and switches to the chosen one', async () => {
    useSessionsStore.setState({
      providers: [
        provider('demo', 'Demo agent'),
        provider('claude-code', 'Claude Code'),
        provider('codex', 'Codex'),
        provider('command', 'Command-line agent', false),
      ],
    });
    fakeDevice.answer('switchAgent', { ok: true, value: undefined });
    const onClose = vi.fn();
    render(<SwitchAgentDialog session={sessionView({ provider: 'claude-code', isOwner: true })} onClose={onClose} />);
    const dialog = screen.getByRole('dialog', { name: 'Switch agent' });
    expect(
      within(dialog)
        .getAllByRole('radio')
        .map((r) => r.getAttribute('value')),
    ).toEqual(['codex']);
    expect(within(dialog).getByRole('radio', { name: 'Codex' })).toHaveAccessibleDescription(/summary continuation/);
    const switchButton = within(dialog).getByRole('button', { name: 'Switch' });
    expect(switchButton).toBeDisabled();
    await userEvent.click(within(dialog).getByRole('radio', { name: 'Codex' }));
    await userEvent.click(switchButton);
    expect(fakeDevice.callsOf('switchAgent')).toEqual([{ sessionId: 's1', provider: 'codex' }]);
    expect(onClose).toHaveBeenCalled();
  });

  it("shows a line before each agent's part of the transcript, and the earlier agent's replies under its name", () => {
    useDevicesStore.setState({
      devices: [
        {
          id: 'd2',
          name: 'desktop',
          status: 'enrolled',
          online: true,
          presence: 'online',
          offlineSince: null,
          lastSeenAt: 1,
          isThisDevice: false,
        },
      ],
    });
    const entry = (id: string, role: 'user' | 'assistant', text: string) => ({ id, at: 1, role, agentId: 'main', text });
    const change: ProviderChange = { from: 'claude-code', to: 'codex', at: 2, afterEntryId: 'e2', deviceId: 'd2', handoffId: 'h1' };
    const session: SessionDetail = {
      ...sessionView({ provider: 'codex' }),
      agents: [{ id: 'main', parentId: null, name: 'Codex', role: 'main', status: 'waiting', lastActivityAt: 1 }],
      transcript: [entry('e1', 'user', 'say hello'), entry('e2', 'assistant', 'Hello.'), entry('e3', 'assistant', 'Carrying on.')],
      transcriptFrom: 0,
      transcriptTotal: 3,
      permissionRequests: [],
      permissionOutcomes: [],
      providerChanges: [change],
    };
    render(<Transcript session={session} />);
    const log = screen.getByRole('log', { name: 'Transcript' });
    const lines = within(log).getAllByRole('separator');
    expect(lines.map((l) => l.textContent)).toEqual([
      "Claude Code's part",
      'Codex continues from here (moved to desktop), from a summary of the Claude Code part',
    ]);
    expect(within(log).getByText('Hello.').closest('li')).toHaveTextContent('Claude Code');
    expect(within(log).getByText('Carrying on.').closest('li')).toHaveTextContent('Codex');
  });
});
