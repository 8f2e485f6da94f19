/**
 * A labelled field: its label, its control, and under it the refusal about it or else its hint,
 * which the control names as its description. The one drawing of a form field with a note.
 */
import { useId, type ReactNode } from 'react';

/** The ids a field's control carries: its own (the label's target) and its note's (its description). */
export interface FieldIds {
  id: string;
  describedBy: string;
}

export interface FieldProps {
  label: ReactNode;
  /** Why the last submitted value was refused; shown instead of the hint, as an error. */
  error?: string | null | undefined;
  hint?: string | undefined;
  /** Renders the control with the ids it carries. */
  children(ids: FieldIds): ReactNode;
}

/** Renders the field; the note is there (empty when there is nothing to say) so the control's description always resolves. */
export function Field({ label, error, hint, children }: FieldProps) {
  const id = useId();
  const noteId = `${id}-note`;
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      {children({ id, describedBy: noteId })}
      <span id={noteId} className={error ? 'form-error' : 'field-hint'}>
        {error ?? hint ?? ''}
      </span>
    </div>
  );
}
