import { describe, expect, it } from 'vitest';
import { loadOrCreateIdentity } from '../crypto/device-identity.ts';
import { memorySecretStore } from '../crypto/secret-store.ts';
import { decodeInvite, encodeInvite, INVITE_PREFIX, inviteBackendPins, joinProof, proofMatches, type InviteToken } from './invite-token.ts';

const inviter = loadOrCreateIdentity(memorySecretStore());
const newcomer = loadOrCreateIdentity(memorySecretStore());
const token: InviteToken = {
  v: 1,
  backendUrl: 'http://127.0.0.1:4100',
  accountId: 'account-aaaaaaaaaaaa',
  inviteId: 'invite-iiiiiiiiiiii',
  secret: Buffer.alloc(32, 7).toString('base64url'),
  expiresAt: 1_900_000_000_000,
  inviterDeviceId: inviter.deviceId,
  inviterSigningKey: inviter.keys.signingPublicKey,
  inviterAgreementKey: inviter.keys.agreementPublicKey,
  anchors: [],
};

describe('invite line', () => {
  it('is one line that decodes to the same invite', () => {
    const line = encodeInvite(token);
    expect(line.startsWith(INVITE_PREFIX)).toBe(true);
    expect(line).not.toMatch(/\s/);
    expect(decodeInvite(`  ${line}\n`)).toEqual({ ok: true, value: token });
  });

  it('reads an invite pasted with spaces and line breaks, as a terminal wraps it', () => {
    const line = encodeInvite(token);
    const wrapped = `   ${line.slice(0, 60)}\n  ${line.slice(60, 140)}\r\n${line.slice(140)}  \n`;
    expect(decodeInvite(wrapped)).toEqual({ ok: true, value: token });
  });

  it('says an invite cut short is cut short, and where to get a new one', () => {
    const line = encodeInvite(token);
    const early = Array.from({ length: 8 }, (_, n) => line.slice(0, INVITE_PREFIX.length + n + 1));
    for (const cut of [line.slice(0, -25), line.slice(0, INVITE_PREFIX.length + 10), INVITE_PREFIX, 'baton-inv', ...early]) {
      const decoded = decodeInvite(cut);
      expect(decoded).toMatchObject({ ok: false, code: 'invite_truncated' });
      expect(!decoded.ok && decoded.message).toMatch(/^This invite is cut short: .* Make a new invite on a device already in the account/);
    }
  });

  it("survives copy-paste: line breaks and spaces anywhere in it, with the backend key's fingerprint intact", () => {
    const pin = `sha256:${'c3'.repeat(32)}`;
    const line = encodeInvite({ ...token, backendPins: [pin] });
    // As a mail wraps it at 60 columns, and a terminal indents the continuation lines.
    const wrapped = line.replace(/(.{60})/g, '$1\r\n    ').replace(/(.{7})(.{5})/, '$1 $2');
    expect(wrapped).toMatch(/\n/);
    const decoded = decodeInvite(wrapped);
    expect(decoded).toEqual({ ok: true, value: { ...token, backendPins: [pin] } });
    expect(decoded.ok && inviteBackendPins(decoded.value)).toEqual([pin]);
  });

  it('reads an invite made before invites carried a key as one without a pin', () => {
    const decoded = decodeInvite(encodeInvite(token));
    expect(decoded.ok && inviteBackendPins(decoded.value)).toEqual([]);
  });

  it('refuses anything that is not an invite as such, saying what an invite looks like and where to get one', () => {
    for (const bad of [
      '',
      'hello',
      `${INVITE_PREFIX}***`,
      `${INVITE_PREFIX}${Buffer.from('{"v":2}').toString('base64url')}`,
      'ssh-ed25519 AAAA',
    ]) {
      const decoded = decodeInvite(bad);
      expect(decoded).toMatchObject({ ok: false, code: 'invite_malformed' });
      expect(!decoded.ok && decoded.message).toContain('Devices → Add a device there, or `baton invite --profile DIR`');
    }
  });
});

describe('join proof', () => {
  const proof = joinProof(token.secret, token.inviteId, newcomer.deviceId, newcomer.keys);

  it('matches only the same secret, invite, device and keys', () => {
    expect(proofMatches(token.secret, proof, token.inviteId, newcomer.deviceId, newcomer.keys)).toBe(true);
    expect(proofMatches(Buffer.alloc(32, 8).toString('base64url'), proof, token.inviteId, newcomer.deviceId, newcomer.keys)).toBe(false);
    expect(proofMatches(token.secret, proof, 'invite-otherotherot', newcomer.deviceId, newcomer.keys)).toBe(false);
    expect(proofMatches(token.secret, proof, token.inviteId, inviter.deviceId, newcomer.keys)).toBe(false);
    expect(proofMatches(token.secret, proof, token.inviteId, newcomer.deviceId, inviter.keys)).toBe(false);
    expect(proofMatches(token.secret, 'short', token.inviteId, newcomer.deviceId, newcomer.keys)).toBe(false);
  });
});
