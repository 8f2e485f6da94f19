/**
 * The `dialog` "Move session": this device's readiness, checked as it opens ("Ready to move", or
 * "1 uncommitted file · 1 unpushed commit" with Commit and Push in place), then one radio per other
 * device: one that can receive the session now says so, one that cannot is disabled with why and
 * since when, one that will resume differently (an older CLI) carries the warning; a chosen one with
 * other agents offers continuing with each (move-agent-choice.tsx). When carrying the work would
 * resolve what blocks this device, "Carry my changes" is offered as part of the move (ticked when
 * it is this device's default, carry-offer.tsx). Its buttons stay in view while the rest scrolls.
 */
import { useEffect, useId, useState, type FormEvent } from 'react';
import type { DeviceView, EligibilityView } from '../../shared/device-api.ts';
import type { ProviderId } from '../../shared/provider.ts';
import { errorMessage } from '../model/error-words.ts';
import { useDevicesStore } from '../stores/devices-store.ts';
import { describeAsk } from '../../shared/permission-views.ts';
import { useHandoffsStore } from '../stores/handoffs-store.ts';
import { useSessionsStore } from '../stores/sessions-store.ts';
import { useStatusStore } from '../stores/status-store.ts';
import { needsBackendReason } from '../model/backend-reach.ts';
import { BlockerItem } from './blocker-item.tsx';
import { CarryChoiceField, carryFromChoice } from './carry-offer.tsx';
import { carryableOffer } from '../model/carry-words.ts';
import { formatAgo } from '../model/format.ts';
import { FormError } from './form-error.tsx';
import { Modal, ModalActions } from './modal.tsx';
import { MoveAgentChoice } from './move-agent-choice.tsx';
import { TextWithCode } from './text-with-code.tsx';
import { blockerSummary, sourceBlockers } from '../model/readiness-words.ts';
import type { Stamp } from '../model/run-panels.ts';

interface MoveDialogProps {
  sessionId: string;
  sessionTitle: string;
  /** The session's owner and generation the dialog is drawn for: Start move acts on nothing else. */
  drawnFor: Stamp;
  onClose(): void;
}

