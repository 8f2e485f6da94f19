/**
 * Integration: the backend's blob limit stated and kept, with real backend and device processes and
 * the real `claude`. The backend runs with `--max-blob-mib 1`; a Claude session whose transcript
 * grows past that is refused at readiness (the Move dialog's report) with its sentence and fix,
 * before anything moves: no handoff is created and the laptop keeps the session.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCliBench } from '../../dev-env/agent-clis/cli-bench.ts';
import { growClaudeTranscript } from '../../dev-env/large-claude-transcript.ts';
import { deviceId, startTwoDevices, waitEligible, waitSession, type TwoDevices } from '../../dev-env/two-devices.ts';
import { projectSlug } from '../providers/claude-code/paths.ts';

const TEST_TIMEOUT_MS = 120_000;
const MiB = 1024 * 1024;

const bench = useCliBench();
let world: TwoDevices;
let laptopConfig: string;

beforeAll(async () => {
  const [laptopHome, desktopHome] = [await bench.lab.home('laptop'), await bench.lab.home('desktop')];
  laptopConfig = laptopHome.claudeConfigDir;
  world = await startTwoDevices({ backendArgs: ['--max-blob-mib', '1'], laptopEnv: laptopHome.env, desktopEnv: desktopHome.env });
}, 90_000);

afterAll(async () => {
  await world?.cleanup();
});

describe('a Move whose checkpoint is over the backend’s blob limit', () => {
  it(
    'is refused at readiness with the estimate, the limit and the fix; nothing moves',
    async () => {
      const { laptop } = world;
      const session = await laptop.client.take('startSession', { workspace: world.repo, provider: 'claude-code', prompt: 'say hello' });
      await waitSession(laptop, session.id, 'the first Claude turn', (d) => d.transcript.some((e) => e.role === 'assistant'));
      await waitEligible(laptop, session.id, 'desktop');
      const desktopId = await deviceId(world.desktop);
      const small = await laptop.client.call('checkReadiness', { sessionId: session.id, targetDeviceId: desktopId });
      expect(small.blockers.map((b) => b.code)).toEqual([]);

      const folder = join(laptopConfig, 'projects', projectSlug(world.repo));
      const file = readdirSync(folder).find((f) => f.endsWith('.jsonl'))!;
      await growClaudeTranscript(join(folder, file), { sessionId: file.slice(0, -'.jsonl'.length), cwd: world.repo, bytes: 2 * MiB });
      expect(statSync(join(folder, file)).size).toBeGreaterThan(2 * MiB);

      const refused = await laptop.client.call('startMove', { sessionId: session.id, targetDeviceId: desktopId });
      if (refused.ok || !('report' in refused)) throw new Error(`expected a blocked report, got ${JSON.stringify(refused)}`);
      expect(refused.report.blockers).toEqual([
        {
          code: 'checkpoint_too_large',
          message: expect.stringMatching(/^This session's checkpoint would be about 3 MiB sealed, over the 1 MiB the sync backend takes/),
          fix: 'Restart the sync backend with a larger limit (baton backend --max-blob-mib 256), or continue the work in a new session.',
          details: { estimatedBytes: expect.any(Number), limitBytes: MiB },
        },
      ]);
      expect(await laptop.client.call('handoffHistory', { sessionId: session.id })).toEqual([]);
      const still = await laptop.client.call('getSession', { sessionId: session.id });
      expect([still?.isOwner, still?.inputBlock]).toEqual([true, null]);
    },
    TEST_TIMEOUT_MS,
  );
});
