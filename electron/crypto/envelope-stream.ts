/**
 * The envelope (envelope.ts) sealed and opened as a stream, for bodies of any size: the same bytes,
 * format and additional data as `seal`/`unseal` (GCM encrypts chunk by chunk into exactly the
 * ciphertext of one call), so either side may be the one-shot one.
 *
 * Opening hands on plaintext as it decrypts, before the tag at the end can be checked: that
 * plaintext is unauthenticated until `final()` answers ok. A caller writes it somewhere private
 * (a staging folder) and uses none of it before then; a failed `final()` means throw it all away.
 */
import { createCipheriv, createDecipheriv, randomFillSync, type CipherGCM, type DecipherGCM } from 'node:crypto';
import { fail, ok, type Failure, type Result } from '../../shared/errors.ts';
import {
  contextKeys,
  ENVELOPE_FORMAT,
  ENVELOPE_HEAD_BYTES,
  ENVELOPE_MAGIC,
  ENVELOPE_OVERHEAD,
  HEADER_BYTES,
  TAG_BYTES,
  type SealContext,
  type UnsealCode,
} from './envelope.ts';
import type { KeyRing } from './key-ring.ts';

/** An envelope being sealed: its head first, then ciphertext chunk by chunk, then its tag. */
export interface StreamSealer {
  /** Header and nonce: the envelope's first bytes. */
  readonly head: Buffer;
  readonly keyVersion: number;
  /** The ciphertext of the next plaintext chunk (exactly as long as it). */
  update(plaintext: Uint8Array): Buffer;
  /** The tag: the envelope's last 16 bytes. */
  final(): Buffer;
}

/** Starts sealing for `context` under `keyVersion` (default: the ring's newest); a fresh random nonce. */
export function startSeal(ring: KeyRing, context: SealContext, keyVersion?: number): StreamSealer {
  const version = keyVersion ?? ring.newest();
  if (version === null) throw new Error('cannot seal: the key ring is empty');
  const adk = ring.get(version);
  if (adk === undefined) throw new Error(`cannot seal: key version ${version} is not held`);
  const { key, aad } = contextKeys(adk, version, context);
  const head = Buffer.allocUnsafe(ENVELOPE_HEAD_BYTES);
  aad.copy(head, 0, 0, HEADER_BYTES);
  randomFillSync(head, HEADER_BYTES, ENVELOPE_HEAD_BYTES - HEADER_BYTES);
  const cipher: CipherGCM = createCipheriv('aes-256-gcm', key, head.subarray(HEADER_BYTES));
  cipher.setAAD(aad);
  return {
    head,
    keyVersion: version,
    update: (plaintext) => cipher.update(plaintext),
    final() {
      // GCM is a stream mode: final() yields no bytes, only the tag.
      cipher.final();
      return cipher.getAuthTag();
    },
  };
}

/** An envelope being opened: bytes in, in order, plaintext out (unauthenticated until `final`). */
export interface StreamOpener {
  /** The plaintext of this chunk of envelope bytes (maybe empty), or why the envelope cannot be opened. */
  update(bytes: Uint8Array): Result<Buffer, UnsealCode>;
  /** Checks that every byte came and the tag authenticates them all; only then is the plaintext good. */
  final(): Result<{ keyVersion: number }, UnsealCode>;
}

const rejected = (message: string) => fail('checkpoint_rejected' as const, message);

/**
 * Starts opening an envelope of `size` bytes (known from its content address record) sealed for
 * `context`. Every failure is a typed value, as `unseal` gives: bad magic or format, a key version
 * this ring lacks, too many or too few bytes, a tag that does not authenticate.
 */
export function startOpen(ring: KeyRing, context: SealContext, size: number): StreamOpener {
  if (!Number.isInteger(size) || size < ENVELOPE_OVERHEAD) return failed(fail('malformed_envelope', 'not a sealed envelope (too short)'));
  const head = Buffer.alloc(ENVELOPE_HEAD_BYTES);
  const tag = Buffer.alloc(TAG_BYTES);
  const tagAt = size - TAG_BYTES;
  let offset = 0;
  let decipher: DecipherGCM | null = null;
  let keyVersion = 0;
  let broken: Failure<UnsealCode> | null = null;

  /** Reads the header once its bytes are in; sets up the decipher or says why not. */
  function begin(): Failure<UnsealCode> | null {
    if (head[0] !== ENVELOPE_MAGIC[0] || head[1] !== ENVELOPE_MAGIC[1])
      return fail('malformed_envelope', 'not a sealed envelope (bad magic)');
    if (head[2] !== ENVELOPE_FORMAT) return fail('unsupported_format', `unsupported envelope format ${String(head[2])}`);
    keyVersion = head.readUInt32BE(3);
    if (keyVersion === 0) return fail('malformed_envelope', 'envelope names key version 0');
    const adk = ring.get(keyVersion);
    if (adk === undefined)
      return {
        ok: false,
        code: 'key_version_missing',
        message: `this device does not hold key version ${keyVersion}`,
        details: { keyVersion },
      };
    let keys;
    try {
      keys = contextKeys(adk, keyVersion, context);
    } catch (error) {
      return rejected((error as Error).message);
    }
    decipher = createDecipheriv('aes-256-gcm', keys.key, head.subarray(HEADER_BYTES));
    decipher.setAAD(keys.aad);
    return null;
  }

  return {
    update(bytes) {
      if (broken) return broken;
      const input = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      if (offset + input.length > size) return (broken = fail('malformed_envelope', `the envelope is longer than its ${size} bytes`));
      const out: Buffer[] = [];
      let at = 0;
      while (at < input.length) {
        const position = offset + at;
        if (position < ENVELOPE_HEAD_BYTES) {
          const take = Math.min(ENVELOPE_HEAD_BYTES - position, input.length - at);
          input.copy(head, position, at, at + take);
          at += take;
          if (position + take === ENVELOPE_HEAD_BYTES) {
            const refused = begin();
            if (refused) return (broken = refused);
          }
        } else if (position < tagAt) {
          const take = Math.min(tagAt - position, input.length - at);
          out.push(decipher!.update(input.subarray(at, at + take)));
          at += take;
        } else {
          const take = input.length - at;
          input.copy(tag, position - tagAt, at, at + take);
          at += take;
        }
      }
      offset += input.length;
      return ok(out.length === 1 ? out[0]! : Buffer.concat(out));
    },
    final() {
      if (broken) return broken;
      if (offset !== size) return fail('malformed_envelope', `the envelope ended after ${offset} of its ${size} bytes`);
      try {
        decipher!.setAuthTag(tag);
        decipher!.final();
      } catch {
        return rejected('the sealed body failed authentication: tampered, or sealed for another context');
      }
      return ok({ keyVersion });
    },
  };
}

/** An opener that can only say why it cannot open. */
function failed(reason: Failure<UnsealCode>): StreamOpener {
  return { update: () => reason, final: () => reason };
}
