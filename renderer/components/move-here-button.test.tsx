/**
 * Move here, off the owner: the button in the ownership strip asks the owner, says it asked, and
 * says at once why not (an offline owner); the blocked alert the owner published names the owner
 * for each fix, offers no Commit or Push here, and Check again asks the owner again.
 */
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { MoveBlockView, SessionView } from '../../shared/device-api.ts';
import type { Blocker } from '../../shared/readiness.ts';
import { useBlockedMove } from '../stores/handoffs-store.ts';
import { useStatusStore } from '../stores/status-store.ts';
import { fakeDevice } from '../test-support/fake-device-api.ts';
import { deviceStatus, handoffIn, REQUESTED_AT, sessionView } from '../test-support/views.ts';
import { BlockedAlert } from './blocked-alert.tsx';
import { OwnershipStrip } from './ownership-strip.tsx';

/** The laptop (d1) owns s1; this page is the desktop's (d2). */
const remote = (over: Partial<SessionView> = {}) => sessionView({ isOwner: false, condition: 'remote', ...over });

function renderStrip(session: SessionView) {
  useStatusStore.getState().setStatus(deviceStatus({ deviceId: 'd2', deviceName: 'desktop' }));
  const { unmount } = render(<OwnershipStrip session={session} onMove={vi.fn()} />);
  return Object.assign(screen.getByRole('region', { name: 'Ownership' }), { unmount });
}

const DIRTY: Blocker = {
  code: 'dirty_tree',
  repo: '/w',
  message: 'The workspace has uncommitted changes.',
  fix: 'git -C /w commit -am "…"',
  action: { kind: 'commit', repo: '/w' },
  details: { files: ['notes.txt'], fileCount: 1 },
};
const keptBlock: MoveBlockView = {
  targetDeviceId: 'd2',
  targetName: 'desktop',
  blockers: [DIRTY],
  foundBy: 'readiness',
  handoffId: null,
  at: REQUESTED_AT,
};

function AlertOfSession({ session }: { session: SessionView }) {
  const blocked = useBlockedMove(session);
  return blocked ? <BlockedAlert sessionId={session.id} blocked={blocked} ownerName={session.ownerName} /> : null;
}

describe('Move here', () => {
  it('asks the owner to move the session here and says it asked', async () => {
    fakeDevice.answer('moveHere', { ok: true, value: undefined });
    const strip = renderStrip(remote());
    await userEvent.click(within(strip).getByRole('button', { name: 'Move here' }));
    expect(fakeDevice.callsOf('moveHere')).toEqual([{ sessionId: 's1' }]);
    expect(await within(strip).findByRole('status')).toHaveTextContent('Asked laptop to move it here; it checks readiness first.');
    expect(fakeDevice.problems).toEqual([]);
  });

  it('says at once why not when the owner is offline', async () => {
    const message = 'laptop is offline, so it cannot move the session here.';
    fakeDevice.answer('moveHere', { ok: false, code: 'source_offline', message });
    const strip = renderStrip(remote());
    await userEvent.click(within(strip).getByRole('button', { name: 'Move here' }));
    expect(await within(strip).findByText(message)).toBeInTheDocument();
  });

  it('is not offered on the owner, nor while a move runs', () => {
    const owned = renderStrip(sessionView());
    expect(within(owned).queryByRole('button', { name: 'Move here' })).toBeNull();
    owned.unmount();
    const moving = renderStrip(remote({ condition: 'moving', activeHandoff: handoffIn('requested') }));
    expect(within(moving).queryByRole('button', { name: 'Move here' })).toBeNull();
    expect(within(moving).queryByRole('button', { name: 'Move' })).toBeNull();
  });

  it("shows the owner's block with each fix named for the owner, no action here, and Check again asks the owner again", async () => {
    fakeDevice.answer('moveHere', { ok: true, value: undefined });
    render(<AlertOfSession session={remote({ blocked: keptBlock })} />);
    const alert = screen.getByRole('alert', { name: 'Handoff blocked' });
    expect(alert).toHaveTextContent('The session runs on laptop: make each fix there');
    expect(alert).toHaveTextContent('— on laptop');
    expect(within(alert).queryByRole('button', { name: 'Commit' })).toBeNull();
    expect(within(alert).queryByRole('button', { name: 'Push' })).toBeNull();
    await userEvent.click(within(alert).getByRole('button', { name: 'Check again' }));
    expect(fakeDevice.callsOf('moveHere')).toEqual([{ sessionId: 's1' }]);
    expect(fakeDevice.callsOf('startMove')).toEqual([]);
  });
});
