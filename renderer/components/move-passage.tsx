/**
 * The picture of a move: the two devices, and the session (a baton) on its way from one to the
 * other, placed by the step under way; the device holding the session is marked. Named for what it
 * shows; the steps beside it say the same in words.
 */
import type { HandoffView } from '../../shared/device-api.ts';
import { reachedAt } from '../../shared/handoff-states.ts';

interface MovePassageProps {
  handoff: HandoffView;
  /** The index of the step under way (-1: none). */
  step: number;
  steps: number;
}

/** Renders the two devices with the session between them. */
export function MovePassage({ handoff, step, steps }: MovePassageProps) {
  const arrived = reachedAt(handoff.history, 'ownership-transferred') !== undefined;
  const holder = arrived ? handoff.targetName : handoff.sourceName;
  return (
    <div
      className={`passage passage--step-${Math.max(0, step)} passage--of-${steps}`}
      role="img"
      aria-label={`The session is passing from ${handoff.sourceName} to ${handoff.targetName}; ${holder} holds it now.`}
    >
      <span className={`passage-device${arrived ? '' : ' passage-device--holding'}`}>{handoff.sourceName}</span>
      <span className="passage-track">
        <span className="passage-baton" />
      </span>
      <span className={`passage-device${arrived ? ' passage-device--holding' : ''}`}>{handoff.targetName}</span>
    </div>
  );
}
