/**
 * A text field for backend addresses (one, or several instances of one backend separated by
 * commas), with its hint or, once a submit found it malformed, the reason in words. Used by the
 * set-up screen and the devices screen's "Sync backend" settings.
 */
import { useId } from 'react';

export interface BackendAddressesFieldProps {
  label: string;
  value: string;
  onChange(value: string): void;
  /** Why the last submitted value was refused, or null. */
  invalid: string | null;
  hint: string;
  placeholder: string;
  required?: boolean;
}

/** Renders the field: label, input, and the hint or the refusal as its description. */
export function BackendAddressesField(props: BackendAddressesFieldProps) {
  const id = useId();
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {props.label}
      </label>
      <input
        id={id}
        type="text"
        required={props.required ?? false}
        placeholder={props.placeholder}
        aria-describedby={`${id}-hint`}
        aria-invalid={props.invalid !== null}
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
      />
      <span id={`${id}-hint`} className={props.invalid ? 'form-error' : 'field-hint'}>
        {props.invalid ?? props.hint}
      </span>
    </div>
  );
}
