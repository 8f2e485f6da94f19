/**
 * Integration: a real backend process and two real device processes move a demo-agent session
 * over real git (bare origin). One backend and one pair of devices for the whole file.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../enrollment/profile.ts';
import { createBackendClient } from '../sync/backend-client.ts';
import { deviceId, startDemoSession, startTwoDevices, waitEligible, waitSession, type TwoDevices } from './two-devices.ts';

let world: TwoDevices;

beforeAll(async () => {
  world = await startTwoDevices({ env: { BATON_PREPARE_TIMEOUT_MS: '15000', BATON_DEMO_TURN_MS: '200' } });
}, 90_000);

afterAll(async () => {
  await world?.cleanup();
});

const head = (repo: string) => execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, env: world.env, encoding: 'utf8' }).trim();

describe('a complete Move between two device processes', () => {
  it('moves the session to the desktop at the source commit, generation 2, with the provider resumed; the laptop is fenced off', async () => {
    const { laptop, desktop } = world;
    const commit = world.sandbox.commitFile(world.repo, 'src/parser.ts', 'export const parse = () => 1;\n', 'Add the parser');
    world.sandbox.push(world.repo);
    const session = await startDemoSession(laptop, world.repo);
    expect(session.generation).toBe(1);
    await waitEligible(laptop, session.id, 'desktop');

    const moved = await laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: await deviceId(desktop) });
    expect(moved.ok).toBe(true);

    const onDesktop = await waitSession(desktop, session.id, 'the desktop to own the session after a completed move',
      (d) => d.isOwner && d.lastHandoff?.state === 'completed' && d.inputBlock === null);
    expect(onDesktop.generation).toBe(2);
    expect(onDesktop.lastHandoff?.resumePath).toBe('checkpoint-import');
    expect(onDesktop.lastHandoff?.history.map((h) => h.state)).toEqual([
      'requested', 'target-prepared', 'source-quiescing', 'source-relinquished-and-checkpointed', 'ownership-transferred', 'target-activating', 'completed',
    ]);
    expect(head(onDesktop.workspace)).toBe(commit);
    expect(onDesktop.workspace.startsWith(desktop.workspaceRoot)).toBe(true);
    // The transcript came across in the checkpoint and the resumed agent answers on the desktop.
    expect(onDesktop.transcript.some((e) => e.text.includes('Look around the repository'))).toBe(true);
    expect(await desktop.client.call('sendMessage', { sessionId: session.id, text: 'carry on' })).toEqual({ ok: true });
    await waitSession(desktop, session.id, 'the resumed agent to answer', (d) => d.transcript.some((e) => e.role === 'assistant' && e.text.includes('carry on')));

    // The laptop shows the session as moved and refuses input.
    const onLaptop = await waitSession(laptop, session.id, 'the laptop to see the move', (d) => !d.isOwner && d.generation === 2);
    expect(onLaptop.condition).toBe('moved');
    expect(onLaptop.inputBlock?.code).toBe('moved');
    const refused = await laptop.client.call('sendMessage', { sessionId: session.id, text: 'still there?' });
    expect(refused).toMatchObject({ ok: false, code: 'moved' });

    // A stale append signed by the laptop at its old generation is refused by the backend.
    const profile = loadProfile(laptop.profile);
    if (!profile.ok) throw new Error(profile.message);
    const client = createBackendClient({ baseUrl: world.backendUrl, signer: profile.profile.identity });
    const stale = await client.call('appendEvent', { params: { sessionId: session.id }, body: { generation: 1, sealedBody: 'AAAA' } });
    expect(stale).toMatchObject({ ok: false, code: 'stale_generation' });
  });
});
