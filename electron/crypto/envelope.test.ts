import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checkpointContext,
  contentAddress,
  contentAddressOfParts,
  ENVELOPE_HEAD_BYTES,
  ENVELOPE_OVERHEAD,
  envelopeKeyVersion,
  joinParts,
  seal,
  sealParts,
  sealWithVersion,
  unseal,
  type SealContext,
} from './envelope.ts';
import { generateAdk, KeyRing } from './key-ring.ts';

const ACCOUNT = 'account-aaaaaaaaaaaa';
const SESSION = 'session-ssssssssssss';
const HANDOFF_A = 'handoff-AAAAAAAAAAAA';
const HANDOFF_B = 'handoff-BBBBBBBBBBBB';
const ctxA = checkpointContext(ACCOUNT, SESSION, HANDOFF_A);

function ringOf(...versions: number[]): KeyRing {
  return new KeyRing(versions.map((v) => [v, generateAdk()] as const));
}

function opened(ring: KeyRing, context: SealContext, envelope: Uint8Array): Buffer {
  const result = unseal(ring, context, envelope);
  if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
  return result.value.plaintext;
}

describe('seal / unseal', () => {
  const ring = ringOf(1);

  it('round-trips an empty body', () => {
    const envelope = seal(ring, ctxA, new Uint8Array(0));
    expect(envelope.length).toBe(ENVELOPE_OVERHEAD);
    expect(opened(ring, ctxA, envelope).length).toBe(0);
  });

  it('round-trips a small body and hides it', () => {
    const body = Buffer.from('{"title":"fix the flaky login test","commit":"0123abcd"}');
    const envelope = seal(ring, ctxA, body);
    expect(envelope.includes(Buffer.from('flaky'))).toBe(false);
    expect(opened(ring, ctxA, envelope).equals(body)).toBe(true);
  });

  it('round-trips a 64 MiB body', () => {
    const body = randomBytes(64 << 20);
    const envelope = seal(ring, ctxA, body);
    expect(envelope.length).toBe(body.length + ENVELOPE_OVERHEAD);
    expect(opened(ring, ctxA, envelope).equals(body)).toBe(true);
  });

  it('uses a fresh nonce per seal, so equal bodies give different envelopes and addresses', () => {
    const body = Buffer.from('same');
    const first = seal(ring, ctxA, body);
    const second = seal(ring, ctxA, body);
    expect(first.equals(second)).toBe(false);
    expect(contentAddress(first)).toBe(createHash('sha256').update(first).digest('hex'));
    expect(contentAddress(first)).not.toBe(contentAddress(second));
  });
});

describe('sealParts', () => {
  const ring = ringOf(1, 2);

  it('gives head, ciphertext and tag whose joined bytes open with unseal, with the content address of the joined envelope', () => {
    for (const size of [0, 1, 4096, (1 << 20) + 3]) {
      const body = randomBytes(size);
      const parts = sealParts(ring, ctxA, body);
      expect([parts.head.length, parts.ciphertext.length, parts.tag.length, parts.byteLength, parts.keyVersion]).toEqual([
        ENVELOPE_HEAD_BYTES,
        size,
        16,
        size + ENVELOPE_OVERHEAD,
        2,
      ]);
      const joined = joinParts(parts);
      expect(joined.equals(Buffer.concat([parts.head, parts.ciphertext, parts.tag]))).toBe(true);
      expect(envelopeKeyVersion(joined)).toBe(2);
      expect(opened(ring, ctxA, joined).equals(body)).toBe(true);
      expect(contentAddressOfParts(parts)).toBe(contentAddress(joined));
    }
  });

  it('binds parts to their context like seal: joined parts sealed for handoff A are rejected as handoff B', () => {
    const joined = joinParts(sealParts(ring, ctxA, Buffer.from('checkpoint')));
    const result = unseal(ring, checkpointContext(ACCOUNT, SESSION, HANDOFF_B), joined);
    expect(!result.ok && result.code).toBe('checkpoint_rejected');
  });
});

