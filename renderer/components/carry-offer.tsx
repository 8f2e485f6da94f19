/**
 * Carry my changes, offered beside Commit and Push: what it takes along, sealed, and the files that
 * look like secrets, each confirmed by name before the move starts. The blocked alert shows it as
 * an action (`CarryOfferAction`); the Move dialog as a choice it makes with the move (`CarryChoiceField`).
 */
import { useId, useState } from 'react';
import type { CarryChoice, CarryOffer } from '../../shared/carry.ts';
import { carryOfferSentence, KEPT_HERE_SENTENCE } from '../model/carry-words.ts';
import { useHandoffsStore, type BlockedMove } from '../stores/handoffs-store.ts';

/** Whether every file that looks like a secret is among `confirmed`. */
const allConfirmed = (offer: CarryOffer, confirmed: readonly string[]) => offer.secretFiles.every((file) => confirmed.includes(file));

/** One checkbox per file that looks like a secret: ticked, it is confirmed to travel. Nothing when there are none. */
function SecretFiles({ offer, confirmed, onChange }: { offer: CarryOffer; confirmed: string[]; onChange(files: string[]): void }) {
  const groupId = useId();
  if (offer.secretFiles.length === 0) return null;
  return (
    <fieldset className="carry-secrets" aria-labelledby={groupId}>
      <legend id={groupId}>
        {offer.secretFiles.length === 1
          ? 'This file looks like a secret. It travels sealed like everything else; tick it to carry it, or add it to .gitignore to keep it here.'
          : 'These files look like secrets. They travel sealed like everything else; tick each one you mean to carry, or add it to .gitignore to keep it here.'}
      </legend>
      {offer.secretFiles.map((file) => (
        <label key={file} className="carry-secret">
          <input
            type="checkbox"
            checked={confirmed.includes(file)}
            onChange={(event) => onChange(event.target.checked ? [...confirmed, file] : confirmed.filter((f) => f !== file))}
          />
          <code>{file}</code>
        </label>
      ))}
    </fieldset>
  );
}

/** The blocked alert's offer: "Carry my changes" moves again, carrying the work, once each secret-looking file is confirmed. */
export function CarryOfferAction({ sessionId, blocked, offer }: { sessionId: string; blocked: BlockedMove; offer: CarryOffer }) {
  const headingId = useId();
  const startMove = useHandoffsStore((state) => state.startMove);
  const pending = useHandoffsStore((state) => state.sessions[sessionId]?.pending);
  const [confirmed, setConfirmed] = useState<string[]>(blocked.carry?.confirmedFiles ?? []);
  const ready = allConfirmed(offer, confirmed);
  async function carry() {
    const choice: CarryChoice = { confirmedFiles: confirmed };
    await startMove(sessionId, blocked.targetDeviceId, blocked.targetName, blocked.stamp, { provider: blocked.provider, carry: choice });
  }
  return (
    <section className="carry-offer" aria-labelledby={headingId}>
      <h3 id={headingId}>Or carry your changes to {blocked.targetName} as they are</h3>
      <p>{carryOfferSentence(offer)} Nothing is committed or pushed.</p>
      <p className="muted">{KEPT_HERE_SENTENCE}</p>
      <SecretFiles offer={offer} confirmed={confirmed} onChange={setConfirmed} />
      <button type="button" className="button" disabled={!ready || pending !== undefined} onClick={() => void carry()}>
        {pending === 'move' ? 'Checking…' : 'Carry my changes'}
      </button>
    </section>
  );
}

/**
 * The Move dialog's choice: a checkbox "Carry my changes" (ticked to start with when `byDefault`),
 * and the secret-looking files to confirm. Tells `onChange` the choice, or null while it cannot be made.
 */
export function CarryChoiceField({
  offer,
  value,
  onChange,
}: {
  offer: CarryOffer;
  value: { carry: boolean; confirmed: string[] };
  onChange(value: { carry: boolean; confirmed: string[] }): void;
}) {
  const inputId = useId();
  return (
    <div className="carry-offer carry-offer--choice">
      <div className="carry-choice">
        <input
          type="checkbox"
          id={inputId}
          checked={value.carry}
          aria-describedby={`${inputId}-what`}
          onChange={(event) => onChange({ ...value, carry: event.target.checked })}
        />
        <label htmlFor={inputId}>Carry my changes</label>
      </div>
      <p id={`${inputId}-what`} className="muted">
        {carryOfferSentence(offer)} {KEPT_HERE_SENTENCE}
      </p>
      {value.carry && <SecretFiles offer={offer} confirmed={value.confirmed} onChange={(confirmed) => onChange({ ...value, confirmed })} />}
    </div>
  );
}

/** The move's `carry` from the dialog's choice: null when not carried, undefined (not ready) while a secret-looking file is unconfirmed. */
export function carryFromChoice(offer: CarryOffer | null, value: { carry: boolean; confirmed: string[] }): CarryChoice | null | undefined {
  if (offer === null || !value.carry) return null;
  return allConfirmed(offer, value.confirmed) ? { confirmedFiles: value.confirmed } : undefined;
}
