/** The devices screen's move settings: Carry my changes by default and the carry limit, saved to this device's profile. */
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { useStatusStore } from '../stores/status-store.ts';
import { fakeDevice } from '../test-support/fake-device-api.ts';
import { deviceStatus } from '../test-support/views.ts';
import { MoveSettingsCard } from './move-settings.tsx';

describe('the move settings', () => {
  it('show what this device does and save a change, saying so', async () => {
    const user = userEvent.setup();
    useStatusStore.getState().setStatus(deviceStatus());
    const saved = deviceStatus({ moveSettings: { carryByDefault: true, carryLimitMiB: 64 } });
    fakeDevice.answer('setMoveSettings', { ok: true, value: saved });
    render(<MoveSettingsCard />);
    const box = screen.getByRole('checkbox', { name: 'Carry my changes by default' });
    expect(box).not.toBeChecked();
    const limit = screen.getByRole('spinbutton', { name: /Most this device carries/ });
    expect(limit).toHaveValue(256);
    await user.click(box);
    await user.clear(limit);
    await user.type(limit, '64');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(fakeDevice.callsOf('setMoveSettings')).toEqual([{ moveSettings: { carryByDefault: true, carryLimitMiB: 64 } }]);
    expect(await screen.findByText('Saved.')).toBeInTheDocument();
    expect(screen.getByRole('checkbox', { name: 'Carry my changes by default' })).toBeChecked();
  });

  it('refuses a limit that is not a whole number of MiB without saving', async () => {
    const user = userEvent.setup();
    useStatusStore.getState().setStatus(deviceStatus());
    render(<MoveSettingsCard />);
    const limit = screen.getByRole('spinbutton', { name: /Most this device carries/ });
    await user.clear(limit);
    await user.type(limit, '0');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getByText('The limit is a whole number of MiB, from 1 to 16384.')).toBeInTheDocument();
    expect(fakeDevice.callsOf('setMoveSettings')).toEqual([]);
  });
});
