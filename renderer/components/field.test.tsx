/** The one labelled field: its control named by the label and described by the refusal about it, or else its hint. */
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Field } from './field.tsx';

function Invite({ error }: { error?: string }) {
  return (
    <Field label="Invite" error={error} hint="Paste the whole invite.">
      {({ id, describedBy }) => <input id={id} type="text" aria-describedby={describedBy} aria-invalid={error !== undefined} />}
    </Field>
  );
}

describe('a field', () => {
  it('names its control by the label and describes it with the hint', () => {
    render(<Invite />);
    const input = screen.getByRole('textbox', { name: 'Invite' });
    expect(input).toHaveAccessibleDescription('Paste the whole invite.');
    expect(screen.getByText('Paste the whole invite.')).toHaveClass('field-hint');
  });

  it('says the refusal instead of the hint, as an error', () => {
    render(<Invite error="This invite has expired." />);
    const input = screen.getByRole('textbox', { name: 'Invite' });
    expect(input).toHaveAccessibleDescription('This invite has expired.');
    expect(screen.getByText('This invite has expired.')).toHaveClass('form-error');
    expect(screen.queryByText('Paste the whole invite.')).toBeNull();
  });
});
