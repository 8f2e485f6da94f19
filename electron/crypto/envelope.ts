/**
 * The sealed envelope used for every synced payload (checkpoints, session metadata, events,
 * capabilities, handoff outcomes and cancel reasons, memory pointers):
 *
 *   magic "BT" (2) | format 0x01 (1) | key version u32 BE (4) | nonce (12) | ciphertext | tag (16)
 *
 * AES-256-GCM under a key derived with HKDF-SHA256 from the ADK version and the seal context; the
 * additional data is the 7-byte header followed by the encoded context (purpose, account, session,
 * handoff id or other subject), so a body moved into another context fails to open.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomFillSync } from 'node:crypto';
import type { Failure, Result } from '../../shared/errors.ts';
import type { KeyRing } from './key-ring.ts';

export const ENVELOPE_MAGIC = Buffer.from('BT', 'latin1');
export const ENVELOPE_FORMAT = 0x01;
export const HEADER_BYTES = 7;
export const NONCE_BYTES = 12;
export const TAG_BYTES = 16;
/** Smallest possible envelope: header, nonce and tag around an empty body. */
export const ENVELOPE_OVERHEAD = HEADER_BYTES + NONCE_BYTES + TAG_BYTES;
/** Header and nonce: the bytes in front of the ciphertext. */
export const ENVELOPE_HEAD_BYTES = HEADER_BYTES + NONCE_BYTES;

export type SealPurpose =
  | 'checkpoint'
  | 'handoff-outcome'
  | 'handoff-reason'
  | 'handoff-commits'
  | 'session-meta'
  | 'session-event'
  | 'permission-answer'
  | 'move-here-request'
  | 'device-capabilities'
  | 'memory-pointer';

/** What a sealed body is bound to. A body opens only under exactly the context it was sealed for. */
export interface SealContext {
  purpose: SealPurpose;
  accountId: string;
  /** The session the body belongs to; omitted for payloads outside a session. */
  sessionId?: string;
  /** The handoff id for checkpoints and outcomes; another label (device id, topic) otherwise. */
  subject?: string;
}

export type UnsealCode = 'checkpoint_rejected' | 'key_version_missing' | 'malformed_envelope' | 'unsupported_format';
export type UnsealFailure = Failure<UnsealCode>;
/** An opened envelope: its plaintext and the key version that sealed it. */
export type UnsealResult = Result<{ plaintext: Buffer; keyVersion: number }, UnsealCode>;

/** The context of a handoff's checkpoint body. */
export function checkpointContext(accountId: string, sessionId: string, handoffId: string): SealContext {
  return { purpose: 'checkpoint', accountId, sessionId, subject: handoffId };
}

function encodeContext(context: SealContext): Buffer {
  const fields = [context.purpose, context.accountId, context.sessionId ?? '', context.subject ?? ''];
  if (context.accountId === '') throw new Error('a seal context needs an account id');
  if (context.purpose === 'checkpoint' && (fields[2] === '' || fields[3] === ''))
    throw new Error('a checkpoint is sealed for a session and a handoff');
  const parts: Buffer[] = [Buffer.from('BATON-SEAL-CONTEXT-V1', 'latin1')];
  for (const field of fields) {
    const bytes = Buffer.from(field, 'utf8');
    if (bytes.length > 0xffff) throw new Error('seal context field too long');
    const length = Buffer.alloc(2);
    length.writeUInt16BE(bytes.length);
    parts.push(length, bytes);
  }
  return Buffer.concat(parts);
}

/** What sealing or opening under one key version and one context needs: the derived key and the AAD. */
export interface ContextKeys {
  key: Buffer;
  /** The 7-byte header followed by the encoded context. */
  aad: Buffer;
}

/**
 * Derived keys, per ADK buffer of a ring (a WeakMap, so they go with the ADK), then per key version and
 * exact context: an entry is only ever used for the context it was derived for. Bounded.
 */
const derivedKeys = new WeakMap<Uint8Array, Map<string, ContextKeys>>();
const DERIVED_KEYS_MAX = 256;

/** The cached key and AAD of (ADK, version, context); throws on an invalid context (never cached). */
export function contextKeys(adk: Uint8Array, keyVersion: number, context: SealContext): ContextKeys {
  let keys = derivedKeys.get(adk);
  if (keys === undefined) derivedKeys.set(adk, (keys = new Map()));
  const id = JSON.stringify([keyVersion, context.purpose, context.accountId, context.sessionId ?? '', context.subject ?? '']);
  const cached = keys.get(id);
  if (cached !== undefined) return cached;
  const encoded = encodeContext(context);
  const info = createHash('sha256').update(encoded).digest();
  const entry: ContextKeys = {
    key: Buffer.from(hkdfSync('sha256', adk, 'baton-seal-v1', info, 32)),
    aad: Buffer.concat([header(keyVersion), encoded]),
  };
  if (keys.size >= DERIVED_KEYS_MAX) keys.clear();
  keys.set(id, entry);
  return entry;
}

function header(keyVersion: number): Buffer {
  const bytes = Buffer.alloc(HEADER_BYTES);
  ENVELOPE_MAGIC.copy(bytes, 0);
  bytes[2] = ENVELOPE_FORMAT;
  bytes.writeUInt32BE(keyVersion, 3);
  return bytes;
}

/**
 * An envelope as its three parts, in order: head (header and nonce, 19 bytes), ciphertext (the
 * cipher's own output over the whole body) and tag. Joined, they are exactly the bytes `seal` returns;
 * kept apart, a large body is never copied after encryption (node:crypto cannot encrypt into a
 * caller's buffer, so one contiguous envelope costs a second write of the ciphertext).
 */