describe('tamper resistance of a sealed 4 KiB checkpoint', () => {
  const ring = ringOf(1);
  const body = randomBytes(4096);
  const envelope = seal(ring, ctxA, body);

  it('rejects every single-byte change at every position (all 255 other values of each byte)', { timeout: 180_000 }, () => {
    const copy = Buffer.from(envelope);
    const seen = new Map<number, Set<string>>();
    for (let position = 0; position < copy.length; position++) {
      const original = copy[position]!;
      const codes = new Set<string>();
      for (let delta = 1; delta < 256; delta++) {
        copy[position] = original ^ delta;
        const result = unseal(ring, ctxA, copy);
        // One expect per failure only: a million passing expects would dominate the run time.
        if (result.ok) expect.fail(`a change of byte ${position} to ${copy[position]} was accepted`);
        else codes.add(result.code);
      }
      seen.set(position, codes);
      copy[position] = original;
    }
    expect(seen.size).toBe(envelope.length);
    for (const position of [0, 1]) expect([...seen.get(position)!]).toEqual(['malformed_envelope']);
    expect([...seen.get(2)!]).toEqual(['unsupported_format']);
    // The key version (bytes 3–6) names version 1; any other number is one this ring lacks, or 0.
    for (const position of [3, 4, 5]) expect([...seen.get(position)!]).toEqual(['key_version_missing']);
    expect([...seen.get(6)!].sort()).toEqual(['key_version_missing', 'malformed_envelope']);
    for (let position = 7; position < copy.length; position++) expect([...seen.get(position)!]).toEqual(['checkpoint_rejected']);
    expect(opened(ring, ctxA, copy).equals(body)).toBe(true);
  });

  it('rejects every truncation', () => {
    for (let length = 0; length < envelope.length; length++) {
      const result = unseal(ring, ctxA, envelope.subarray(0, length));
      expect(result.ok, `length ${length}`).toBe(false);
      if (!result.ok) expect(result.code).toBe(length < ENVELOPE_OVERHEAD ? 'malformed_envelope' : 'checkpoint_rejected');
    }
  });

  it('rejects extensions', () => {
    for (const extra of [Buffer.from([0]), randomBytes(1), randomBytes(16), Buffer.from(envelope)]) {
      const result = unseal(ring, ctxA, Buffer.concat([envelope, extra]));
      expect(result).toMatchObject({ ok: false, code: 'checkpoint_rejected' });
    }
  });

  it('rejects a checkpoint sealed for another handoff', () => {
    expect(unseal(ring, checkpointContext(ACCOUNT, SESSION, HANDOFF_B), envelope)).toMatchObject({
      ok: false,
      code: 'checkpoint_rejected',
    });
  });

  it('rejects a body presented under another session, account or purpose', () => {
    for (const context of [
      checkpointContext(ACCOUNT, 'session-otherotherot', HANDOFF_A),
      checkpointContext('account-otherotherot', SESSION, HANDOFF_A),
      { purpose: 'handoff-outcome', accountId: ACCOUNT, sessionId: SESSION, subject: HANDOFF_A } satisfies SealContext,
    ]) {
      expect(unseal(ring, context, envelope)).toMatchObject({ ok: false, code: 'checkpoint_rejected' });
    }
  });

  it('never throws on garbage', () => {
    for (let i = 0; i < 200; i++) {
      const junk = randomBytes(i * 3);
      if (i % 2 === 0 && junk.length >= 3) junk.write('BT\x01', 0, 'latin1');
      expect(unseal(ring, ctxA, junk).ok).toBe(false);
    }
  });
});

describe('key versions', () => {
  it('rejects a body sealed under a key version the device lacks as key_version_missing', () => {
    const full = ringOf(1, 2);
    const envelope = seal(full, ctxA, Buffer.from('secret'));
    expect(envelopeKeyVersion(envelope)).toBe(2);
    const partial = new KeyRing([[1, full.get(1)!]]);
    expect(unseal(partial, ctxA, envelope)).toMatchObject({ ok: false, code: 'key_version_missing', details: { keyVersion: 2 } });
  });

  it('seals with the newest version after rotation and still opens older bodies', () => {
    const ring = ringOf(1);
    const old = seal(ring, ctxA, Buffer.from('before rotation'));
    ring.add(2, generateAdk());
    const fresh = seal(ring, ctxA, Buffer.from('after rotation'));
    expect(envelopeKeyVersion(old)).toBe(1);
    expect(envelopeKeyVersion(fresh)).toBe(2);
    expect(opened(ring, ctxA, old).toString()).toBe('before rotation');
    expect(opened(ring, ctxA, fresh).toString()).toBe('after rotation');
  });

  it('rejects a body whose key version was relabelled to another held version', () => {
    const ring = ringOf(1, 2);
    const envelope = sealWithVersion(ring, 1, ctxA, Buffer.from('x'));
    envelope.writeUInt32BE(2, 3);
    expect(unseal(ring, ctxA, envelope)).toMatchObject({ ok: false, code: 'checkpoint_rejected' });
  });

  it('refuses to seal with an empty ring', () => {
    expect(() => seal(new KeyRing(), ctxA, Buffer.from('x'))).toThrow(/key ring is empty/);
  });
});
