/**
 * Integration: CLI versions across a Move, with real backend and device processes. Each device
 * publishes (sealed) the version of its Claude Code; the source records its own in the checkpoint.
 * The laptop's CLI is newer than the desktop's: the Move dialog warns next to the desktop, and the
 * desktop, older than the CLI that wrote the session, continues it from a summary with that reason.
 * Moved back, the laptop (newer than the desktop's CLI) imports it. The real `claude` runs on both
 * (the agent-CLI lab), behind a wrapper that reports each device's version.
 */
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCliBench } from '../../dev-env/agent-clis/cli-bench.ts';
import { cliReporting } from '../../dev-env/agent-clis/versioned-cli.ts';
import { deviceId, startTwoDevices, waitEligible, waitSession, type TwoDevices } from '../../dev-env/two-devices.ts';
import { waitFor } from '../../dev-env/process-harness.ts';

const TEST_TIMEOUT_MS = 120_000;

const bench = useCliBench();
let world: TwoDevices;

/** The env of a device with its own CLI homes whose `claude` (the real one) says it is `version`. */
async function claudeAt(name: string, version: string): Promise<NodeJS.ProcessEnv> {
  const home = await bench.lab.home(name);
  const bin = cliReporting(join(home.root, 'versioned-bin'), 'claude', `${version} (Claude Code)`, join(bench.lab.binDir, 'claude'));
  return { ...home.env, PATH: [bin, home.env.PATH ?? ''].join(delimiter) };
}

beforeAll(async () => {
  world = await startTwoDevices({
    env: { BATON_PREPARE_TIMEOUT_MS: '15000' },
    laptopEnv: await claudeAt('laptop', '2.1.332'),
    desktopEnv: await claudeAt('desktop', '2.1.300'),
  });
}, 90_000);

afterAll(async () => {
  await world?.cleanup();
});

describe('a Claude Code session moved to a device with an older Claude Code', () => {
  it(
    'is warned in the Move dialog, continues there from a summary with the reason, and imports again on the way back',
    async () => {
      const { laptop, desktop } = world;
      world.sandbox.commitFile(world.repo, 'src/main.ts', 'export {};\n', 'Add the entry point');
      world.sandbox.push(world.repo);
      const session = await laptop.client.take('startSession', { workspace: world.repo, provider: 'claude-code', prompt: 'say hello' });
      await waitSession(laptop, session.id, 'the first Claude turn', (d) => d.transcript.some((e) => e.role === 'assistant'));
      await waitEligible(laptop, session.id, 'desktop');
      const older =
        'desktop has Claude Code 2.1.300, older than the Claude Code 2.1.332 this session was written with, ' +
        'so the session continues from a summary instead of resuming the same Claude Code session.';
      const offered = await waitFor('the desktop to publish its version', async () => {
        const list = await laptop.client.call('moveEligibility', { sessionId: session.id });
        const entry = list.find((e) => e.name === 'desktop');
        return entry?.warning ? entry : undefined;
      });
      expect(offered).toMatchObject({ eligible: true, warning: { code: 'target_provider_older', message: older } });

      expect((await laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: await deviceId(desktop) })).ok).toBe(true);
      const there = await waitSession(
        desktop,
        session.id,
        'the move to the older CLI to complete',
        (d) => d.isOwner && d.lastHandoff?.state === 'completed' && d.inputBlock === null,
      );
      expect(there.lastHandoff?.resumePath).toBe('summary-continuation');
      expect(there.lastHandoff?.resumeNote).toBe(older.replace(/^desktop/, 'The target device'));

      // Back to the laptop: its CLI is newer than the desktop's, which wrote the session last.
      await waitEligible(desktop, session.id, 'laptop');
      const back = await desktop.client.call('moveEligibility', { sessionId: session.id });
      expect(back.find((e) => e.name === 'laptop')?.warning).toBeNull();
      expect((await desktop.client.call('startMove', { sessionId: session.id, targetDeviceId: await deviceId(laptop) })).ok).toBe(true);
      const home = await waitSession(
        laptop,
        session.id,
        'the move back to complete',
        (d) => d.isOwner && d.lastHandoff?.id !== there.lastHandoff?.id && d.lastHandoff?.state === 'completed',
      );
      expect([home.lastHandoff?.resumePath, home.lastHandoff?.resumeNote]).toEqual(['checkpoint-import', null]);
    },
    TEST_TIMEOUT_MS,
  );
});
