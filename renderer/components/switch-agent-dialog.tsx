/**
 * The `dialog` "Switch agent": continues the session on this device with another agent. One radio
 * per agent this device has (not the session's own, not the demo agent), each marked as a summary
 * continuation: the new agent starts from a summary of the session, not from the other agent's own
 * memory. The session's permission level applies to the new agent as its own settings.
 */
import { useId, useState, type FormEvent } from 'react';
import type { SessionView } from '../../shared/device-api.ts';
import { agentLabel } from '../../shared/agent-switch.ts';
import { isProviderId, type ProviderId } from '../../shared/provider.ts';
import { errorMessage } from '../model/error-words.ts';
import { useHandoffsStore } from '../stores/handoffs-store.ts';
import { useSessionsStore } from '../stores/sessions-store.ts';
import { FormError } from './form-error.tsx';
import { Modal, ModalActions } from './modal.tsx';

/** Renders the dialog for one owned session; "Switch" starts the chosen agent and closes. */
export function SwitchAgentDialog({ session, onClose }: { session: SessionView; onClose(): void }) {
  const groupId = useId();
  const providers = useSessionsStore((state) => state.providers);
  const switchAgent = useHandoffsStore((state) => state.switchAgent);
  const choices = providers.filter((p) => p.available && p.id !== session.provider && p.id !== 'demo');
  const [selected, setSelected] = useState<ProviderId | null>(null);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (selected === null) return;
    setPending(true);
    setError(null);
    try {
      const result = await switchAgent(session.id, selected);
      if (result.ok) onClose();
      else setError(result.message);
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setPending(false);
    }
  }

  return (
    <Modal
      title="Switch agent"
      description={`Continue “${session.title}” here with another agent instead of ${agentLabel(session.provider)}.`}
      onClose={onClose}
    >
      <form className="modal-form" onSubmit={submit}>
        <div className="modal-body stack">
          <fieldset className="device-choices" aria-labelledby={groupId}>
            <legend id={groupId} className="field-label">
              Agent
            </legend>
            {choices.length === 0 && <p className="muted">This device has no other agent. Install Claude Code or Codex to switch.</p>}
            {choices.map((provider) => {
              const inputId = `${groupId}-${provider.id}`;
              return (
                <div key={provider.id} className="device-choice">
                  <input
                    type="radio"
                    id={inputId}
                    name="agent"
                    value={provider.id}
                    checked={selected === provider.id}
                    aria-describedby={`${inputId}-how`}
                    onChange={() => isProviderId(provider.id) && setSelected(provider.id)}
                  />
                  <label htmlFor={inputId} className="device-choice-name">
                    {provider.label}
                  </label>
                  <span id={`${inputId}-how`} className="device-choice-reason device-choice-reason--warning">
                    A summary continuation: {provider.label} starts from a summary of the session so far.
                  </span>
                </div>
              );
            })}
          </fieldset>
          <FormError message={error} />
        </div>
        <ModalActions onCancel={onClose} submitLabel="Switch" pendingLabel="Switching…" pending={pending} disabled={selected === null} />
      </form>
    </Modal>
  );
}
