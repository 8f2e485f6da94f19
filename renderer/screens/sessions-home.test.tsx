/** The sessions home: how many sessions there are and where to open one, in words true at every window size. */
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { useSessionsStore } from '../stores/sessions-store.ts';
import { sessionView } from '../test-support/views.ts';
import { SessionsHome } from './sessions-home.tsx';

describe('the sessions home', () => {
  it('says how to open a session without saying where the list is: beside the screen, or a bar above it at half-screen', () => {
    useSessionsStore.setState({ sessions: [sessionView(), sessionView({ id: 's2', isOwner: false })], loaded: true });
    render(<SessionsHome />);
    const summary = screen.getByRole('heading', { level: 1, name: 'Sessions' }).nextElementSibling!;
    expect(summary).toHaveTextContent('2 sessions in this account; 1 owned by');
    expect(summary).toHaveTextContent('Open one by its title.');
    expect(summary).not.toHaveTextContent(/on the left|above|below/);
  });
});
