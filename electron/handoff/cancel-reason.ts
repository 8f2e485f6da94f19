/**
 * Cancel reasons travel like every other piece of session content: the code in clear (so the
 * backend, the state table and the history can name the kind), the sentence and its details
 * (folder names, branches, remotes, clone paths, short commits) sealed to the handoff under the
 * account key. Devices open it for the UI; a reason the backend made itself carries no sealed
 * part and is worded here from its code.
 */
import { CancelReason, type Handoff, type SealedCancelReason } from '../../shared/api/handoffs.ts';
import type { Blocker } from '../../shared/readiness.ts';
import { redactCredentials } from '../../shared/url-credentials.ts';
import type { SealContext, SealPort } from '../ports/seal.ts';

/** The sentences for codes the backend sets on its own (it cannot seal one). */
const BACKEND_SENTENCES: Record<string, string> = {
  device_revoked: 'A device taking part in this move was revoked.',
  keys_rotated:
    "The account's keys were renewed (a device was removed) before this move sealed its checkpoint, so nothing moved; try again.",
};

function reasonContext(handoff: Pick<Handoff, 'id' | 'sessionId'>): SealContext {
  return { kind: 'handoff-reason', sessionId: handoff.sessionId, handoffId: handoff.id };
}

/** The most of a reason's blockers sealed with it (the sealed part is bounded: 16 KiB). */
const SEALED_BLOCKERS_MAX = 5;
const SEALED_BLOCKERS_CHARS = 8000;

/** At most SEALED_BLOCKERS_MAX blockers, credentials redacted, their details dropped from the last ones while too long. */
function boundedBlockers(blockers: readonly Blocker[]): Blocker[] {
  const kept = blockers.slice(0, SEALED_BLOCKERS_MAX).map((b) => ({
    ...b,
    message: redactCredentials(b.message).slice(0, 2000),
    fix: redactCredentials(b.fix).slice(0, 2000),
  }));
  for (let i = kept.length - 1; i >= 0 && JSON.stringify(kept).length > SEALED_BLOCKERS_CHARS; i--) delete kept[i]!.details;
  return kept;
}

/** Seals `reason` to `handoff`: its code stays in clear, its sentence and blockers (credentials redacted) go sealed. */
export function sealCancelReason(
  seal: Pick<SealPort, 'sealJson'>,
  handoff: Pick<Handoff, 'id' | 'sessionId'>,
  reason: CancelReason,
): SealedCancelReason {
  const blockers = reason.blockers && reason.blockers.length > 0 ? { blockers: boundedBlockers(reason.blockers) } : {};
  const sentence: CancelReason = { code: reason.code, message: redactCredentials(reason.message).slice(0, 2000), ...blockers };
  return { code: reason.code, sealed: seal.sealJson(sentence, reasonContext(handoff)) };
}

/**
 * The reason of a cancelled handoff as the UI shows it: the sealed sentence when this device can
 * open it (and it names the same code), else a sentence made from the code. Null when not cancelled.
 */
export function openCancelReason(seal: Pick<SealPort, 'openJson'>, handoff: Handoff): CancelReason | null {
  const reason = handoff.cancelReason;
  if (reason === null) return null;
  if (reason.sealed !== null) {
    const opened = seal.openJson(reason.sealed, reasonContext(handoff));
    const parsed = opened.ok ? CancelReason.safeParse(opened.value) : null;
    if (parsed?.success && parsed.data.code === reason.code) {
      const blockers = parsed.data.blockers ? { blockers: parsed.data.blockers } : {};
      return { code: reason.code, message: redactCredentials(parsed.data.message), ...blockers };
    }
  }
  return { code: reason.code, message: BACKEND_SENTENCES[reason.code] ?? `The move was cancelled (${reason.code}).` };
}
