/**
 * Move here, off the owner: the button in the ownership strip asks the owner, says it asked (until
 * the session moves), and says at once why not (an offline owner, until it is back); the blocked
 * alert the owner published says where each fix is made — the owner's tree on the owner, this
 * device's own checkout here — offers no Commit or Push here, asks the owner for a fresh clone here,
 * and Check again asks the owner again — offered only on the two devices of the move.
 */
import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { MoveBlockView, SessionView } from '../../shared/device-api.ts';
import type { Blocker } from '../../shared/readiness.ts';
import { useBlockedPanel } from '../stores/handoffs-store.ts';
import { useDevicesStore } from '../stores/devices-store.ts';
import { useStatusStore } from '../stores/status-store.ts';
import { fakeDevice } from '../test-support/fake-device-api.ts';
import { checkoutBlocker, deviceStatus, handoffIn, REQUESTED_AT, sessionView } from '../test-support/views.ts';
import { BlockedAlert } from './blocked-alert.tsx';
import { OwnershipStrip } from './ownership-strip.tsx';

/** The laptop (d1) owns s1; this page is the desktop's (d2). */
const remote = (over: Partial<SessionView> = {}) => sessionView({ isOwner: false, condition: 'remote', ...over });

function renderStrip(session: SessionView) {
  useStatusStore.getState().setStatus(deviceStatus({ deviceId: 'd2', deviceName: 'desktop' }));
  const { unmount, rerender } = render(<OwnershipStrip session={session} onMove={vi.fn()} />);
  const redraw = (next: SessionView) => rerender(<OwnershipStrip session={next} onMove={vi.fn()} />);
  return Object.assign(screen.getByRole('region', { name: 'Ownership' }), { unmount, redraw });
}

/** The laptop as the devices list shows it: online or offline. */
const laptopIs = (presence: 'online' | 'offline') =>
  useDevicesStore.getState().setDevices([
    {
      id: 'd1',
      name: 'laptop',
      status: 'enrolled',
      online: presence === 'online',
      presence,
      offlineSince: presence === 'offline' ? REQUESTED_AT : null,
      lastSeenAt: REQUESTED_AT,
      isThisDevice: false,
    },
  ]);

const DIRTY: Blocker = {
  code: 'dirty_tree',
  repo: '/w',
  message: 'The workspace has uncommitted changes.',
  fix: 'git -C /w commit -am "…"',
  action: { kind: 'commit', repo: '/w' },
  details: { files: ['notes.txt'], fileCount: 1 },
};
const keptBlock: MoveBlockView = {
  sourceDeviceId: 'd1',
  sourceName: 'laptop',
  generation: 1,
  askedBy: 'd2',
  targetDeviceId: 'd2',
  targetName: 'desktop',
  blockers: [DIRTY],
  foundBy: 'readiness',
  handoffId: null,
  at: REQUESTED_AT,
};

function AlertOfSession({ session }: { session: SessionView }) {
  const blocked = useBlockedPanel(session);
  return blocked ? <BlockedAlert sessionId={session.id} blocked={blocked} /> : null;
}

