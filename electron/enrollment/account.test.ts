import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from './account.ts';
import { firstDevice, must, startEnrollmentWorld, type EnrollmentWorld } from '../../dev-env/enrollment-fixture.ts';

let world: EnrollmentWorld;
beforeAll(async () => {
  world = await startEnrollmentWorld();
});
afterAll(async () => {
  await world?.close();
});

describe('creating an account (real backend)', () => {
  it('enrolls the first device with ADK version 1, of which the backend holds only a wrap', async () => {
    const laptop = await firstDevice(world);
    expect(laptop.info).toMatchObject({ status: 'enrolled', name: 'laptop', backendUrls: [world.backendUrl] });
    expect(laptop.ring.versions()).toEqual([1]);
    const me = must(await world.backendOf(laptop).me());
    expect(me).toMatchObject({ id: laptop.identity.deviceId, status: 'enrolled', signingPublicKey: laptop.identity.keys.signingPublicKey });
    const keys = must(await world.backendOf(laptop).getKeys());
    expect(keys.keys).toHaveLength(1);
    const adk = laptop.ring.get(1)!;
    expect(Buffer.from(keys.keys[0]!.wrapped, 'base64url').includes(adk)).toBe(false);
    expect(keys.keys[0]!.wrapped).not.toContain(adk.toString('base64url'));
  });

  it('refuses to create a second account from an enrolled profile', async () => {
    const laptop = await firstDevice(world);
    expect(await createAccount(laptop.dir, [world.backendUrl], 'again', world.deps)).toMatchObject({ ok: false, code: 'already_enrolled' });
  });

  it('reports an unreachable backend as a value and stays unenrolled', async () => {
    const result = await createAccount(world.dir('offline'), ['http://127.0.0.1:1'], 'offline', world.deps);
    expect(result).toMatchObject({ ok: false, code: 'unreachable' });
  });
});
