/** Vitest support: two devices and a backend started once for a suite's tests, cleaned up after them. */
import { afterAll, beforeAll } from 'vitest';
import { startTwoDevices, type TwoDevices, type TwoDevicesOptions } from './two-devices.ts';

/** Starts the world before the suite's first test and stops it after its last; the getter gives it to the tests. */
export function twoDevicesForSuite(options: TwoDevicesOptions = {}): () => TwoDevices {
  let world: TwoDevices | undefined;
  beforeAll(async () => {
    world = await startTwoDevices(options);
  }, 60_000);
  afterAll(async () => {
    await world?.cleanup();
  });
  return () => {
    if (!world) throw new Error('the two devices have not started');
    return world;
  };
}
