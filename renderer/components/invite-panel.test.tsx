/**
 * Devices → Add a device, as a person meets it on the device hosting the account's backend: while the
 * backend listens on this machine only the region says an invite works only here and offers to let
 * other machines reach it; once they may, it lists their addresses and what to check, and turning it
 * off is one click that says what stops working. A device whose backend addresses are all loopback is
 * told the same; an invite made for this machine only says so.
 */
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { HostedBackendView } from '../../shared/device-api.ts';
import { useStatusStore } from '../stores/status-store.ts';
import { fakeDevice } from '../test-support/fake-device-api.ts';
import { deviceStatus } from '../test-support/views.ts';
import { InvitePanel } from './invite-panel.tsx';

const HOSTED: HostedBackendView = { state: 'running', port: 8787, shared: false, addresses: [], error: null };
const SHARED: HostedBackendView = {
  ...HOSTED,
  shared: true,
  addresses: ['https://192.168.1.23:8787', 'https://100.101.102.103:8787'],
};
const ON_THIS_MACHINE = /works only for another device on this machine/;

/** The region as the device hosting the backend (`hosted`) shows it. */
function hostedPanel(hosted: HostedBackendView) {
  useStatusStore.setState({
    status: deviceStatus({ deviceName: 'desk', backendUrls: ['https://127.0.0.1:8787'], backendHome: { where: 'this-device', hosted } }),
  });
  render(<InvitePanel />);
  return screen.getByRole('region', { name: 'Add a device' });
}

describe('Add a device on the device hosting the backend', () => {
  it('says an invite works only on this machine while the backend listens only here, and offers to let other machines reach it', async () => {
    const user = userEvent.setup();
    fakeDevice.answer('shareBackend', {
      ok: true,
      value: deviceStatus({ backendHome: { where: 'this-device', hosted: SHARED } }),
    });
    const region = hostedPanel(HOSTED);
    expect(region).toHaveTextContent(ON_THIS_MACHINE);
    await user.click(within(region).getByRole('button', { name: /other machines/ }));
    expect(fakeDevice.callsOf('shareBackend')).toEqual([{ shared: true }]);
    expect(await within(region).findByRole('list', { name: 'Other machines reach your sync backend at:' })).toHaveTextContent(
      'https://192.168.1.23:8787',
    );
    expect(region).not.toHaveTextContent(ON_THIS_MACHINE);
  });

  it('lists the addresses other machines use and what to check when they cannot, and stops sharing in one click saying what stops', async () => {
    const user = userEvent.setup();
    fakeDevice.answer('shareBackend', { ok: true, value: deviceStatus({ backendHome: { where: 'this-device', hosted: HOSTED } }) });
    const region = hostedPanel(SHARED);
    expect(region).not.toHaveTextContent(ON_THIS_MACHINE);
    const list = within(region).getByRole('list', { name: 'Other machines reach your sync backend at:' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(SHARED.addresses);
    expect(region).toHaveTextContent('same network as this one (or the same VPN, such as a tailnet)');
    expect(region).toHaveTextContent("this machine's firewall must let TCP port 8787 in");
    expect(region).toHaveTextContent("Other devices then can't sync or move sessions until you let them again.");
    await user.click(within(region).getByRole('button', { name: 'Stop letting other machines reach it' }));
    expect(fakeDevice.callsOf('shareBackend')).toEqual([{ shared: false }]);
    expect(await within(region).findByRole('status')).toHaveTextContent(/Only this machine reaches your sync backend now/);
  });

  it('says why when other machines could not be let in, and keeps the button', async () => {
    const user = userEvent.setup();
    fakeDevice.answer('shareBackend', {
      ok: false,
      code: 'port_in_use',
      message: 'Port 8787, which the sync backend on this device keeps, is in use by another program.',
    });
    const region = hostedPanel(HOSTED);
    await user.click(within(region).getByRole('button', { name: 'Let other machines reach this backend' }));
    expect(await within(region).findByRole('alert')).toHaveTextContent('Port 8787, which the sync backend on this device keeps, is in use');
  });

  it('says when the machine has no address another machine could use', () => {
    const region = hostedPanel({ ...SHARED, addresses: [] });
    expect(region).toHaveTextContent('This machine has no network address another machine could use now');
  });
});

describe('Add a device on other devices', () => {
  it('tells a device whose backend addresses are all loopback that its invite works only on this machine, and says so of the invite', async () => {
    const user = userEvent.setup();
    useStatusStore.setState({ status: deviceStatus({ backendUrls: ['http://127.0.0.1:7070', 'https://[::1]:7071'] }) });
    fakeDevice.answer('createInvite', {
      ok: true,
      value: { invite: 'baton-invite:x', inviteId: 'i1', expiresAt: Date.now() + 60_000, thisMachineOnly: true },
    });
    render(<InvitePanel />);
    const region = screen.getByRole('region', { name: 'Add a device' });
    expect(region).toHaveTextContent(ON_THIS_MACHINE);
    expect(within(region).queryByRole('button', { name: /other machines/ })).toBeNull();
    await user.click(within(region).getByRole('button', { name: 'Add a device' }));
    expect(await within(region).findByRole('textbox', { name: 'Invite' })).toHaveValue('baton-invite:x');
    expect(region).toHaveTextContent('for a device on this machine only');
  });

  it('says nothing of this machine to a device whose backend another machine reaches', () => {
    useStatusStore.setState({
      status: deviceStatus({
        backendUrls: ['https://192.168.1.23:8787'],
        backendHome: { where: 'device', deviceId: 'd0', deviceName: 'desk' },
      }),
    });
    render(<InvitePanel />);
    const region = screen.getByRole('region', { name: 'Add a device' });
    expect(region).not.toHaveTextContent(ON_THIS_MACHINE);
    expect(within(region).queryByRole('button', { name: /other machines/ })).toBeNull();
  });
});
