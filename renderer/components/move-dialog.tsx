/**
 * The `dialog` "Move session": one radio per other device; ineligible ones disabled with the reason,
 * eligible ones that will resume differently (an older CLI) with the warning.
 */
import { useEffect, useId, useState, type FormEvent } from 'react';
import { errorMessage } from '../api/device-api.ts';
import { useDevicesStore } from '../stores/devices-store.ts';
import { describeAsk } from '../../shared/permission-views.ts';
import { useHandoffsStore } from '../stores/handoffs-store.ts';
import { useSessionsStore } from '../stores/sessions-store.ts';
import { useStatusStore } from '../stores/status-store.ts';
import { needsBackendReason } from './backend-reach.ts';
import { Modal } from './modal.tsx';

interface MoveDialogProps {
  sessionId: string;
  sessionTitle: string;
  onClose(): void;
}

/** Renders the Move dialog for one session; "Start move" runs readiness first. */
export function MoveDialog({ sessionId, sessionTitle, onClose }: MoveDialogProps) {
  const groupId = useId();
  const eligibility = useHandoffsStore((state) => state.eligibility[sessionId]);
  const loadEligibility = useHandoffsStore((state) => state.loadEligibility);
  const startMove = useHandoffsStore((state) => state.startMove);
  const devices = useDevicesStore((state) => state.devices);
  const [selected, setSelected] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const backendReason = useStatusStore((state) => needsBackendReason(state.status));
  const asking = useSessionsStore((state) => state.details[sessionId]?.permissionRequests[0]);

  useEffect(() => {
    loadEligibility(sessionId).catch((failure: unknown) => setError(errorMessage(failure)));
  }, [sessionId, devices, loadEligibility]);

  const chosen = eligibility?.find((entry) => entry.deviceId === selected && entry.eligible) ?? null;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!chosen) return;
    setPending(true);
    setError(null);
    const outcome = await startMove(sessionId, chosen.deviceId, chosen.name);
    setPending(false);
    if (outcome.kind === 'refused') setError(outcome.message);
    else onClose();
  }

  return (
    <Modal
      title="Move session"
      description={`Choose the device that continues “${sessionTitle}”. Readiness is checked before anything moves.`}
      onClose={onClose}
    >
      <form className="modal-body" onSubmit={submit}>
        <fieldset className="device-choices" aria-labelledby={groupId}>
          <legend id={groupId} className="field-label">
            Target device
          </legend>
          {eligibility === undefined && <p className="muted">Checking your devices…</p>}
          {eligibility?.length === 0 && <p className="muted">No other devices yet. Add one from Devices.</p>}
          {eligibility?.map((entry) => {
            const inputId = `${groupId}-${entry.deviceId}`;
            const reasonId = `${inputId}-reason`;
            return (
              <div key={entry.deviceId} className={`device-choice ${entry.eligible ? '' : 'device-choice--disabled'}`}>
                <input
                  type="radio"
                  id={inputId}
                  name="target"
                  value={entry.deviceId}
                  disabled={!entry.eligible}
                  checked={selected === entry.deviceId}
                  aria-describedby={entry.eligible && !entry.warning ? undefined : reasonId}
                  onChange={() => setSelected(entry.deviceId)}
                />
                <label htmlFor={inputId} className="device-choice-name">
                  {entry.name}
                </label>
                <span id={reasonId} className={`device-choice-reason ${entry.warning ? 'device-choice-reason--warning' : ''}`}>
                  {entry.eligible ? (entry.warning?.message ?? 'Ready to receive') : (entry.reason?.message ?? 'Not eligible.')}
                </span>
              </div>
            );
          })}
        </fieldset>
        {asking && (
          <p className="notice">
            The agent is waiting for an answer: it wants to {describeAsk(asking)}. Moving denies that, telling the agent the session moves;
            ask again on the other device.
          </p>
        )}
        <p className="form-error" aria-live="polite">
          {error ?? backendReason ?? ''}
        </p>
        <div className="modal-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button--primary" disabled={chosen === null || pending || backendReason !== null}>
            {pending ? 'Checking…' : 'Start move'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