export interface SealedParts {
  head: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
  /** The envelope's total length: head + ciphertext + tag. */
  byteLength: number;
  /** The ADK version it was sealed under (also in the head). */
  keyVersion: number;
}

/** Seals `plaintext` for `context` under the ring's newest key version, as parts (no copy of the ciphertext). */
export function sealParts(ring: KeyRing, context: SealContext, plaintext: Uint8Array): SealedParts {
  const version = ring.newest();
  if (version === null) throw new Error('cannot seal: the key ring is empty');
  return sealPartsWithVersion(ring, version, context, plaintext);
}

/** Seals as parts under a stated key version the ring holds; the nonce is fresh random bytes on every seal. */
export function sealPartsWithVersion(ring: KeyRing, keyVersion: number, context: SealContext, plaintext: Uint8Array): SealedParts {
  const adk = ring.get(keyVersion);
  if (adk === undefined) throw new Error(`cannot seal: key version ${keyVersion} is not held`);
  const { key, aad } = contextKeys(adk, keyVersion, context);
  const head = Buffer.allocUnsafe(ENVELOPE_HEAD_BYTES);
  aad.copy(head, 0, 0, HEADER_BYTES);
  randomFillSync(head, HEADER_BYTES, NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, head.subarray(HEADER_BYTES));
  cipher.setAAD(aad);
  const body = cipher.update(plaintext);
  // GCM is a stream mode: final() yields no bytes, so the ciphertext is the single update's output.
  const tail = cipher.final();
  const ciphertext = tail.length === 0 ? body : Buffer.concat([body, tail]);
  const tag = cipher.getAuthTag();
  return { head, ciphertext, tag, byteLength: head.length + ciphertext.length + tag.length, keyVersion };
}

/** The parts in envelope order, for hashing or writing one after another. */
export function partsInOrder(parts: SealedParts): readonly Buffer[] {
  return [parts.head, parts.ciphertext, parts.tag];
}

/** Joins parts into one contiguous envelope (one copy; for small payloads and tests). */
export function joinParts(parts: SealedParts): Buffer {
  return Buffer.concat(partsInOrder(parts), parts.byteLength);
}

/** Seals `plaintext` for `context` under the ring's newest key version, as one contiguous envelope. */
export function seal(ring: KeyRing, context: SealContext, plaintext: Uint8Array): Buffer {
  return joinParts(sealParts(ring, context, plaintext));
}

/** Seals under a stated key version the ring holds, as one contiguous envelope. */
export function sealWithVersion(ring: KeyRing, keyVersion: number, context: SealContext, plaintext: Uint8Array): Buffer {
  return joinParts(sealPartsWithVersion(ring, keyVersion, context, plaintext));
}

/** Reads the clear key version of an envelope, or null when it is not one. */
export function envelopeKeyVersion(envelope: Uint8Array): number | null {
  if (envelope.byteLength < ENVELOPE_OVERHEAD || envelope[0] !== ENVELOPE_MAGIC[0] || envelope[1] !== ENVELOPE_MAGIC[1]) return null;
  return Buffer.from(envelope.buffer, envelope.byteOffset, envelope.byteLength).readUInt32BE(3);
}

/** Opens an envelope sealed for `context`; every failure is a typed value, never a thrown crypto error. */
export function unseal(ring: KeyRing, context: SealContext, envelope: Uint8Array): UnsealResult {
  const bytes = Buffer.from(envelope.buffer, envelope.byteOffset, envelope.byteLength);
  if (bytes.length < ENVELOPE_OVERHEAD || bytes[0] !== ENVELOPE_MAGIC[0] || bytes[1] !== ENVELOPE_MAGIC[1]) {
    return { ok: false, code: 'malformed_envelope', message: 'not a sealed envelope (bad magic or too short)' };
  }
  if (bytes[2] !== ENVELOPE_FORMAT) {
    return { ok: false, code: 'unsupported_format', message: `unsupported envelope format ${String(bytes[2])}` };
  }
  const keyVersion = bytes.readUInt32BE(3);
  if (keyVersion === 0) return { ok: false, code: 'malformed_envelope', message: 'envelope names key version 0' };
  const adk = ring.get(keyVersion);
  if (adk === undefined) {
    return {
      ok: false,
      code: 'key_version_missing',
      message: `this device does not hold key version ${keyVersion}`,
      details: { keyVersion },
    };
  }
  let keys: ContextKeys;
  try {
    keys = contextKeys(adk, keyVersion, context);
  } catch (error) {
    return { ok: false, code: 'checkpoint_rejected', message: (error as Error).message };
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', keys.key, bytes.subarray(HEADER_BYTES, HEADER_BYTES + NONCE_BYTES));
    decipher.setAAD(keys.aad);
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    const body = decipher.update(bytes.subarray(HEADER_BYTES + NONCE_BYTES, bytes.length - TAG_BYTES));
    const tail = decipher.final();
    const plaintext = tail.length === 0 ? body : Buffer.concat([body, tail]);
    return { ok: true, value: { plaintext, keyVersion } };
  } catch {
    return {
      ok: false,
      code: 'checkpoint_rejected',
      message: 'the sealed body failed authentication: tampered, or sealed for another context',
    };
  }
}

/** The content address of an envelope: lower-case hex SHA-256 of its bytes. */
export function contentAddress(envelope: Uint8Array): string {
  return createHash('sha256').update(envelope).digest('hex');
}

/** The content address of an envelope held as parts: equal to `contentAddress` of the joined bytes. */
export function contentAddressOfParts(parts: SealedParts): string {
  const hash = createHash('sha256');
  for (const part of partsInOrder(parts)) hash.update(part);
  return hash.digest('hex');
}