describe('Move here', () => {
  it('asks the owner to move the session here and says it asked', async () => {
    fakeDevice.answer('moveHere', { ok: true, value: undefined });
    const strip = renderStrip(remote());
    await userEvent.click(within(strip).getByRole('button', { name: 'Move here' }));
    expect(fakeDevice.callsOf('moveHere')).toEqual([{ sessionId: 's1', generation: 1 }]);
    expect(await within(strip).findByRole('status')).toHaveTextContent('Asked laptop to move it here; it checks readiness first.');
    // It moved here and back: the note of that ask is not said of the session as it is now.
    strip.redraw(remote({ generation: 3 }));
    expect(within(strip).queryByText(/Asked laptop/)).toBeNull();
  });

  it('says at once why not when the owner is offline, until it is back', async () => {
    const message = 'laptop is offline, so it cannot move the session here.';
    fakeDevice.answer('moveHere', { ok: false, code: 'source_offline', message });
    laptopIs('offline');
    const strip = renderStrip(remote());
    expect(within(strip).getByText(/— offline since/)).toBeInTheDocument();
    await userEvent.click(within(strip).getByRole('button', { name: 'Move here' }));
    expect(await within(strip).findByText(message)).toBeInTheDocument();
    act(() => laptopIs('online'));
    expect(within(strip).queryByText(message)).toBeNull();
    expect(within(strip).queryByText(/— offline/)).toBeNull();
  });

  it('is not offered on the owner, nor while a move runs', () => {
    const owned = renderStrip(sessionView());
    expect(within(owned).queryByRole('button', { name: 'Move here' })).toBeNull();
    owned.unmount();
    const moving = renderStrip(remote({ condition: 'moving', activeHandoff: handoffIn('requested') }));
    expect(within(moving).queryByRole('button', { name: 'Move here' })).toBeNull();
    expect(within(moving).queryByRole('button', { name: 'Move' })).toBeNull();
  });

  it("shows the owner's block with its fixes made on the owner, no action here, and Check again asks the owner again", async () => {
    fakeDevice.answer('moveHere', { ok: true, value: undefined });
    useStatusStore.getState().setStatus(deviceStatus({ deviceId: 'd2', deviceName: 'desktop' }));
    render(<AlertOfSession session={remote({ blocked: keptBlock })} />);
    const alert = screen.getByRole('alert', { name: 'Handoff blocked' });
    expect(alert).toHaveTextContent('Moving it from laptop here stopped before anything moved');
    expect(alert).toHaveTextContent('Once nothing blocks it, laptop moves it here on its own.');
    expect(alert).toHaveTextContent('Make each fix on laptop, where its files are.');
    expect(within(alert).queryByRole('button', { name: 'Commit' })).toBeNull();
    expect(within(alert).queryByRole('button', { name: 'Push' })).toBeNull();
    await userEvent.click(within(alert).getByRole('button', { name: 'Check again' }));
    expect(fakeDevice.callsOf('moveHere')).toEqual([{ sessionId: 's1', generation: 1 }]);
    expect(fakeDevice.callsOf('startMove')).toEqual([]);
  });

  it('offers no Check again on a device the move is not to: it would ask for the session here', async () => {
    useStatusStore.getState().setStatus(deviceStatus({ deviceId: 'd3', deviceName: 'server' }));
    render(<AlertOfSession session={remote({ blocked: { ...keptBlock, askedBy: null } })} />);
    const alert = screen.getByRole('alert', { name: 'Handoff blocked' });
    expect(alert).toHaveTextContent('Moving it from laptop to desktop stopped before anything moved');
    expect(alert).toHaveTextContent('laptop checks again once each item is fixed.');
    expect(within(alert).queryByRole('button', { name: 'Check again' })).toBeNull();
    expect(within(alert).getByRole('button', { name: 'Dismiss' })).toBeVisible();
  });

  it('says a fix of this device’s own checkout is made here, and asks the owner for a fresh clone here', async () => {
    fakeDevice.answer('moveHere', { ok: true, value: undefined });
    useStatusStore.getState().setStatus(deviceStatus({ deviceId: 'd2', deviceName: 'desktop' }));
    const checkout = checkoutBlocker('desktop', 'd2');
    render(<AlertOfSession session={remote({ blocked: { ...keptBlock, blockers: [checkout], foundBy: 'target' } })} />);
    const alert = screen.getByRole('alert', { name: 'Handoff blocked' });
    expect(alert).not.toHaveTextContent('on laptop');
    expect(alert).not.toHaveTextContent('where its files are');
    await userEvent.click(within(alert).getByRole('button', { name: 'Move into a fresh clone on this device' }));
    expect(fakeDevice.callsOf('moveHere')).toEqual([{ sessionId: 's1', generation: 1, freshClone: true }]);
    expect(fakeDevice.callsOf('startMove')).toEqual([]);
  });
});
