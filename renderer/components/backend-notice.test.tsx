/** The notice above every screen: a revoked device says how to use the computer again in the app's words, not the CLI's. */
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { useStatusStore } from '../stores/status-store.ts';
import { visibleText } from '../test-support/visible-text.ts';
import { deviceStatus } from '../test-support/views.ts';
import { BackendNotice } from './backend-notice.tsx';

describe('the notice of a revoked device', () => {
  it('says what it no longer does and how to join again, with no command-line words outside Details', () => {
    useStatusStore.getState().setStatus(deviceStatus({ revokedAt: 1 }));
    render(<BackendNotice />);
    const notice = screen.getByRole('alert');
    expect(notice).toHaveTextContent('This device was removed from the account.');
    expect(notice).toHaveTextContent('make an invite on a device still in the account (Devices → Add a device)');
    expect(visibleText(notice)).not.toMatch(/profile/i);
    expect(notice.querySelector('details:not([open])')).toHaveTextContent('baton device --profile NEW-FOLDER --join INVITE');
  });
});
