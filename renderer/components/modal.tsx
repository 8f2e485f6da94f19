/**
 * A modal dialog on the native <dialog> element: named by its heading, focus moved inside on open
 * and returned to the opener on close, Escape closes, the page behind is inert.
 */
import { useEffect, useId, useRef, type ReactNode } from 'react';

interface ModalProps {
  title: string;
  onClose(): void;
  children: ReactNode;
  /** An optional line under the title. */
  description?: string;
  className?: string;
}

/** Renders an open modal; unmount it to close. */
export function Modal({ title, onClose, children, description, className }: ModalProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  const closeRef = useRef(onClose);
  closeRef.current = onClose;

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    const first = dialog.querySelector<HTMLElement>('[autofocus], input:not([disabled]), select, textarea, button:not([disabled])');
    first?.focus();
    return () => {
      if (dialog.open) dialog.close();
      opener?.focus();
    };
  }, []);

  return (
    <dialog
      ref={ref}
      className={`modal ${className ?? ''}`}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      onCancel={(event) => {
        event.preventDefault();
        closeRef.current();
      }}
      onClose={() => closeRef.current()}
    >
      <header className="modal-header">
        <h2 id={titleId}>{title}</h2>
        {description && (
          <p id={descriptionId} className="muted">
            {description}
          </p>
        )}
      </header>
      {children}
    </dialog>
  );
}

interface ModalActionsProps {
  onCancel(): void;
  /** The submit button's word, and what it says while the form is sent. */
  submitLabel: string;
  pendingLabel: string;
  pending: boolean;
  /** Whether the form cannot be sent yet (it also cannot while pending). */
  disabled?: boolean;
}

/** A dialog form's footer: Cancel, and the button that submits the form. */
export function ModalActions({ onCancel, submitLabel, pendingLabel, pending, disabled = false }: ModalActionsProps) {
  return (
    <div className="modal-actions">
      <button type="button" className="button" onClick={onCancel}>
        Cancel
      </button>
      <button type="submit" className="button button--primary" disabled={disabled || pending}>
        {pending ? pendingLabel : submitLabel}
      </button>
    </div>
  );
}