/** This device's side of the move, as evaluated when the dialog opened and after each fix. */
function ThisDeviceReadiness({ sessionId }: { sessionId: string }) {
  const headingId = useId();
  const report = useHandoffsStore((state) => state.sessions[sessionId]?.readiness);
  const loadReadiness = useHandoffsStore((state) => state.loadReadiness);
  const selfName = useStatusStore((state) => state.status?.deviceName ?? 'This device');
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    loadReadiness(sessionId).catch((failure: unknown) => setFailed(errorMessage(failure)));
  }, [sessionId, loadReadiness]);
  const blockers = report ? sourceBlockers(report.blockers) : [];
  return (
    <section className="readiness" aria-labelledby={headingId}>
      <h3 id={headingId} className="field-label">
        {selfName} (this device)
      </h3>
      {failed !== null && report === undefined && <p className="form-error">Could not check this device: {failed}</p>}
      {failed === null && report === undefined && <p className="muted">Checking this device…</p>}
      {report && blockers.length === 0 && <p className="readiness-ok">Ready to move</p>}
      {blockers.length > 0 && (
        <>
          <p className="readiness-summary">{blockerSummary(blockers)}</p>
          <ul className="blocker-list blocker-list--compact">
            {blockers.map((blocker, index) => (
              <BlockerItem key={`${blocker.code}-${blocker.repo ?? ''}-${index}`} sessionId={sessionId} blocker={blocker} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** What a device's row says: it can receive now, or why not and since when. */
function rowText(entry: EligibilityView, device: DeviceView | undefined, now: number): string {
  if (entry.eligible) return entry.warning?.message ?? 'Online now and ready to receive it.';
  const why = entry.reason?.message ?? 'It cannot receive this session now.';
  if (entry.reason?.code !== 'target_offline') return why;
  return device?.lastSeenAt ? `${why} Last seen ${formatAgo(device.lastSeenAt, now)}.` : `${why} Never seen online.`;
}

/** Renders the Move dialog for one session; "Start move" runs readiness again first. */
export function MoveDialog({ sessionId, sessionTitle, drawnFor, onClose }: MoveDialogProps) {
  const groupId = useId();
  const eligibility = useHandoffsStore((state) => state.sessions[sessionId]?.eligibility);
  const loadEligibility = useHandoffsStore((state) => state.loadEligibility);
  const startMove = useHandoffsStore((state) => state.startMove);
  const devices = useDevicesStore((state) => state.devices);
  const [selected, setSelected] = useState<string | null>(null);
  const [agent, setAgent] = useState<ProviderId | null>(null);
  const sessionAgent = useSessionsStore((state) => state.sessions.find((session) => session.id === sessionId)?.provider);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const backendReason = useStatusStore((state) => needsBackendReason(state.status));
  const asking = useSessionsStore((state) => state.details[sessionId]?.permissionRequests[0]);
  const report = useHandoffsStore((state) => state.sessions[sessionId]?.readiness);
  const offer = report ? carryableOffer(report) : null;
  const byDefault = useStatusStore((state) => state.status?.moveSettings?.carryByDefault ?? false);
  const [carryChoice, setCarryChoice] = useState({ carry: byDefault, confirmed: [] as string[] });
  // Not made while a file that looks like a secret is unconfirmed; absent without an offer (this device's default).
  const carry = carryFromChoice(offer, carryChoice);

  useEffect(() => {
    loadEligibility(sessionId).catch((failure: unknown) => setError(errorMessage(failure)));
  }, [sessionId, devices, loadEligibility]);

  const chosen = eligibility?.find((entry) => entry.deviceId === selected && entry.eligible) ?? null;
  const now = Date.now();

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!chosen || carry === undefined) return;
    setPending(true);
    setError(null);
    const outcome = await startMove(sessionId, chosen.deviceId, chosen.name, drawnFor, {
      provider: agent ?? undefined,
      ...(offer ? { carry: carry ?? null } : {}),
    });
    setPending(false);
    if (outcome.kind === 'refused') setError(outcome.message);
    else onClose();
  }

  return (
    <Modal
      title="Move session"
      description={`Choose the device that continues “${sessionTitle}”. Nothing moves until both sides are ready.`}
      onClose={onClose}
    >
      <form className="modal-form" onSubmit={submit}>
        <div className="modal-body stack">
          <ThisDeviceReadiness sessionId={sessionId} />
          {offer && <CarryChoiceField offer={offer} value={carryChoice} onChange={setCarryChoice} />}
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
                    aria-describedby={reasonId}
                    onChange={() => {
                      setSelected(entry.deviceId);
                      setAgent(null);
                    }}
                  />
                  <label htmlFor={inputId} className="device-choice-name">
                    {entry.name}
                  </label>
                  <span id={reasonId} className={`device-choice-reason ${entry.warning ? 'device-choice-reason--warning' : ''}`}>
                    {rowText(
                      entry,
                      devices.find((device) => device.id === entry.deviceId),
                      now,
                    )}
                  </span>
                </div>
              );
            })}
          </fieldset>
          {chosen && <MoveAgentChoice entry={chosen} sessionAgent={sessionAgent} value={agent} onChange={setAgent} />}
          {asking && (
            <p className="notice">
              The agent is waiting for an answer: it wants to <TextWithCode text={describeAsk(asking)} />. Moving denies that, telling the
              agent the session moves; ask again on the other device.
            </p>
          )}
          <FormError message={error ?? backendReason} />
        </div>
        <ModalActions
          onCancel={onClose}
          submitLabel="Start move"
          pendingLabel="Checking…"
          pending={pending}
          disabled={chosen === null || backendReason !== null || carry === undefined}
        />
      </form>
    </Modal>
  );
}
