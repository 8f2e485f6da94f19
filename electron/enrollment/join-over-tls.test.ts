/**
 * Enrollment over HTTPS with the backend's self-signed key (a real `baton backend --tls self-signed`):
 * the first device pins the key at account creation, its invite carries it, and the joiner pins it
 * before it sends anything; a joiner whose invite carries no pin is refused by the self-signed backend
 * before its join request is sent. And an invite in the old shape (no pin, one address) still joins a
 * plain-http backend on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstDevice, joinWhileApproving, must, startEnrollmentWorld, type EnrollmentWorld } from '../../dev-env/enrollment-fixture.ts';
import { createInvite } from './invites.ts';
import { decodeInvite, encodeInvite, INVITE_PREFIX } from './invite-token.ts';
import { loadProfile } from './profile.ts';

let secure: EnrollmentWorld;
let plain: EnrollmentWorld;
beforeAll(async () => {
  [secure, plain] = await Promise.all([startEnrollmentWorld({ tls: true }), startEnrollmentWorld()]);
});
afterAll(async () => {
  await Promise.all([secure?.close(), plain?.close()]);
});

/** An invite line rewritten by `change` (as an older or a tampered device would have made it). */
function rewritten(line: string, change: (token: Record<string, unknown>) => Record<string, unknown>): string {
  const decoded = decodeInvite(line);
  if (!decoded.ok) throw new Error(decoded.message);
  const json = JSON.stringify(change({ ...decoded.value }));
  return INVITE_PREFIX + Buffer.from(json, 'utf8').toString('base64url');
}

describe('joining a backend with a self-signed key', () => {
  it('pins the key the invite carries, before anything is sent, and keeps it in the profile', async () => {
    expect(secure.backendUrl).toMatch(/^https:/);
    const laptop = await firstDevice(secure);
    expect(laptop.info.backendPins).toEqual(secure.backendPins);
    const invite = must(await createInvite(laptop, secure.backendOf(laptop)));
    const token = decodeInvite(invite.line);
    expect(token.ok && token.value.backendPins).toEqual(secure.backendPins);
    const desktop = must(await joinWhileApproving(secure, laptop, invite.line, 'desktop'));
    expect(desktop.info).toMatchObject({ status: 'enrolled', backendPins: secure.backendPins });
    const reloaded = loadProfile(desktop.dir);
    expect(reloaded.ok && reloaded.value.info.backendPins).toEqual(secure.backendPins);
  });

  it('refuses an invite without a pin at the self-signed backend before its join request is sent, naming the key', async () => {
    const laptop = await firstDevice(secure);
    const invite = must(await createInvite(laptop, secure.backendOf(laptop)));
    const unpinned = rewritten(invite.line, ({ backendPins: _pins, ...rest }) => rest);
    const joined = await joinWhileApproving(secure, null, unpinned, 'stranger');
    expect(joined).toMatchObject({ ok: false, code: 'backend_key_untrusted' });
    expect(!joined.ok && joined.message).toContain(secure.backendPins[0]);
    expect(must(await secure.backendOf(laptop).listJoinRequests())).toEqual([]);
  });

  it('refuses an invite pinning another key, sending nothing to the backend', async () => {
    const laptop = await firstDevice(secure);
    const invite = must(await createInvite(laptop, secure.backendOf(laptop)));
    const other = rewritten(invite.line, (token) => ({ ...token, backendPins: [`sha256:${'d4'.repeat(32)}`] }));
    const joined = await joinWhileApproving(secure, null, other, 'impostor-victim');
    expect(joined).toMatchObject({ ok: false, code: 'backend_key_mismatch' });
    expect(must(await secure.backendOf(laptop).listJoinRequests())).toEqual([]);
  });
});

it('joins a plain-http backend on 127.0.0.1 with an invite in the old shape: no pin, one address', async () => {
  expect(plain.backendUrl).toMatch(/^http:\/\/127\.0\.0\.1:/);
  const laptop = await firstDevice(plain);
  const invite = must(await createInvite(laptop, plain.backendOf(laptop)));
  const old = rewritten(invite.line, ({ backendPins: _pins, backendUrls: _urls, ...rest }) => rest);
  expect(encodeInvite(must(decodeInvite(old)))).toBe(old);
  const desktop = must(await joinWhileApproving(plain, laptop, old, 'desktop'));
  expect(desktop.info).toMatchObject({ status: 'enrolled', backendUrls: [plain.backendUrl], backendPins: [] });
});
