/**
 * Ready-made device identities and accounts over the real API, for tests and benchmarks. A device
 * here has only a signing key; wrapped keys are opaque stand-in bytes (the backend never opens them).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Device } from '../../shared/api/devices.ts';
import { createBackendClient, type BackendClient } from './backend-client.ts';
import { keyObjectSigner, type RequestSigner } from './request-signer.ts';

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

/** A new Ed25519 identity with a client for `baseUrl`. */
export function newTestDevice(baseUrl: string, name: string, clock?: () => number): TestDevice {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const id = newId();
  const signer = keyObjectSigner(id, privateKey);
  const signingPublicKey = publicKey.export({ format: 'jwk' }).x!;
  const agreementPublicKey = generateKeyPairSync('x25519').publicKey.export({ format: 'jwk' }).x!;
  return { id, name, signer, signingPublicKey, agreementPublicKey, client: createBackendClient({ baseUrl, signer, clock }) };
}

/** Creates an account whose first device is `device`. */
export async function createTestAccount(device: TestDevice): Promise<{ accountId: string; device: Device }> {
  const result = await device.client.call('createAccount', {
    body: { deviceId: device.id, name: device.name, keys: { signingPublicKey: device.signingPublicKey, agreementPublicKey: device.agreementPublicKey }, wrapped: opaque() },
  });
  if (!result.ok) throw new Error(`createAccount failed: ${result.code} ${result.message}`);
  return result.value;
}

/** Enrols `newcomer` into `inviter`'s account through an invite, a join request and its approval. */
export async function joinTestDevice(inviter: TestDevice, newcomer: TestDevice, clock: () => number = Date.now): Promise<Device> {
  const inviteId = newId();
  const invite = await inviter.client.call('createInvite', { body: { inviteId, expiresAt: clock() + 600_000 } });
  if (!invite.ok) throw new Error(`createInvite failed: ${invite.code}`);
  const join = await newcomer.client.call('createJoinRequest', {
    body: { inviteId, deviceId: newcomer.id, name: newcomer.name, keys: { signingPublicKey: newcomer.signingPublicKey, agreementPublicKey: newcomer.agreementPublicKey }, proof: opaque(32) },
  });
  if (!join.ok) throw new Error(`createJoinRequest failed: ${join.code}`);
  const keys = await inviter.client.call('getKeys');
  if (!keys.ok) throw new Error(`getKeys failed: ${keys.code}`);
  const wrappedKeys = Array.from({ length: keys.value.currentVersion }, (_, i) => ({ keyVersion: i + 1, deviceId: newcomer.id, wrappedBy: inviter.id, wrapped: opaque() }));
  const approved = await inviter.client.call('approveJoinRequest', { params: { joinRequestId: join.value.joinRequest.id }, body: { wrappedKeys } });
  if (!approved.ok) throw new Error(`approveJoinRequest failed: ${approved.code} ${approved.message}`);
  return approved.value.joinRequest.device;
}
