/**
 * Checks a move between the two devices of a `TwoDevices` world ended with one owner, and the steps
 * tests take to get there: a session on the laptop ready to move, the Move itself, the state a
 * device sees. Imports vitest's `expect`: for vitest tests only (the crash and failover suites).
 */
import { expect } from 'vitest';
import type { SessionDetail } from '../shared/device-api.ts';
import { startDemoSession, waitEligible, waitSession, type DeviceHandle, type TwoDevices } from './two-devices.ts';

/** Waits for the session's handoff to end, then checks both devices agree on exactly one owner. */
export async function expectOneOwner(
  world: TwoDevices,
  sessionId: string,
  handoffId: string,
): Promise<{ laptop: SessionDetail; desktop: SessionDetail }> {
  const ended = (d: SessionDetail) =>
    d.lastHandoff?.id === handoffId && (d.lastHandoff.state === 'completed' || d.lastHandoff.state === 'cancelled');
  const laptop = await waitSession(world.laptop, sessionId, 'the laptop to see the handoff end', ended, 45_000);
  const desktop = await waitSession(
    world.desktop,
    sessionId,
    'the desktop to see the handoff end',
    (d) => ended(d) && d.generation === laptop.generation,
    45_000,
  );
  expect([laptop.isOwner, desktop.isOwner].filter(Boolean)).toHaveLength(1);
  expect(desktop.ownerDeviceId).toBe(laptop.ownerDeviceId);
  if (laptop.lastHandoff?.state === 'completed') {
    expect(desktop).toMatchObject({ isOwner: true, generation: 2 });
  } else {
    expect(laptop).toMatchObject({ isOwner: true, generation: 1 });
  }
  return { laptop, desktop };
}

/** A fresh demo session on the laptop, with the desktop eligible to receive it. */
export async function sessionOnLaptop(world: TwoDevices): Promise<string> {
  const session = await startDemoSession(world.laptop, world.repo);
  await waitEligible(world.laptop, session.id, 'desktop');
  return session.id;
}

/** Moves the session from the laptop to `targetDeviceId`; resolves to the handoff id. */
export async function startMove(world: TwoDevices, sessionId: string, targetDeviceId: string): Promise<string> {
  const moved = await world.laptop.client.call('startMove', { sessionId, targetDeviceId });
  if (!moved.ok) throw new Error(`move refused: ${JSON.stringify(moved)}`);
  return moved.value.handoffId;
}

/** The state of the session's active handoff as `device` sees it (undefined when none is active). */
export async function stateOf(device: DeviceHandle, sessionId: string): Promise<string | undefined> {
  return (await device.client.call('getSession', { sessionId }))?.activeHandoff?.state;
}
