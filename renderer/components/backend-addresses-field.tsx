/**
 * A text field for backend addresses (one, or several instances of one backend separated by
 * commas), with its hint or, once a submit found it malformed, the reason in words. Used by the
 * set-up screen and the devices screen's "Sync backend" settings.
 */
import { Field } from './field.tsx';

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
  return (
    <Field label={props.label} error={props.invalid} hint={props.hint}>
      {({ id, describedBy }) => (
        <input
          id={id}
          type="text"
          required={props.required ?? false}
          placeholder={props.placeholder}
          aria-describedby={describedBy}
          aria-invalid={props.invalid !== null}
          value={props.value}
          onChange={(event) => props.onChange(event.target.value)}
        />
      )}
    </Field>
  );
}
