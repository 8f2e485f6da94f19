/**
 * The backend's key in the UI: the set-up screen shows a key nothing vouches for at first contact
 * and makes the account only once it is trusted, pinning it; Devices → Sync backend shows the pinned
 * key, a refused one beside it with the explicit re-pin, and takes a pasted fingerprint whatever line
 * breaks and spaces it came with.
 */
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { BackendKeyView } from '../../shared/backend-keys.ts';
import { FirstRun } from '../screens/first-run.tsx';
import { useStatusStore } from '../stores/status-store.ts';
import { fakeDevice } from '../test-support/fake-device-api.ts';
import { deviceStatus } from '../test-support/views.ts';
import { SyncBackendSettings } from './sync-backend-settings.tsx';

const PINNED = `sha256:${'a1'.repeat(32)}`;
const PRESENTED = `sha256:${'b2'.repeat(32)}`;
const NEW = { enrolled: false, deviceId: null, accountId: null, reachability: null, backendKey: null } as const;

function firstRun(backendUrl: string) {
  useStatusStore.setState({ status: deviceStatus({ ...NEW, backendUrls: [backendUrl] }) });
  fakeDevice.answer('createAccount', { ok: true, value: deviceStatus() });
  render(<FirstRun />);
  return screen.getByRole('region', { name: 'Create an account' });
}

describe('creating an account', () => {
  it('shows the key a self-signed backend presents and creates the account only once it is trusted, with it pinned', async () => {
    const user = userEvent.setup();
    fakeDevice.answer('checkBackendKeys', [{ url: 'https://10.0.0.5:8787', presented: PRESENTED, trusted: false, error: null }]);
    const create = firstRun('https://10.0.0.5:8787');
    await user.click(within(create).getByRole('button', { name: 'Create account' }));
    const check = await within(create).findByRole('group', { name: "Check the backend's key" });
    expect(check).toHaveTextContent(PRESENTED);
    expect(check).toHaveTextContent('backend key:');
    expect(fakeDevice.callsOf('createAccount')).toEqual([]);
    await user.click(within(check).getByRole('button', { name: 'Trust this key and create account' }));
    expect(fakeDevice.callsOf('createAccount')).toEqual([
      { backendUrls: ['https://10.0.0.5:8787'], deviceName: 'laptop', backendPins: [PRESENTED] },
    ]);
  });

  it('asks nothing of a backend on plain http or with a certificate a trusted authority vouches for', async () => {
    const user = userEvent.setup();
    fakeDevice.answer('checkBackendKeys', ({ backendUrls }) =>
      backendUrls.map((url) => ({ url, presented: url.startsWith('https') ? PINNED : null, trusted: true, error: null })),
    );
    const create = firstRun('http://127.0.0.1:8787');
    await user.click(within(create).getByRole('button', { name: 'Create account' }));
    await expect
      .poll(() => fakeDevice.callsOf('createAccount'))
      .toEqual([{ backendUrls: ['http://127.0.0.1:8787'], deviceName: 'laptop' }]);
    expect(within(create).queryByRole('group', { name: "Check the backend's key" })).toBeNull();
  });
});

function settings(backendKey: BackendKeyView) {
  useStatusStore.setState({ status: deviceStatus({ backendUrls: ['https://10.0.0.5:8787'], backendKey }) });
  fakeDevice.answer('pinBackendKeys', ({ backendPins }) => ({
    ok: true,
    value: deviceStatus({ backendKey: { pinned: backendPins, refused: null } }),
  }));
  render(<SyncBackendSettings />);
  return screen.getByRole('group', { name: 'Backend key' });
}

describe('Devices → Sync backend', () => {
  it('shows a refused key beside the pinned one and re-pins it only when asked', async () => {
    const user = userEvent.setup();
    const refused = { url: 'https://10.0.0.5:8787', presented: PRESENTED, reason: 'mismatch' as const, at: 1 };
    const card = settings({ pinned: [PINNED], refused });
    const alert = within(card).getByRole('alert');
    expect(alert).toHaveTextContent('The backend presented a different key');
    expect(alert).toHaveTextContent(`Pinned${PINNED}`);
    expect(alert).toHaveTextContent(`Presented${PRESENTED}`);
    expect(alert).toHaveTextContent(/pin the new one; if not, it may not be your backend/);
    expect(fakeDevice.callsOf('pinBackendKeys')).toEqual([]);
    await user.click(within(alert).getByRole('button', { name: 'Pin the presented key' }));
    expect(fakeDevice.callsOf('pinBackendKeys')).toEqual([{ backendPins: [PRESENTED] }]);
    expect(within(screen.getByRole('group', { name: 'Backend key' })).queryByRole('alert')).toBeNull();
  });

  it('pins a fingerprint pasted with line breaks, spaces and colons, and refuses one that is not', async () => {
    const user = userEvent.setup();
    const card = settings({ pinned: [PINNED], refused: null });
    expect(within(card).getByRole('list', { name: 'Pinned keys' })).toHaveTextContent(PINNED);
    const field = within(card).getByRole('textbox', { name: 'Keys to pin' });
    await user.type(field, 'sha256:b2b2 b2b2');
    await user.click(within(card).getByRole('button', { name: 'Pin these keys' }));
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(fakeDevice.callsOf('pinBackendKeys')).toEqual([]);
    await user.clear(field);
    const hex = PRESENTED.slice('sha256:'.length).toUpperCase();
    await user.type(field, ` SHA256:${hex.slice(0, 30)}\n${hex.slice(30, 50).replace(/(..)/g, '$1:')} ${hex.slice(50)}\n`);
    await user.click(within(card).getByRole('button', { name: 'Pin these keys' }));
    expect(fakeDevice.callsOf('pinBackendKeys')).toEqual([{ backendPins: [PRESENTED] }]);
  });
});
