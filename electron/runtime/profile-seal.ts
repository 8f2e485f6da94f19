/** The runtime's SealPort over an enrolled profile's key ring and B's envelope. */
import { checkpointContext, seal, unseal, type SealContext as EnvelopeContext } from '../crypto/envelope.ts';
import { sealJson, unsealJson } from '../crypto/sealed-json.ts';
import type { Profile } from '../enrollment/profile.ts';
import type { SealContext, SealPort } from './ports.ts';

/** Maps a runtime context to the envelope's bound context (purpose, account, session, subject). */
function envelopeContext(accountId: string, context: SealContext): EnvelopeContext {
  switch (context.kind) {
    case 'session-meta': return { purpose: 'session-meta', accountId, sessionId: context.sessionId };
    case 'session-event': return { purpose: 'session-event', accountId, sessionId: context.sessionId };
    case 'capabilities': return { purpose: 'device-capabilities', accountId, subject: context.deviceId };
    case 'handoff-outcome': return { purpose: 'handoff-outcome', accountId, sessionId: context.sessionId, subject: context.handoffId };
  }
}

/** Seals and opens everything the runtime syncs with the profile's ADK ring (newest version for new seals). */
export function profileSeal(profile: Profile): SealPort {
  const accountId = profile.info.accountId;
  if (accountId === null) throw new Error('the device is not enrolled in an account');
  return {
    accountId,
    keyVersions: () => profile.ring.versions(),
    sealJson: (value, context) => sealJson(profile.ring, envelopeContext(accountId, context), value),
    openJson: (sealed, context) => {
      const opened = unsealJson(profile.ring, envelopeContext(accountId, context), sealed);
      return opened.ok ? { ok: true, value: opened.value } : opened;
    },
    sealCheckpoint: (body, sessionId, handoffId) => {
      const envelope = seal(profile.ring, checkpointContext(accountId, sessionId, handoffId), body);
      return { envelope, keyVersion: profile.ring.newest() ?? 0 };
    },
    openCheckpoint: (envelope, sessionId, handoffId) => {
      const opened = unseal(profile.ring, checkpointContext(accountId, sessionId, handoffId), envelope);
      return opened.ok ? { ok: true, value: opened.plaintext } : opened;
    },
  };
}
