/** Rotate keys: asked first what it does, and its outcome said under its button, in the card it belongs to. */
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeDevice } from '../test-support/fake-device-api.ts';
import { AccountKeys } from './account-keys.tsx';

const card = () => screen.getByRole('region', { name: 'Account keys' });

describe('Rotate keys', () => {
  it('asks before it rotates, and rotates nothing when told to keep the keys', async () => {
    render(<AccountKeys />);
    await userEvent.click(within(card()).getByRole('button', { name: 'Rotate keys' }));
    const dialog = screen.getByRole('dialog', { name: 'Rotate the account keys' });
    expect(dialog).toHaveTextContent('old ones stay readable');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Keep the current keys' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(fakeDevice.callsOf('rotateKeys')).toEqual([]);
  });

  it('rotates once confirmed, and says how it went beside the button', async () => {
    fakeDevice.answer('rotateKeys', { ok: true, value: { keyVersion: 3 } });
    render(<AccountKeys />);
    await userEvent.click(within(card()).getByRole('button', { name: 'Rotate keys' }));
    await userEvent.click(
      within(screen.getByRole('dialog', { name: 'Rotate the account keys' })).getByRole('button', { name: 'Rotate keys' }),
    );
    expect(fakeDevice.callsOf('rotateKeys')).toEqual([{}]);
    expect(await within(card()).findByRole('status')).toHaveTextContent('Keys rotated to version 3. New checkpoints use the new key.');
  });

  it('says a refusal beside the button too', async () => {
    fakeDevice.answer('rotateKeys', { ok: false, code: 'backend_unreachable', message: 'The sync backend did not answer.' });
    render(<AccountKeys />);
    await userEvent.click(within(card()).getByRole('button', { name: 'Rotate keys' }));
    await userEvent.click(
      within(screen.getByRole('dialog', { name: 'Rotate the account keys' })).getByRole('button', { name: 'Rotate keys' }),
    );
    expect(await within(card()).findByRole('status')).toHaveTextContent('The sync backend did not answer.');
  });
});
