/**
 * The set-up screen's two ways in: creating an account hosts its sync backend on this device unless a
 * backend is configured, and a join whose backend answers at none of the invite's addresses says
 * which it tried and why that may be, with Try again.
 */
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { useStatusStore } from '../stores/status-store.ts';
import { fakeDevice } from '../test-support/fake-device-api.ts';
import { deviceStatus } from '../test-support/views.ts';
import { FirstRun } from './first-run.tsx';

const NEW = { enrolled: false, deviceId: null, accountId: null, reachability: null, backendKey: null, backendHome: null } as const;

function setUp(backendUrls: string[]) {
  useStatusStore.setState({ status: deviceStatus({ ...NEW, deviceName: 'desk', backendUrls }) });
  render(<FirstRun />);
}

describe('creating an account', () => {
  it('hosts the sync backend on this device when none is configured, asking for no address', async () => {
    const user = userEvent.setup();
    fakeDevice.answer('createAccount', { ok: true, value: deviceStatus() });
    setUp([]);
    const create = screen.getByRole('region', { name: 'Create an account' });
    expect(within(create).getByRole('radio', { name: /On this device/ })).toBeChecked();
    expect(within(create).queryByRole('textbox', { name: 'Backend addresses' })).toBeNull();
    await user.click(within(create).getByRole('button', { name: 'Create account' }));
    expect(fakeDevice.callsOf('createAccount')).toEqual([{ deviceName: 'desk' }]);
  });

  it('offers the configured backend instead, and takes an address when asked to use one that runs elsewhere', async () => {
    const user = userEvent.setup();
    setUp(['https://10.0.0.5:8787']);
    const create = screen.getByRole('region', { name: 'Create an account' });
    expect(within(create).getByRole('radio', { name: /One that runs elsewhere/ })).toBeChecked();
    expect(within(create).getByRole('textbox', { name: 'Backend addresses' })).toHaveValue('https://10.0.0.5:8787');
    await user.click(within(create).getByRole('radio', { name: /On this device/ }));
    expect(within(create).queryByRole('textbox', { name: 'Backend addresses' })).toBeNull();
  });
});

describe('joining with an invite', () => {
  it('names the addresses it tried and the likely cause when none answered, and tries again', async () => {
    const user = userEvent.setup();
    const sentence =
      "Couldn't reach the sync backend on desk at https://192.168.1.23:8787 or https://100.101.102.103:8787. Check that this machine is on " +
      'the same network (or VPN) as desk, that desk is awake with Baton running, and that its firewall lets port 8787 in; then try again.';
    fakeDevice.answer('joinAccount', { ok: false, code: 'backend_unreachable', message: sentence });
    setUp([]);
    const join = screen.getByRole('region', { name: 'Join with an invite' });
    await user.type(within(join).getByRole('textbox', { name: 'Invite' }), 'baton-invite:abc');
    await user.click(within(join).getByRole('button', { name: 'Join' }));
    expect(await within(join).findByRole('alert')).toHaveTextContent(sentence);
    await user.click(within(join).getByRole('button', { name: 'Try again' }));
    expect(fakeDevice.callsOf('joinAccount')).toHaveLength(2);
  });
});
