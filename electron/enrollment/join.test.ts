import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointContext, seal, unseal } from '../crypto/envelope.ts';
import { loadOrCreateIdentity } from '../crypto/device-identity.ts';
import { generateAdk } from '../crypto/key-ring.ts';
import { wrapAdk } from '../crypto/key-wrap.ts';
import { memorySecretStore } from '../crypto/secret-store.ts';
import { approvePendingJoins, createInvite } from './invites.ts';
import { decodeInvite, encodeInvite } from './invite-token.ts';
import { requestJoin } from './join.ts';
import { loadProfile } from './profile.ts';
import {
  firstDevice,
  joinedDevice,
  joinWhileApproving,
  must,
  startEnrollmentWorld,
  type EnrollmentWorld,
} from '../../dev-env/enrollment-fixture.ts';

let world: EnrollmentWorld;

/** Resolves once this machine's clock has passed `instant` (ms since the epoch). */
async function untilPast(instant: number): Promise<void> {
  while (Date.now() <= instant) await new Promise((resolve) => setTimeout(resolve, instant - Date.now() + 1));
}

beforeAll(async () => {
  world = await startEnrollmentWorld();
});
afterAll(async () => {
  await world?.close();
});

describe('joining an account by invite (real backend)', () => {
  it('enrolls the new device with every ADK version, so it opens what the inviter sealed', async () => {
    const laptop = await firstDevice(world);
    const desktop = await joinedDevice(world, laptop);
    expect(desktop.info).toMatchObject({ status: 'enrolled', accountId: laptop.info.accountId });
    expect(desktop.ring.get(1)?.equals(laptop.ring.get(1)!)).toBe(true);
    const ctx = checkpointContext(laptop.info.accountId!, 'session-ssssssssssss', 'handoff-hhhhhhhhhhhh');
    const opened = unseal(desktop.ring, ctx, seal(laptop.ring, ctx, Buffer.from('work context')));
    expect(opened.ok && opened.value.plaintext.toString()).toBe('work context');
    const reloaded = loadProfile(desktop.dir);
    expect(reloaded.ok && reloaded.value.info.status).toBe('enrolled');
    for (const name of readdirSync(desktop.dir)) expect(statSync(join(desktop.dir, name)).mode & 0o777, name).toBe(0o600);
  });

  it('resumes a pending join after a restart without asking again', async () => {
    const laptop = await firstDevice(world);
    const invite = must(await createInvite(laptop, world.backendOf(laptop)));
    const dir = world.dir('restarting');
    expect(await requestJoin(dir, invite.line, 'restarting', world.deps, { pollMs: 50, timeoutMs: 200 })).toMatchObject({
      ok: false,
      code: 'join_timeout',
    });
    const pending = loadProfile(dir);
    expect(pending.ok && pending.value.info.status).toBe('pending');
    const resumed = requestJoin(dir, invite.line, 'restarting', world.deps, { pollMs: 50, timeoutMs: 10_000 });
    // Two pushes arriving together: the request is decided once.
    const rounds = await Promise.all([
      approvePendingJoins(laptop, world.backendOf(laptop)),
      approvePendingJoins(laptop, world.backendOf(laptop)),
    ]);
    expect(rounds.flatMap((r) => must(r))).toMatchObject([{ outcome: 'approved', deviceName: 'restarting' }]);
    expect(must(await resumed).info.status).toBe('enrolled');
  });

  it('refuses a join with the wrong invite secret', async () => {
    const laptop = await firstDevice(world);
    const invite = must(await createInvite(laptop, world.backendOf(laptop)));
    const token = decodeInvite(invite.line);
    if (!token.ok) throw new Error(token.message);
    const forged = encodeInvite({ ...token.value, secret: Buffer.alloc(32, 1).toString('base64url') });
    const dir = world.dir('intruder');
    let settled = false;
    const joining = requestJoin(dir, forged, 'intruder', world.deps, { pollMs: 50 }).finally(() => {
      settled = true;
    });
    while (!settled) await approvePendingJoins(laptop, world.backendOf(laptop));
    const joined = await joining;
    expect(joined).toMatchObject({ ok: false, code: 'join_rejected' });
    expect(!joined.ok && joined.message).toMatch(/proof does not match/);
    const refused = loadProfile(dir);
    expect(refused.ok && refused.value.ring.size).toBe(0);
    // With a real invite the same folder joins, as a new device.
    const fresh = must(await createInvite(laptop, world.backendOf(laptop)));
    let done = false;
    const rejoining = requestJoin(dir, fresh.line, 'intruder', world.deps, { pollMs: 50 }).finally(() => {
      done = true;
    });
    while (!done) await approvePendingJoins(laptop, world.backendOf(laptop));
    const rejoined = must(await rejoining);
    expect(rejoined.info.status).toBe('enrolled');
    expect(rejoined.identity.deviceId).not.toBe(refused.ok && refused.value.identity.deviceId);
  });

  it('refuses an expired invite, on the joining side, the backend and the inviting device', async () => {
    const laptop = await firstDevice(world);
    const invite = must(await createInvite(laptop, world.backendOf(laptop), { ttlMs: 300 }));
    // The joining side reads the expiry on its own clock: at the instant the invite expires, it refuses.
    const late = await requestJoin(world.dir('late'), invite.line, 'late', { ...world.deps, now: () => invite.expiresAt });
    expect(late).toMatchObject({ ok: false, code: 'invite_expired', message: expect.stringMatching(/^This invite expired at \d\d:\d\d/) });
    expect(!late.ok && late.message).toContain('Make a new invite on a device already in the account');
    // A joiner whose clock lies still gets nowhere: the backend (a process with this machine's clock) or the inviter refuses.
    await untilPast(invite.expiresAt);
    const lying = await requestJoin(
      world.dir('late'),
      invite.line,
      'late',
      { ...world.deps, now: () => 0 },
      { pollMs: 50, timeoutMs: 2_000 },
    );
    expect(lying).toMatchObject({ ok: false, code: 'invite_expired' });

    const fresh = must(await createInvite(laptop, world.backendOf(laptop)));
    const joining = requestJoin(world.dir('slow'), fresh.line, 'slow', world.deps, { pollMs: 50, timeoutMs: 10_000 });
    let decided: string | null = null;
    while (decided === null) {
      const decisions = must(await approvePendingJoins(laptop, world.backendOf(laptop), () => fresh.expiresAt + 1));
      decided = decisions[0]?.reason ?? null;
    }
    expect(decided).toMatch(/expired/);
    expect(await joining).toMatchObject({ ok: false, code: 'join_rejected' });
  });

  it('refuses a second use of an invite', async () => {
    const laptop = await firstDevice(world);
    const invite = must(await createInvite(laptop, world.backendOf(laptop)));
    must(await joinWhileApproving(world, laptop, invite.line, 'first'));
    const again = await joinWhileApproving(world, laptop, invite.line, 'second', 3_000);
    expect(again).toMatchObject({
      ok: false,
      code: 'invite_used',
      message: expect.stringMatching(/^This invite was already used to add a device; each invite adds one device\. Make a new invite/),
    });
  });

  it('enrolls at most one of two devices racing with the same invite', async () => {
    const laptop = await firstDevice(world);
    const invite = must(await createInvite(laptop, world.backendOf(laptop)));
    const a = requestJoin(world.dir('racer'), invite.line, 'racer-a', world.deps, { pollMs: 50, timeoutMs: 4_000 });
    const b = requestJoin(world.dir('racer'), invite.line, 'racer-b', world.deps, { pollMs: 50, timeoutMs: 4_000 });
    const all = Promise.all([a, b]);
    let done = false;
    void all.finally(() => {
      done = true;
    });
    while (!done) {
      await approvePendingJoins(laptop, world.backendOf(laptop));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const results = await all;
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    // The loser is turned away by the backend: one join request waits per invite, and a used invite takes no more.
    const loser = results.find((r) => !r.ok);
    expect(['join_pending', 'invite_used']).toContain(loser && !loser.ok && loser.code);
  });

  it('refuses a join on an invite of a device revoked since', async () => {
    const laptop = await firstDevice(world);
    const desktop = await joinedDevice(world, laptop);
    const invite = must(await createInvite(laptop, world.backendOf(laptop)));
    must(await world.backendOf(desktop).revokeDevice(laptop.identity.deviceId));
    const joined = await joinWhileApproving(world, laptop, invite.line, 'newcomer', 2_000);
    expect(joined).toMatchObject({ ok: false, code: 'invite_invalid' });
    expect(await world.backendOf(laptop).listJoinRequests('pending')).toMatchObject({ ok: false, code: 'device_revoked' });
  });

  it('gives no working key when the approval carries wraps the inviter did not make', async () => {
    const laptop = await firstDevice(world);
    const invite = must(await createInvite(laptop, world.backendOf(laptop)));
    const stranger = loadOrCreateIdentity(memorySecretStore());
    const joining = requestJoin(world.dir('victim'), invite.line, 'victim', world.deps, { pollMs: 50, timeoutMs: 10_000 });
    const backend = world.backendOf(laptop);
    let approved = false;
    while (!approved) {
      const pending = must(await backend.listJoinRequests('pending'))[0];
      if (pending === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 30));
        continue;
      }
      // Something other than the inviter's key made this wrap, while claiming to be the inviter.
      const wrapped = wrapAdk(
        stranger,
        { deviceId: pending.device.id, agreementPublicKey: pending.device.agreementPublicKey },
        laptop.info.accountId!,
        1,
        generateAdk(),
      );
      must(
        await backend.approveJoinRequest(pending.id, [
          { keyVersion: 1, deviceId: pending.device.id, wrappedBy: laptop.identity.deviceId, wrapped },
        ]),
      );
      approved = true;
    }
    const joined = await joining;
    expect(joined).toMatchObject({ ok: false, code: 'join_keys_rejected' });
    const victim = readdirSync(world.root).find((d) => d.startsWith('victim'))!;
    const saved = loadProfile(join(world.root, victim));
    expect(saved.ok && saved.value.ring.size).toBe(0);
    expect(saved.ok && saved.value.info.status).not.toBe('enrolled');
  });

  it("tries the invite's addresses in turn and keeps the one that answered first ahead of the others", async () => {
    const laptop = await firstDevice(world);
    const dead = 'http://127.0.0.1:9';
    const invite = must(
      await createInvite(laptop, world.backendOf(laptop), {
        addresses: [dead, world.backendUrl],
        backendHost: { deviceId: laptop.identity.deviceId, name: 'laptop' },
      }),
    );
    const desktop = must(await joinWhileApproving(world, laptop, invite.line, 'desktop'));
    expect(desktop.info).toMatchObject({
      backendUrls: [world.backendUrl, dead],
      backendHost: { deviceId: laptop.identity.deviceId, name: 'laptop' },
    });
  });

  it('names the addresses tried and the likely cause when none answers, and leaves no profile behind', async () => {
    const laptop = await firstDevice(world);
    const invite = must(
      await createInvite(laptop, world.backendOf(laptop), {
        addresses: ['http://127.0.0.1:9', 'http://127.0.0.1:11'],
        backendHost: { deviceId: laptop.identity.deviceId, name: 'laptop' },
      }),
    );
    const dir = world.dir('far-away');
    const joined = await requestJoin(dir, invite.line, 'far-away', world.deps);
    expect(joined).toEqual({
      ok: false,
      code: 'backend_unreachable',
      message:
        "Couldn't reach the sync backend on laptop at http://127.0.0.1:9 or http://127.0.0.1:11. Check that this machine is on the same " +
        'network (or VPN) as laptop, that laptop is awake with Baton running, and that its firewall lets those ports in; then try again.',
    });
    expect(loadProfile(dir)).toMatchObject({ ok: false, code: 'profile_missing' });
    expect(must(await world.backendOf(laptop).listJoinRequests())).toEqual([]);
  });
});
