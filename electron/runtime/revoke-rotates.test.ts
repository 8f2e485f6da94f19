/**
 * Integration: revoking a device rotates the account key. Three device processes on one backend: the
 * laptop revokes the phone (a stolen laptop, say) while the desktop is away. From then on everything
 * is sealed under the new version — the desktop fetches it when it comes back, before it seals
 * anything — so the phone's own key ring, read from its profile, opens a checkpoint taken from the
 * backend's data folder that was sealed before the revoke, and not one sealed after. A move in
 * flight when the keys are renewed ends cancelled (its checkpoint not sealed yet) or completed (it
 * was), never with a checkpoint the new owner cannot open.
 */
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdAt, isHolding } from '../../dev-env/step-holds.ts';
import { waitFor } from '../../dev-env/process-harness.ts';
import {
  deviceId,
  startDemoSession,
  startTwoDevices,
  waitEligible,
  waitSession,
  type DeviceHandle,
  type TwoDevices,
} from '../../dev-env/two-devices.ts';
import type { SessionDetail } from '../../shared/device-api.ts';
import { checkpointContext, envelopeKeyVersion, unseal } from '../crypto/envelope.ts';
import { loadProfile } from '../enrollment/profile.ts';

const TEST_TIMEOUT_MS = 180_000;

let world: TwoDevices;
let phone: DeviceHandle;
let ids: Record<'laptop' | 'desktop' | 'phone', string>;

beforeAll(async () => {
  world = await startTwoDevices({ prefix: 'baton-revoke-rotates', env: { BATON_DEMO_TURN_MS: '100' } });
  const { invite } = await world.laptop.client.take('createInvite', {});
  const spec = {
    name: 'phone',
    profile: join(world.sandbox.root, 'phone-profile'),
    workspaceRoot: join(world.sandbox.root, 'phone-ws'),
    env: {},
  };
  phone = await world.startDevice(spec, ['--join', invite]);
  ids = { laptop: await deviceId(world.laptop), desktop: await deviceId(world.desktop), phone: await deviceId(phone) };
}, 120_000);

afterAll(async () => {
  await world?.cleanup();
});

/** The backend's record of a handoff, read from its data folder: the checkpoint's digest and key version. */
function handoffRow(handoffId: string): { checkpoint_digest: string; key_version: number } {
  const db = new Database(join(world.backendData, 'baton.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT checkpoint_digest, key_version FROM handoffs WHERE id = ?').get(handoffId) as never;
  } finally {
    db.close();
  }
}

/** Moves `sessionId` from `from` to the device `to` names and waits until it runs there; the handoff's id. */
async function move(from: DeviceHandle, to: DeviceHandle, sessionId: string): Promise<string> {
  await waitEligible(from, sessionId, to.name);
  const started = await from.client.call('startMove', { sessionId, targetDeviceId: ids[to.name as keyof typeof ids] });
  if (!started.ok) throw new Error(`move refused: ${JSON.stringify(started)}`);
  const done = (d: SessionDetail) => d.isOwner && d.lastHandoff?.id === started.value.handoffId && d.lastHandoff.state === 'completed';
  await waitSession(to, sessionId, `the move to complete on ${to.name}`, done, 60_000);
  return started.value.handoffId;
}

/** Whether `ring` opens the checkpoint of `handoffId` exactly as the backend keeps it in its data folder. */
function opens(ring: Parameters<typeof unseal>[0], accountId: string, sessionId: string, handoffId: string) {
  const { checkpoint_digest: digest } = handoffRow(handoffId);
  const body = readFileSync(join(world.backendData, 'blobs', digest));
  return { keyVersion: envelopeKeyVersion(body), opened: unseal(ring, checkpointContext(accountId, sessionId, handoffId), body) };
}

