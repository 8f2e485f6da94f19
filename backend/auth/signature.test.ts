/** Ed25519 request signatures: headers, clock skew and verification against raw public keys. */
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkClockSkew, readSignatureHeaders, SignatureVerifier } from './signature.ts';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const raw = publicKey.export({ format: 'jwk' }).x!;

describe('request signatures', () => {
  it('verifies a signature by the raw public key and refuses one over other data or by another key', () => {
    const verifier = new SignatureVerifier();
    const signature = sign(null, Buffer.from('BATON-REQUEST-V1\nGET'), privateKey);
    expect(verifier.verify(raw, 'BATON-REQUEST-V1\nGET', signature)).toBe(true);
    expect(verifier.verify(raw, 'BATON-REQUEST-V1\nPOST', signature)).toBe(false);
    const other = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x!;
    expect(verifier.verify(other, 'BATON-REQUEST-V1\nGET', signature)).toBe(false);
  });

  it('refuses malformed keys and signatures without throwing', () => {
    const verifier = new SignatureVerifier();
    expect(verifier.verify('AAAA', 'x', Buffer.alloc(64))).toBe(false);
    expect(verifier.verify(raw, 'x', Buffer.alloc(10))).toBe(false);
    expect(verifier.verify('', 'x', Buffer.alloc(64))).toBe(false);
  });

  it('reads the five headers with the declared body size, and refuses missing or malformed ones', () => {
    const sha = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    const good = {
      'x-baton-device': 'device_0000000001',
      'x-baton-timestamp': '1700000000000',
      'x-baton-nonce': 'nonce-nonce-nonce-1',
      'x-baton-signature': 'AAAA',
      'x-baton-content-sha256': sha,
    };
    expect(readSignatureHeaders(good)).toMatchObject({
      ok: true,
      value: { deviceId: 'device_0000000001', timestamp: 1700000000000, body: { size: 0, sha256: sha } },
    });
    expect(readSignatureHeaders({ ...good, 'content-length': '1048576' })).toMatchObject({ ok: true, value: { body: { size: 1048576 } } });
    expect(readSignatureHeaders({ ...good, 'transfer-encoding': 'chunked' })).toMatchObject({ ok: false, code: 'length_required' });
    expect(readSignatureHeaders({ ...good, 'x-baton-content-sha256': undefined })).toMatchObject({ ok: false, code: 'unauthorized' });
    expect(readSignatureHeaders({ ...good, 'x-baton-content-sha256': sha.toUpperCase() })).toMatchObject({
      ok: false,
      code: 'unauthorized',
    });
    expect(readSignatureHeaders({ ...good, 'x-baton-signature': undefined })).toMatchObject({ ok: false, code: 'unauthorized' });
    expect(readSignatureHeaders({ ...good, 'x-baton-timestamp': '17e12' })).toMatchObject({ ok: false, code: 'unauthorized' });
    expect(readSignatureHeaders({ ...good, 'x-baton-nonce': 'short' })).toMatchObject({ ok: false, code: 'unauthorized' });
  });

  it('allows five minutes of clock skew either way and no more', () => {
    expect(checkClockSkew(1_000_000 - 300_000, 1_000_000)).toBeUndefined();
    expect(checkClockSkew(1_000_000 + 300_000, 1_000_000)).toBeUndefined();
    expect(checkClockSkew(1_000_000 + 300_001, 1_000_000)).toMatchObject({ ok: false, code: 'clock_skew' });
    expect(checkClockSkew(1_000_000 - 300_001, 1_000_000)).toMatchObject({ ok: false, code: 'clock_skew' });
  });
});
