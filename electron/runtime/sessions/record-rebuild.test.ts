/**
 * Integration: a device process whose session record is truncated on disk while it is stopped.
 * On restart it rebuilds the record from the backend's sealed session metadata and event stream
 * (workspace, transcript) and runs the session again; when the workspace is gone too, the session
 * needs attention with the reason and the fix, and runs again once the workspace is back.
 */
import { renameSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { truncateSessionRecord } from '../../../dev-env/local-records.ts';
import {
  deviceId,
  startDemoSession,
  startTwoDevices,
  waitEligible,
  waitSession,
  type DeviceHandle,
  type TwoDevices,
} from '../../../dev-env/two-devices.ts';

const TEST_TIMEOUT_MS = 120_000;
/** The note, after the device's name (every device reads it). */
const REBUILT_NOTE = "'s record of the session could not be read (it is not complete JSON (truncated?))";

let world: TwoDevices;

beforeAll(async () => {
  world = await startTwoDevices({ env: { BATON_DEMO_TURN_MS: '100' } });
}, 90_000);

afterAll(async () => {
  await world?.cleanup();
});

/** Stops the device, cuts its record of `sessionId` in half, runs `meanwhile`, and starts it again. */
async function truncateAndRestart(
  sessionId: string,
  meanwhile: () => void = () => undefined,
  which: 'laptop' | 'desktop' = 'laptop',
): Promise<DeviceHandle> {
  const old = world[which];
  expect(await old.process.stop()).toBe(0);
  truncateSessionRecord(old.profile, sessionId);
  meanwhile();
  world[which] = await world.startDevice({ name: old.name, profile: old.profile, workspaceRoot: old.workspaceRoot, env: old.env });
  return world[which];
}

async function restart(): Promise<DeviceHandle> {
  const old = world.laptop;
  await old.process.stop();
  world.laptop = await world.startDevice({ name: old.name, profile: old.profile, workspaceRoot: old.workspaceRoot, env: old.env });
  return world.laptop;
}

describe('a truncated session record', () => {
  it(
    'is rebuilt from the backend on restart: workspace, transcript and a note saying so; the session runs again',
    async () => {
      const session = await startDemoSession(world.laptop, world.repo);
      expect(await world.laptop.client.call('sendMessage', { sessionId: session.id, text: 'Second turn' })).toEqual({ ok: true });
      const before = await waitSession(world.laptop, session.id, 'the second turn', (d) =>
        d.transcript.some((e) => e.role === 'assistant' && e.text.includes('Second turn')),
      );

      const laptop = await truncateAndRestart(session.id);
      const rebuilt = await waitSession(laptop, session.id, 'the rebuilt session to run', (d) => d.inputBlock === null);
      expect(rebuilt).toMatchObject({
        isOwner: true,
        generation: 1,
        condition: 'owned',
        attention: null,
        workspace: world.repo,
        title: before.title,
      });
      const ids = rebuilt.transcript.map((e) => e.id);
      expect(before.transcript.map((e) => e.id).every((id) => ids.includes(id))).toBe(true);
      expect(rebuilt.transcript.some((e) => e.role === 'system' && e.text.startsWith(`laptop${REBUILT_NOTE}`))).toBe(true);
      expect(await laptop.client.call('sendMessage', { sessionId: session.id, text: 'After the rebuild' })).toEqual({ ok: true });
      await waitSession(laptop, session.id, 'an answer after the rebuild', (d) =>
        d.transcript.some((e) => e.role === 'assistant' && e.text.includes('After the rebuild')),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'whose workspace is gone too needs attention with the reason and the fix, and runs again once the workspace is back',
    async () => {
      const [session] = await world.laptop.client.call('listSessions', {});
      const away = `${world.repo}-away`;
      const laptop = await truncateAndRestart(session!.id, () => renameSync(world.repo, away));
      const stuck = await waitSession(laptop, session!.id, 'the session to need attention', (d) => d.condition === 'needs-attention');
      expect(stuck.attention).toEqual({
        code: 'workspace_missing',
        message: expect.stringContaining(`could not be read (it is not complete JSON (truncated?)). It was rebuilt`),
        fix: expect.stringContaining(`Put the workspace back at ${world.repo}`),
        retryActivation: false,
      });
      expect(stuck.attention?.message).toContain(`its workspace ${world.repo} is not on this device any more`);
      expect(stuck.inputBlock).toMatchObject({ code: 'needs_attention' });
      expect(await laptop.client.call('sendMessage', { sessionId: session!.id, text: 'Anyone?' })).toMatchObject({
        ok: false,
        code: 'needs_attention',
      });
      expect(await laptop.client.call('retryActivation', { sessionId: session!.id })).toMatchObject({
        ok: false,
        code: 'not_an_activation',
      });

      renameSync(away, world.repo);
      const back = await restart();
      const running = await waitSession(back, session!.id, 'the session to run again', (d) => d.inputBlock === null);
      expect(running).toMatchObject({ condition: 'owned', attention: null, workspace: world.repo });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "on the device a Move took it to is rebuilt in that device's own workspace (the target republished the metadata)",
    async () => {
      const session = await startDemoSession(world.laptop, world.repo, 'Move me, then lose my record');
      await waitEligible(world.laptop, session.id, 'desktop');
      const moved = await world.laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: await deviceId(world.desktop) });
      expect(moved.ok).toBe(true);
      const arrived = await waitSession(
        world.desktop,
        session.id,
        'the move to complete',
        (d) => d.isOwner && d.lastHandoff?.state === 'completed',
      );
      expect(arrived.workspace.startsWith(world.desktop.workspaceRoot)).toBe(true);

      const desktop = await truncateAndRestart(session.id, undefined, 'desktop');
      const rebuilt = await waitSession(desktop, session.id, 'the rebuilt session to run on the desktop', (d) => d.inputBlock === null);
      expect(rebuilt).toMatchObject({ isOwner: true, generation: 2, condition: 'owned', workspace: arrived.workspace });
      expect(rebuilt.transcript.some((e) => e.text.startsWith(`desktop${REBUILT_NOTE}`))).toBe(true);
    },
    TEST_TIMEOUT_MS,
  );
});
