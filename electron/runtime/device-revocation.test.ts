/**
 * Integration: a revoked device knows it. Once the laptop revokes the desktop, the desktop's status
 * says so within seconds, it stops heartbeating, refuses every act in words and takes no input;
 * what it last knew is still shown. Real backend and device processes.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../dev-env/process-harness.ts';
import { twoDevicesForSuite } from '../../dev-env/two-devices-suite.ts';
import { deviceId, startDemoSession, waitSession } from '../../dev-env/two-devices.ts';

const world = twoDevicesForSuite({ env: { BATON_DEMO_TURN_MS: '100' } });

describe('a revoked device', () => {
  it('says so in its status within seconds, stops heartbeating, and refuses to act', async () => {
    const { laptop, desktop, repo } = world();
    const session = await startDemoSession(laptop, repo);
    await waitSession(desktop, session.id, 'the desktop to know the session', (d) => d.transcript.length > 0);
    const told: string[] = [];
    desktop.client.on('sessionChanged', (d) => told.push(d.inputBlock?.code ?? 'none'));
    const before = Date.now();
    expect(await laptop.client.call('revokeDevice', { deviceId: await deviceId(desktop) })).toEqual({ ok: true });

    const status = await waitFor(
      'the desktop to know it was revoked',
      async () => {
        const now = await desktop.client.call('getStatus', {});
        return now.revokedAt !== null ? now : undefined;
      },
      10_000,
      100,
    );
    expect(status.revokedAt).toBeGreaterThanOrEqual(before - 1000);
    // Heartbeating every second here: one refusal (the one that told it), then none.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect((desktop.process.stderr().match(/heartbeat refused: device_revoked/g) ?? []).length).toBeLessThanOrEqual(1);

    expect(await desktop.client.call('startSession', { workspace: repo, provider: 'demo', prompt: 'p' })).toMatchObject({
      ok: false,
      code: 'device_revoked',
      message: expect.stringMatching(/^This device was revoked from the account/),
    });
    const [seen] = await desktop.client.call('listSessions', {});
    expect(seen).toMatchObject({ id: session.id, inputBlock: { code: 'revoked' } });
    // Its UI was told, without asking again.
    expect(told).toContain('revoked');
    expect(await laptop.client.call('moveEligibility', { sessionId: session.id })).toEqual([]);
  }, 60_000);
});
