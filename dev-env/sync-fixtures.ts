/**
 * Ready-made device identities and accounts over the real API, for tests and benchmarks. A device
 * here has only a signing key; wrapped keys are opaque stand-in bytes (the backend never opens them).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Device } from '../shared/api/devices.ts';
import type { HandoffState } from '../shared/handoff-states.ts';
import { createBackendClient, type BackendClient } from '../electron/sync/backend-client.ts';
import { BackendTrust } from '../electron/sync/backend-trust.ts';
import { keyObjectSigner, type RequestSigner } from '../electron/sync/request-signer.ts';

export interface TestDevice {
  id: string;
  name: string;
  signer: RequestSigner;
  signingPublicKey: string;
  agreementPublicKey: string;
  client: BackendClient;
}

/** A fresh random id accepted by the API. */
export function newId(): string {
  return randomBytes(16).toString('base64url');
}

/** Opaque base64url bytes standing in for a wrapped or sealed value. */
export function opaque(size = 48): string {
  return randomBytes(size).toString('base64url');
}

/** A new Ed25519 identity with a client for `baseUrl` (accepting the backend keys `pins`, over TLS). */
export function newTestDevice(baseUrl: string, name: string, clock?: () => number, pins: readonly string[] = []): TestDevice {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const id = newId();
  const signer = keyObjectSigner(id, privateKey);
  const signingPublicKey = publicKey.export({ format: 'jwk' }).x!;
  const agreementPublicKey = generateKeyPairSync('x25519').publicKey.export({ format: 'jwk' }).x!;
  const client = createBackendClient({ baseUrl, signer, clock, trust: new BackendTrust(pins) });
  return { id, name, signer, signingPublicKey, agreementPublicKey, client };
}

/** Creates an account whose first device is `device`. */
export async function createTestAccount(device: TestDevice): Promise<{ accountId: string; device: Device }> {
  const result = await device.client.call('createAccount', {
    body: {
      deviceId: device.id,
      name: device.name,
      keys: { signingPublicKey: device.signingPublicKey, agreementPublicKey: device.agreementPublicKey },
      wrapped: opaque(),
    },
  });
  if (!result.ok) throw new Error(`createAccount failed: ${result.code} ${result.message}`);
  return result.value;
}

/** `device` asks to join `accountId` with `inviteId` (a stand-in proof: only the inviting device checks it). */
export function askToJoin(device: TestDevice, accountId: string, inviteId: string) {
  return device.client.call('createJoinRequest', {
    body: {
      accountId,
      inviteId,
      deviceId: device.id,
      name: device.name,
      keys: { signingPublicKey: device.signingPublicKey, agreementPublicKey: device.agreementPublicKey },
      proof: opaque(16),
    },
  });
}

/** Enrols `newcomer` into `inviter`'s account through an invite, a join request and its approval. */
export async function joinTestDevice(inviter: TestDevice, newcomer: TestDevice): Promise<Device> {
  const inviteId = newId();
  const invite = await inviter.client.call('createInvite', { body: { inviteId, ttlMs: 600_000 } });
  if (!invite.ok) throw new Error(`createInvite failed: ${invite.code}`);
  const join = await askToJoin(newcomer, invite.value.invite.accountId, inviteId);
  if (!join.ok) throw new Error(`createJoinRequest failed: ${join.code}`);
  const keys = await inviter.client.call('getKeys');
  if (!keys.ok) throw new Error(`getKeys failed: ${keys.code}`);
  const wrappedKeys = Array.from({ length: keys.value.currentVersion }, (_, i) => ({
    keyVersion: i + 1,
    deviceId: newcomer.id,
    wrappedBy: inviter.id,
    wrapped: opaque(),
  }));
  const approved = await inviter.client.call('approveJoinRequest', {
    params: { joinRequestId: join.value.joinRequest.id },
    body: { wrappedKeys },
  });
  if (!approved.ok) throw new Error(`approveJoinRequest failed: ${approved.code} ${approved.message}`);
  return approved.value.joinRequest.device;
}

/**
 * Two devices of a new account, `a<n>` on `urlA` and `b<n>` on `urlB`, with the checkpoint's body stored
 * and a fresh session owned by the first: the starting point of a lane of handoffs in the benchmarks.
 */
export async function newMovingPair(
  urlA: string,
  urlB: string,
  n: number,
  checkpoint: { digest: string; body: Buffer },
): Promise<{ a: TestDevice; b: TestDevice; sessionId: string }> {
  const a = newTestDevice(urlA, `a${n}`);
  const b = newTestDevice(urlB, `b${n}`);
  await createTestAccount(a);
  await joinTestDevice(a, b);
  if (!(await a.client.putBlob(checkpoint.digest, checkpoint.body)).ok) throw new Error('putBlob failed');
  const sessionId = newId();
  if (!(await a.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } })).ok) throw new Error('createSession failed');
  return { a, b, sessionId };
}

/** The outcome of walking one handoff: every step acknowledged, or the first refusal. */
export type WalkResult = { ok: true } | { ok: false; step: HandoffState; code: string; message: string };

/**
 * Creates a handoff of `sessionId` from `owner` to `other` at `generation` and walks it through all seven
 * states, each step by the device the state table names; `onAck` hears every acknowledged state.
 * Stops at the first refusal (or lost backend) and says where.
 */
export async function walkHandoff(
  owner: BackendClient,
  other: BackendClient,
  sessionId: string,
  generation: number,
  checkpoint: { digest: string; size: number },
  onAck: (handoffId: string, state: HandoffState) => void,
): Promise<WalkResult> {
  const handoffId = newId();
  const created = await owner.call('createHandoff', { body: { handoffId, sessionId, targetDeviceId: other.deviceId, generation } });
  if (!created.ok) return { ok: false, step: 'requested', code: created.code, message: created.message };
  onAck(handoffId, 'requested');
  const steps: [BackendClient, HandoffState, HandoffState, number, Record<string, unknown>][] = [
    [other, 'requested', 'target-prepared', generation, {}],
    [owner, 'target-prepared', 'source-quiescing', generation, {}],
    [owner, 'source-quiescing', 'source-relinquished-and-checkpointed', generation, { checkpoint }],
    [other, 'source-relinquished-and-checkpointed', 'ownership-transferred', generation, {}],
    [other, 'ownership-transferred', 'target-activating', generation + 1, {}],
    [other, 'target-activating', 'completed', generation + 1, { resumePath: 'checkpoint-import' }],
  ];
  for (const [device, from, to, gen, extra] of steps) {
    const moved = await device.call('transitionHandoff', { params: { handoffId }, body: { from, to, generation: gen, ...extra } });
    if (!moved.ok) return { ok: false, step: to, code: moved.code, message: moved.message };
    onAck(handoffId, to);
  }
  return { ok: true };
}
