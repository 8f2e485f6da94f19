/**
 * The one-line invite an enrolled device prints (`baton-invite:<base64url JSON>`) and the join
 * proof made from its secret. The secret travels only in the invite line, never to the backend.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { Id } from '../../shared/api/common.ts';
import { BackendUrls } from '../../shared/backend-addresses.ts';
import { BackendPins } from '../../shared/backend-keys.ts';
import type { Failure, Result } from '../../shared/errors.ts';
import { fromBase64url, toBase64url } from '../crypto/base64url.ts';
import type { DevicePublicKeys } from '../crypto/device-identity.ts';
import { TrustedDevice } from './enrollment-statement.ts';

export const INVITE_PREFIX = 'baton-invite:';

const B64url = z.string().regex(/^[A-Za-z0-9_-]+$/);
export const InviteToken = z.strictObject({
  v: z.literal(1),
  /** The inviter's first backend address (what invites carried before they carried the list). */
  backendUrl: z.string().url(),
  /** Every backend address of the inviter, in order: the joiner's default when it is given none. */
  backendUrls: BackendUrls.optional(),
  /** The backend keys the inviter pinned: the joiner pins them before it sends anything (absent: none, as before). */
  backendPins: BackendPins.optional(),
  /** The device of the account that hosts the backend (absent: none does; a backend run on its own). */
  backendHost: z.strictObject({ deviceId: Id, name: z.string().min(1).max(100) }).optional(),
  accountId: Id,
  inviteId: Id,
  /** 32 random bytes, base64url. */
  secret: B64url.length(43),
  expiresAt: z.number().int().nonnegative(),
  inviterDeviceId: Id,
  inviterSigningKey: B64url.length(43),
  /** The inviter's key-agreement key: rotations wrap new ADK versions to it (not the backend's copy). */
  inviterAgreementKey: B64url.length(43),
  /** The inviter's own trust anchors, so the joiner can verify the account's enrollment chains. */
  anchors: z.array(TrustedDevice).max(64),
});
export type InviteToken = z.infer<typeof InviteToken>;

/** The backend addresses an invite offers, in order. */
export function inviteBackendUrls(token: InviteToken): string[] {
  return token.backendUrls ?? [token.backendUrl];
}

/** The backend keys an invite carries (none in an invite made before invites carried them). */
export function inviteBackendPins(token: InviteToken): string[] {
  return token.backendPins ?? [];
}

/** Encodes an invite as one line. */
export function encodeInvite(token: InviteToken): string {
  return INVITE_PREFIX + toBase64url(Buffer.from(JSON.stringify(InviteToken.parse(token)), 'utf8'));
}

/** Where a new invite comes from: every message about one that cannot be used ends with it. */
export const NEW_INVITE_HINT =
  'Make a new invite on a device already in the account (Devices → Add a device there, or `baton invite --profile DIR`) and paste the whole line.';

export type InviteDecodeCode = 'invite_malformed' | 'invite_truncated';

/**
 * Decodes an invite as pasted: every space and line break is dropped first (a line copied from a
 * wrapped terminal keeps its invite). A paste that starts like an invite but ends too soon is
 * `invite_truncated`; anything else that is not one is `invite_malformed`. Each says where to get a new one.
 */
export function decodeInvite(pasted: string): Result<InviteToken, InviteDecodeCode> {
  const refuse = (code: InviteDecodeCode, why: string): Failure<InviteDecodeCode> => ({
    ok: false,
    code,
    message: `${why} ${NEW_INVITE_HINT}`,
  });
  const truncated = () =>
    refuse(
      'invite_truncated',
      'This invite is cut short: it starts like a Baton invite, but its end is missing (a copy from a terminal can lose it).',
    );
  const malformed = () => refuse('invite_malformed', `That is not a Baton invite: an invite is one line that starts with ${INVITE_PREFIX}`);
  const text = pasted.replace(/\s+/g, '');
  if (text === '') return refuse('invite_malformed', 'No invite was given.');
  if (!text.startsWith(INVITE_PREFIX)) return INVITE_PREFIX.startsWith(text) ? truncated() : malformed();
  const body = text.slice(INVITE_PREFIX.length);
  if (body === '') return truncated();
  if (!/^[A-Za-z0-9_-]+$/.test(body)) return malformed();
  // A cut can leave a length no base64 has (one character past a group): what is before it is read.
  const bytes = fromBase64url(body.length % 4 === 1 ? body.slice(0, -1) : body);
  if (bytes === null) return malformed();
  const json = bytes.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    // A JSON object that does not end, or the first bytes of one: the line was cut. Anything else was never an invite.
    return json.startsWith('{"v":') || '{"v":'.startsWith(json) ? truncated() : malformed();
  }
  const parsed = InviteToken.safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : malformed();
}

function proofMessage(inviteId: string, deviceId: string, keys: DevicePublicKeys): string {
  return ['BATON-JOIN-PROOF-V1', inviteId, deviceId, keys.signingPublicKey, keys.agreementPublicKey].join('\n');
}

/** The join proof: HMAC-SHA256 under the invite secret over (invite id, device id, its public keys). */
export function joinProof(secret: string, inviteId: string, deviceId: string, keys: DevicePublicKeys): string {
  return createHmac('sha256', Buffer.from(secret, 'base64url'))
    .update(proofMessage(inviteId, deviceId, keys))
    .digest('base64url');
}

/** Checks a join proof against the stored secret in constant time. */
export function proofMatches(secret: string, proof: string, inviteId: string, deviceId: string, keys: DevicePublicKeys): boolean {
  const expected = Buffer.from(joinProof(secret, inviteId, deviceId, keys), 'base64url');
  const given = fromBase64url(proof);
  return given !== null && given.length === expected.length && timingSafeEqual(given, expected);
}
