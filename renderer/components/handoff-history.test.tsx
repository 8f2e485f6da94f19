/** The handoff history: each move and how it ended, marking the completed ones whose checkpoint the backend no longer keeps, and Fork from here. */
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { HISTORY_PAGE } from '../../shared/device-api.ts';
import { fakeDevice } from '../test-support/fake-device-api.ts';
import { handoffView, historyTo, sessionView } from '../test-support/views.ts';
import { HandoffHistory } from './handoff-history.tsx';

const completed = (id: string, checkpointKept: boolean) =>
  handoffView({ id, state: 'completed', history: historyTo('completed'), resumePath: 'checkpoint-import', checkpointKept });

describe('the handoff history', () => {
  it('marks a completed move whose checkpoint was collected, and no other', async () => {
    fakeDevice.answer('handoffHistory', [
      completed('h1', false),
      completed('h2', true),
      handoffView({ id: 'h3', state: 'cancelled', checkpointKept: false }),
    ]);
    render(<HandoffHistory sessionId="s1" provider="demo" />);
    const history = screen.getByRole('region', { name: 'Handoff history' });
    const items = await within(history).findAllByRole('listitem');
    expect(items.map((item) => item.textContent?.includes('checkpoint no longer kept'))).toEqual([true, false, false]);
  });

  it('says which device asked for each move: the source with Move, the target with Move here', async () => {
    fakeDevice.answer('handoffHistory', [
      completed('h1', true),
      handoffView({ id: 'h2', state: 'completed', initiatorDeviceId: 'd2', history: historyTo('completed') }),
    ]);
    render(<HandoffHistory sessionId="s1" provider="demo" />);
    const items = await within(screen.getByRole('region', { name: 'Handoff history' })).findAllByRole('listitem');
    expect(items[0]).toHaveTextContent('laptop → desktop');
    expect(items[0]).toHaveTextContent('asked on laptop');
    expect(items[1]).toHaveTextContent('asked on desktop with Move here');
  });

  it('offers Fork from here on each completed move, disabled with the reason where the checkpoint was collected', async () => {
    fakeDevice.answer('handoffHistory', [
      completed('h1', false),
      completed('h2', true),
      handoffView({ id: 'h3', state: 'cancelled', checkpointKept: true }),
    ]);
    render(<HandoffHistory sessionId="s1" provider="demo" />);
    const items = await within(screen.getByRole('region', { name: 'Handoff history' })).findAllByRole('listitem');
    const buttons = items.map((item) => within(item).queryByRole('button', { name: 'Fork from here' }));
    expect(buttons.map((b) => (b === null ? 'none' : b.hasAttribute('disabled') ? 'disabled' : 'enabled'))).toEqual([
      'disabled',
      'enabled',
      'none',
    ]);
    expect(buttons[0]).toHaveAccessibleDescription('Its checkpoint is no longer kept, so there is nothing to fork from.');
  });

  it('forks from the move it is on and opens the fork', async () => {
    const handoff = completed('h2', true);
    fakeDevice.answer('handoffHistory', [handoff]);
    fakeDevice.answer('forkSession', { ok: true, value: sessionView({ id: 'fork-1', title: 'Plan (fork)' }) });
    render(<HandoffHistory sessionId={handoff.sessionId} provider="demo" />);
    await userEvent.click(await screen.findByRole('button', { name: 'Fork from here' }));
    expect(fakeDevice.callsOf('forkSession')).toEqual([{ sessionId: handoff.sessionId, handoffId: 'h2' }]);
    expect(window.location.hash).toContain('fork-1');
  });

  it('shows the newest page of moves, and the page before the oldest one shown on Show older moves, until none are left', async () => {
    // 30 moves, m29 the newest: a full first page leaves older ones to load, a short second page ends them.
    const move = (i: number) =>
      handoffView({ id: `m${i}`, state: 'cancelled', history: [{ state: 'requested', at: 1000 + i, deviceId: 'd1' }] });
    const newest = Array.from({ length: 30 }, (_, i) => move(29 - i));
    fakeDevice.answer('handoffHistory', ({ before, limit = 20 }) => {
      const from = before === undefined ? 0 : newest.findIndex((h) => h.id === before) + 1;
      return Promise.resolve(newest.slice(from, from + limit));
    });
    render(<HandoffHistory sessionId="s1" provider="demo" />);
    const history = screen.getByRole('region', { name: 'Handoff history' });
    expect(await within(history).findAllByRole('listitem')).toHaveLength(HISTORY_PAGE);
    await userEvent.click(within(history).getByRole('button', { name: 'Show older moves' }));
    await waitFor(() => expect(within(history).getAllByRole('listitem')).toHaveLength(30));
    expect(within(history).queryByRole('button', { name: 'Show older moves' })).toBeNull();
    expect(fakeDevice.callsOf('handoffHistory')).toEqual([
      { sessionId: 's1', limit: HISTORY_PAGE },
      { sessionId: 's1', before: `m${30 - HISTORY_PAGE}`, limit: HISTORY_PAGE },
    ]);
  });

  it('says why a fork failed, beside the button', async () => {
    fakeDevice.answer('handoffHistory', [completed('h2', true)]);
    fakeDevice.answer('forkSession', { ok: false, code: 'pin_failed', message: 'The origin cannot be reached.' });
    render(<HandoffHistory sessionId="s1" provider="demo" />);
    await userEvent.click(await screen.findByRole('button', { name: 'Fork from here' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The origin cannot be reached.');
  });
});
