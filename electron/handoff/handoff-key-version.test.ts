/**
 * Integration: the key version is checked before anything moves. The laptop rotates the account
 * key, but the desktop's wrap of the new version is unusable, so the desktop lacks the newest
 * version; its published list is stale (it claims the version). The Move passes the source's
 * readiness, and the desktop's prepare refuses it with target_missing_key_version before any state
 * changes hands: the laptop keeps the session at generation 1 and takes input again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../dev-env/process-harness.ts';
import { deviceId, startDemoSession, startTwoDevices, waitSession, type TwoDevices } from '../../dev-env/two-devices.ts';
import type { EnrollmentBackend } from '../enrollment/enrollment-backend.ts';
import { rotateAdk } from '../enrollment/key-distribution.ts';
import { loadProfile, type Profile } from '../enrollment/profile.ts';
import { syncEnrollmentBackend } from '../enrollment/sync-backend.ts';
import { createBackendClient, type BackendClient } from '../sync/backend-client.ts';

let world: TwoDevices;

beforeAll(async () => {
  world = await startTwoDevices({
    env: { BATON_PREPARE_TIMEOUT_MS: '15000', BATON_DEMO_TURN_MS: '200' },
    // The desktop publishes what it holds only when it starts: the test makes that list stale.
    desktopEnv: { BATON_HEARTBEAT_MS: '3600000' },
  });
}, 90_000);

afterAll(async () => {
  await world?.cleanup();
});

function profileOf(dir: string): Profile {
  const loaded = loadProfile(dir);
  if (!loaded.ok) throw new Error(loaded.message);
  return loaded.value;
}

const clientOf = (profile: Profile): BackendClient => createBackendClient({ baseUrl: world.backendUrl, signer: profile.identity });

/** The laptop's enrollment calls, with the desktop's wrap of a new key version swapped for one it cannot open. */
function spoilingDesktopWrap(laptop: Profile, desktopId: string): EnrollmentBackend {
  const real = syncEnrollmentBackend(clientOf(laptop));
  return {
    ...real,
    rotateKeys: (keyVersion, wrappedKeys) => {
      const own = wrappedKeys.find((w) => w.deviceId === laptop.identity.deviceId)!;
      return real.rotateKeys(
        keyVersion,
        wrappedKeys.map((w) => (w.deviceId === desktopId ? { ...w, wrapped: own.wrapped } : w)),
      );
    },
  };
}

describe('a Move to a device that lacks the newest key version', () => {
  it('is cancelled at prepare with target_missing_key_version; the source keeps the session and takes input', async () => {
    const { laptop, desktop } = world;
    const desktopId = await deviceId(desktop);
    const session = await startDemoSession(laptop, world.repo);

    const rotated = await rotateAdk(profileOf(laptop.profile), spoilingDesktopWrap(profileOf(laptop.profile), desktopId));
    expect(rotated).toEqual({ ok: true, value: { keyVersion: 2 } });
    // The laptop picks the new version up (its own wrap is sound) and readiness sees the desktop lacks it.
    await waitFor('the desktop to be ineligible for the missing key version', async () => {
      const list = await laptop.client.call('moveEligibility', { sessionId: session.id });
      return list.find((e) => e.name === 'desktop')?.reason?.code === 'target_missing_key_version' ? true : undefined;
    });

    // A stale published list: the desktop's record claims version 2 (and it is online), so readiness passes.
    const desktopClient = clientOf(profileOf(desktop.profile));
    const listed = await desktopClient.call('listDevices');
    const record = listed.ok ? listed.value.devices.find((d) => d.id === desktopId) : undefined;
    expect(record?.keyVersions).toEqual([1]);
    const claimed = await desktopClient.call('heartbeat', {
      body: { sealedCapabilities: record!.sealedCapabilities, keyVersions: [1, 2] },
    });
    expect(claimed.ok).toBe(true);
    const report = await laptop.client.call('checkReadiness', { sessionId: session.id, targetDeviceId: desktopId });
    expect(report.blockers).toEqual([]);

    const moved = await laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: desktopId });
    if (!moved.ok) throw new Error(`move refused: ${moved.code} ${moved.message}`);
    const onLaptop = await waitSession(
      laptop,
      session.id,
      'the move to be cancelled at prepare',
      (d) => d.lastHandoff?.id === moved.value.handoffId && d.lastHandoff.state === 'cancelled' && d.inputBlock === null,
    );
    expect(onLaptop.lastHandoff?.history.map((h) => h.state)).toEqual(['requested', 'cancelled']);
    expect(onLaptop.lastHandoff?.cancelReason?.code).toBe('target_missing_key_version');
    expect(onLaptop.lastHandoff?.cancelReason?.message).toContain('key version 2');
    expect(onLaptop).toMatchObject({ isOwner: true, generation: 1, condition: 'owned' });
    const handoff = await desktopClient.call('getHandoff', { params: { handoffId: moved.value.handoffId } });
    expect(handoff.ok && [handoff.value.handoff.keyVersion, handoff.value.handoff.checkpoint]).toEqual([2, null]);

    const onDesktop = await waitSession(desktop, session.id, 'the desktop to see the cancel', (d) => d.lastHandoff?.state === 'cancelled');
    expect(onDesktop).toMatchObject({ isOwner: false, generation: 1, condition: 'remote' });
    expect(await laptop.client.call('sendMessage', { sessionId: session.id, text: 'Still yours?' })).toEqual({ ok: true });
  }, 120_000);
});