describe('revoking a device', () => {
  it(
    'rotates: what is sealed after, by any device, is closed to the revoked one, what was sealed before is not',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const session = await startDemoSession(world.laptop, world.repo);
      const before = await move(world.laptop, world.desktop, session.id);

      // The phone is stolen: the desktop is away when the laptop revokes it.
      await phone.process.stop();
      await world.desktop.process.stop();
      expect(await world.laptop.client.call('revokeDevice', { deviceId: ids.phone })).toEqual({ ok: true, value: undefined });
      const restartedAt = Date.now();
      world.desktop = await world.startDevice(world.desktop);

      // The desktop fetched the new version before it sealed anything: its first capabilities since are under it.
      const capabilities = await waitFor('the desktop to publish its capabilities', async () => {
        const db = new Database(join(world.backendData, 'baton.sqlite'), { readonly: true });
        const row = db.prepare('SELECT sealed_capabilities, last_seen_at FROM devices WHERE id = ?').get(ids.desktop) as {
          sealed_capabilities: string | null;
          last_seen_at: number;
        };
        db.close();
        return row.last_seen_at >= restartedAt ? (row.sealed_capabilities ?? undefined) : undefined;
      });
      expect(envelopeKeyVersion(Buffer.from(capabilities, 'base64url'))).toBe(2);

      const after = await move(world.desktop, world.laptop, session.id);
      expect([handoffRow(before).key_version, handoffRow(after).key_version]).toEqual([1, 2]);

      const stolen = loadProfile(phone.profile);
      if (!stolen.ok) throw new Error(stolen.message);
      const accountId = stolen.value.info.accountId!;
      expect(stolen.value.ring.versions()).toEqual([1]);
      expect(opens(stolen.value.ring, accountId, session.id, before)).toMatchObject({ keyVersion: 1, opened: { ok: true } });
      expect(opens(stolen.value.ring, accountId, session.id, after)).toMatchObject({
        keyVersion: 2,
        opened: { ok: false, code: 'key_version_missing' },
      });
      // The remaining devices open both.
      const laptopProfile = loadProfile(world.laptop.profile);
      if (!laptopProfile.ok) throw new Error(laptopProfile.message);
      for (const handoffId of [before, after])
        expect(opens(laptopProfile.value.ring, accountId, session.id, handoffId).opened.ok).toBe(true);
    },
  );

  it(
    'ends a move in flight cancelled when its checkpoint was not sealed yet, and lets one that was complete',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const { invite } = await world.laptop.client.take('createInvite', {});
      const spec = {
        name: 'tablet',
        profile: join(world.sandbox.root, 'tablet-profile'),
        workspaceRoot: join(world.sandbox.root, 'tablet-ws'),
        env: {},
      };
      const tablet = await world.startDevice(spec, ['--join', invite]);
      const tabletId = await deviceId(tablet);
      const session = await startDemoSession(world.laptop, world.repo);
      await waitEligible(world.laptop, session.id, 'desktop');

      // Held before the laptop refuses input and seals: the renewal cancels it.
      const release = holdAt(world.laptop, 'source-step-at-target-prepared');
      const held = await world.laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: ids.desktop });
      if (!held.ok) throw new Error(`move refused: ${JSON.stringify(held)}`);
      await waitFor('the laptop to hold the move', async () =>
        isHolding(world.laptop, 'source-step-at-target-prepared', held.value.handoffId) ? true : undefined,
      );
      expect(await world.laptop.client.call('revokeDevice', { deviceId: tabletId })).toEqual({ ok: true, value: undefined });
      release();
      const cancelled = await waitSession(
        world.laptop,
        session.id,
        'the held move to end',
        (d) => d.lastHandoff?.id === held.value.handoffId && d.lastHandoff.state === 'cancelled',
        60_000,
      );
      expect(cancelled).toMatchObject({ isOwner: true, generation: 1, lastHandoff: { cancelReason: { code: 'keys_rotated' } } });

      // Asked again, it moves under the new version.
      const again = await move(world.laptop, world.desktop, session.id);
      expect(handoffRow(again).key_version).toBe(3);

      // Held after the relinquish (the checkpoint sealed under version 3): a renewal now lets it complete.
      const claim = holdAt(world.laptop, 'sending-ownership-transferred+target-activating');
      await waitEligible(world.desktop, session.id, 'laptop');
      const back = await world.desktop.client.call('startMove', { sessionId: session.id, targetDeviceId: ids.laptop });
      if (!back.ok) throw new Error(`move refused: ${JSON.stringify(back)}`);
      await waitFor(
        'the laptop to hold its claim',
        async () => (isHolding(world.laptop, 'sending-ownership-transferred+target-activating', back.value.handoffId) ? true : undefined),
        60_000,
      );
      expect(await world.laptop.client.call('rotateKeys', {})).toMatchObject({ ok: true, value: { keyVersion: 4 } });
      claim();
      const done = await waitSession(
        world.laptop,
        session.id,
        'the relinquished move to complete',
        (d) => d.isOwner && d.lastHandoff?.id === back.value.handoffId && d.lastHandoff.state === 'completed',
        60_000,
      );
      expect(done.generation).toBe(3);
      expect(handoffRow(back.value.handoffId).key_version).toBe(3);
    },
  );
});
