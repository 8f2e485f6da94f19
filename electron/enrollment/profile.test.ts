import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolders } from '../../dev-env/temp-folders.ts';
import { SIGNING_KEY_NAME } from '../crypto/device-identity.ts';
import { generateAdk } from '../crypto/key-ring.ts';
import {
  loadInvites,
  loadProfile,
  openOrCreateProfile,
  PROFILE_FILE,
  saveInvites,
  saveProfile,
  setBackendUrls,
  trustAnchors,
} from './profile.ts';

const tempFolder = tempFolders('baton-profile-');
function profileDir(): string {
  return join(tempFolder(), 'device');
}
const init = { name: 'laptop', backendUrls: ['http://127.0.0.1:4100'] };

describe('device profile', () => {
  it('starts new with an identity and reloads the same device, key ring and invites', () => {
    const dir = profileDir();
    expect(loadProfile(dir)).toMatchObject({ ok: false, code: 'profile_missing' });
    const created = openOrCreateProfile(dir, init);
    if (!created.ok) throw new Error(created.message);
    const profile = created.value;
    expect(profile.info.status).toBe('new');
    profile.ring.add(1, generateAdk());
    profile.info = { ...profile.info, status: 'enrolled', accountId: 'account-aaaaaaaaaaaa' };
    saveProfile(profile);
    saveInvites(profile, [{ inviteId: 'invite-iiiiiiiiiiii', secret: 's'.repeat(43), expiresAt: 5, createdAt: 1 }]);
    const again = loadProfile(dir);
    if (!again.ok) throw new Error(again.message);
    expect(again.value.identity.deviceId).toBe(profile.identity.deviceId);
    expect(again.value.info).toEqual(profile.info);
    expect(again.value.ring.get(1)?.equals(profile.ring.get(1)!)).toBe(true);
    expect(loadInvites(again.value)).toHaveLength(1);
  });

  it('keeps trust anchors across a reload, and reads a profile written before anchors existed as trusting only itself', () => {
    const dir = profileDir();
    const created = openOrCreateProfile(dir, init);
    if (!created.ok) throw new Error(created.message);
    const self = { deviceId: created.value.identity.deviceId, ...created.value.identity.keys };
    const inviter = { deviceId: 'device-inviterinvite', signingPublicKey: 'a'.repeat(43), agreementPublicKey: 'b'.repeat(43) };
    created.value.info = { ...created.value.info, trusted: [inviter] };
    saveProfile(created.value);
    const again = loadProfile(dir);
    expect(again.ok && trustAnchors(again.value)).toEqual([self, inviter]);
    const { trusted: _dropped, ...older } = JSON.parse(readFileSync(join(dir, PROFILE_FILE), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, PROFILE_FILE), JSON.stringify(older));
    const legacy = loadProfile(dir);
    expect(legacy.ok && trustAnchors(legacy.value)).toEqual([self]);
  });

  it('reads a profile written with one backendUrl as a list of that one address, and writes the list back', () => {
    const dir = profileDir();
    const created = openOrCreateProfile(dir, init);
    if (!created.ok) throw new Error(created.message);
    const { backendUrls: _list, ...rest } = JSON.parse(readFileSync(join(dir, PROFILE_FILE), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, PROFILE_FILE), JSON.stringify({ ...rest, backendUrl: 'http://127.0.0.1:4100/' }));
    const legacy = loadProfile(dir);
    if (!legacy.ok) throw new Error(legacy.message);
    expect(legacy.value.info.backendUrls).toEqual(['http://127.0.0.1:4100']);
    expect(setBackendUrls(legacy.value, ['http://10.0.0.5:8787', 'http://10.0.0.6:8787'])).toBe(true);
    const written = JSON.parse(readFileSync(join(dir, PROFILE_FILE), 'utf8')) as Record<string, unknown>;
    expect(written.backendUrls).toEqual(['http://10.0.0.5:8787', 'http://10.0.0.6:8787']);
    expect(written).not.toHaveProperty('backendUrl');
    expect(setBackendUrls(legacy.value, ['http://10.0.0.5:8787', 'http://10.0.0.6:8787'])).toBe(false);
  });

  it('refuses a profile whose addresses are malformed as corrupt, naming the bad one', () => {
    const dir = profileDir();
    const created = openOrCreateProfile(dir, init);
    if (!created.ok) throw new Error(created.message);
    const info = JSON.parse(readFileSync(join(dir, PROFILE_FILE), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, PROFILE_FILE), JSON.stringify({ ...info, backendUrls: ['http://a:1,http://b:2'] }));
    expect(loadProfile(dir)).toMatchObject({
      ok: false,
      code: 'profile_corrupt',
      message: expect.stringContaining('http://a:1,http://b:2'),
    });
  });

  it('keeps every file of the folder owner-only and no secret in profile.json', () => {
    const dir = profileDir();
    const created = openOrCreateProfile(dir, init);
    if (!created.ok) throw new Error(created.message);
    created.value.ring.add(1, generateAdk());
    saveProfile(created.value);
    saveInvites(created.value, [{ inviteId: 'invite-iiiiiiiiiiii', secret: 'topsecretvalue', expiresAt: 5, createdAt: 1 }]);
    for (const name of readdirSync(dir)) expect(statSync(join(dir, name)).mode & 0o777, name).toBe(0o600);
    const info = readFileSync(join(dir, PROFILE_FILE), 'utf8');
    expect(info).not.toContain('topsecretvalue');
    expect(info).not.toContain(created.value.ring.get(1)!.toString('base64url'));
  });

  it('reports a corrupt profile instead of half-reading it', () => {
    const dir = profileDir();
    openOrCreateProfile(dir, init);
    writeFileSync(join(dir, PROFILE_FILE), '{"format":1');
    expect(loadProfile(dir)).toMatchObject({ ok: false, code: 'profile_corrupt' });
    expect(openOrCreateProfile(dir, init)).toMatchObject({ ok: false, code: 'profile_corrupt' });
  });

  it('reports identity keys it cannot read (e.g. kept by another secret store) as a corrupt profile', () => {
    const dir = profileDir();
    openOrCreateProfile(dir, init);
    writeFileSync(join(dir, SIGNING_KEY_NAME), 'encrypted-by-someone-else');
    expect(loadProfile(dir)).toMatchObject({ ok: false, code: 'profile_corrupt', message: expect.stringMatching(/identity keys/) });
  });
});
