/** The handoff history: each move and how it ended, marking the completed ones whose checkpoint the backend no longer keeps. */
import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeDevice } from '../test-support/fake-device-api.ts';
import { handoffView, historyTo } from '../test-support/views.ts';
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
    render(<HandoffHistory sessionId="s1" />);
    const history = screen.getByRole('region', { name: 'Handoff history' });
    const items = await within(history).findAllByRole('listitem');
    expect(items.map((item) => item.textContent?.includes('checkpoint no longer kept'))).toEqual([true, false, false]);
  });
});
