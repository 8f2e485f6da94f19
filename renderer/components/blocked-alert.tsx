/**
 * The blocked move's `alert`: headed "Handoff blocked", naming the two devices of the move, with each
 * blocker (its sentence, its fix, where that fix is made and the action in place) and "Check again",
 * which tries the move again; once nothing blocks, a plain "Ready to move" with "Move now". Each
 * action says beside it that it runs as the user's own git (blocker-item.tsx). A fix is made where
 * its files are: the owner's side on the owner, a target's checkout on the target. It is drawn from
 * the panel model (model/run-panels.ts) and its buttons act only on the state it was drawn for.
 */
import { useId } from 'react';
import { useHandoffsStore, type BlockedPanel } from '../stores/handoffs-store.ts';
import { BlockerItem } from './blocker-item.tsx';
import { CarryOfferAction } from './carry-offer.tsx';
import { carryableOffer } from '../model/carry-words.ts';
import { blockerSummary } from '../model/readiness-words.ts';

/** Where the fixes are made, in one sentence (none when every fix is made on this device). */
function whereSentence(blocked: BlockedPanel): string | null {
  const places = [...new Set(blocked.fixOn.filter((place): place is string => place !== null))];
  if (places.length === 0) return null;
  const here = blocked.fixOn.includes(null);
  const there = places.join(' and ');
  return here ? `Make the fixes marked for ${there} there; the others here.` : `Make each fix on ${there}, where its files are.`;
}

/** What happens once nothing blocks: a Move here goes on by itself. */
function onceFixed(blocked: BlockedPanel): string {
  if (!blocked.ownedHere && !blocked.toHere) return `${blocked.sourceName} checks again once each item is fixed.`;
  if (!blocked.movesOnItsOwn) return 'Fix each item, then check again.';
  if (blocked.toHere) return `Once nothing blocks it, ${blocked.sourceName} moves it here on its own.`;
  if (blocked.ownedHere) return `${blocked.targetName} asked for it (Move here): once nothing blocks it, it moves there on its own.`;
  return `Once nothing blocks it, ${blocked.sourceName} moves it to ${blocked.targetName} on its own.`;
}

/** Renders the alert for the blocked move `blocked` of `sessionId` (model/run-panels.ts blockedPanel). */
export function BlockedAlert({ sessionId, blocked }: { sessionId: string; blocked: BlockedPanel }) {
  const headingId = useId();
  const checkAgain = useHandoffsStore((state) => state.checkAgain);
  const dismiss = useHandoffsStore((state) => state.dismissBlocked);
  const pending = useHandoffsStore((state) => state.sessions[sessionId]?.pending);
  const { blockers } = blocked.report;
  const { ready } = blocked;
  const where = whereSentence(blocked);
  const to = blocked.toHere ? 'here' : `to ${blocked.targetName}`;
  const from = blocked.ownedHere ? 'from this device' : `from ${blocked.sourceName}`;
  // Carried from the owner only, where the files are: elsewhere Check again asks the owner, which carries by its own default.
  const offer = blocked.ownedHere && !ready ? carryableOffer(blocked.report) : null;
  return (
    <section className={`blocked-alert${ready ? ' blocked-alert--ready' : ''}`} role="alert" aria-labelledby={headingId}>
      <div className="blocked-head">
        <h2 id={headingId}>{ready ? 'Ready to move' : 'Handoff blocked'}</h2>
        <p>
          {ready ? (
            <>
              Nothing blocks moving it {from} <strong>{to}</strong> now.
            </>
          ) : (
            <>
              Moving it {from} <strong>{to}</strong> stopped before anything moved: {blockerSummary(blockers)}. {onceFixed(blocked)}
              {offer && ' Or carry your changes along as they are.'}
              {where !== null && <> {where}</>}
            </>
          )}
        </p>
      </div>
      {!ready && (
        <ul className="blocker-list">
          {blockers.map((blocker, index) => (
            <BlockerItem
              key={`${blocker.code}-${blocker.repo ?? ''}-${index}`}
              sessionId={sessionId}
              blocker={blocker}
              shown={blocked}
              fixOn={blocked.fixOn[index] ?? null}
              mark={where !== null && blocked.fixOn.includes(null)}
            />
          ))}
        </ul>
      )}
      {offer && <CarryOfferAction key={blocked.report.evaluatedAt} sessionId={sessionId} blocked={blocked} offer={offer} />}
      {blocked.actionError && <p className="form-error">{blocked.actionError}</p>}
      <div className="blocked-actions">
        {/* Off both devices of the move, Check again (which asks the owner to move it here) would move it elsewhere than its label says. */}
        {(blocked.ownedHere || blocked.toHere) && (
          <button
            type="button"
            className="button button--primary"
            disabled={pending !== undefined}
            onClick={() => void checkAgain(sessionId, blocked)}
          >
            {pending === 'move' ? 'Checking…' : ready ? 'Move now' : 'Check again'}
          </button>
        )}
        <button type="button" className="button button--quiet" onClick={() => dismiss(sessionId, blocked)}>
          Dismiss
        </button>
      </div>
    </section>
  );
}
