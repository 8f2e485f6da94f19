/** The runtime's SealPort over an account's ADK key ring and the envelope (crypto/envelope.ts). */
import { checkpointContext, type SealContext as EnvelopeContext } from '../../crypto/envelope.ts';
import { startOpen, startSeal } from '../../crypto/envelope-stream.ts';
import type { KeyRing } from '../../crypto/key-ring.ts';
import { sealJson, unsealJson } from '../../crypto/sealed-json.ts';
import type { Profile } from '../../enrollment/profile.ts';
import type { SealContext, SealPort } from '../../ports/seal.ts';

/** Maps a runtime context to the envelope's bound context (purpose, account, session, subject). */
function envelopeContext(accountId: string, context: SealContext): EnvelopeContext {
  switch (context.kind) {
    case 'session-meta':
      return { purpose: 'session-meta', accountId, sessionId: context.sessionId };
    case 'session-event':
      return { purpose: 'session-event', accountId, sessionId: context.sessionId };
    case 'permission-answer':
      return { purpose: 'permission-answer', accountId, sessionId: context.sessionId };
    case 'move-here-request':
      return { purpose: 'move-here-request', accountId, sessionId: context.sessionId };
    case 'capabilities':
      return { purpose: 'device-capabilities', accountId, subject: context.deviceId };
    case 'handoff-outcome':
      return { purpose: 'handoff-outcome', accountId, sessionId: context.sessionId, subject: context.handoffId };
    case 'handoff-reason':
      return { purpose: 'handoff-reason', accountId, sessionId: context.sessionId, subject: context.handoffId };
    case 'handoff-commits':
      return { purpose: 'handoff-commits', accountId, sessionId: context.sessionId, subject: context.handoffId };
  }
}

/** Seals and opens everything the runtime syncs with `ring` (newest version for new seals) for `accountId`. */
export function ringSeal(accountId: string, ring: KeyRing): SealPort {
  return {
    accountId,
    keyVersions: () => ring.versions(),
    sealJson: (value, context) => sealJson(ring, envelopeContext(accountId, context), value),
    openJson: (sealed, context) => {
      const opened = unsealJson(ring, envelopeContext(accountId, context), sealed);
      return opened;
    },
    startCheckpointSeal: (sessionId, handoffId, keyVersion) =>
      startSeal(ring, checkpointContext(accountId, sessionId, handoffId), keyVersion),
    startCheckpointOpen: (sessionId, handoffId, size) => startOpen(ring, checkpointContext(accountId, sessionId, handoffId), size),
  };
}

/** The SealPort of an enrolled profile (its ring is refreshed in place after rotations). */
export function profileSeal(profile: Profile): SealPort {
  const accountId = profile.info.accountId;
  if (accountId === null) throw new Error('the device is not enrolled in an account');
  return ringSeal(accountId, profile.ring);
}
