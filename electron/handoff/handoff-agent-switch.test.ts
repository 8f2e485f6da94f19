/**
 * Integration with the real `claude` and `codex` (the agent-CLI lab: the scripted model server,
 * throwaway homes): a session continues with another agent by summary continuation — across two
 * device processes (Claude Code → Codex to a desktop that has only Codex, and Codex → Claude Code
 * back), and on one device by Switch agent (both ways). Each time the new agent's first request
 * carries the continuation prompt rendered from the checkpoint (or the session) with the earlier
 * agent's history, and the session records where its agent changed.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelApi } from '../../dev-env/scripted-model-server/server.ts';
import { AgentCliLab } from '../../dev-env/agent-clis/agent-cli-lab.ts';
import { deviceId, startTwoDevices, waitSession, type DeviceHandle, type TwoDevices } from '../../dev-env/two-devices.ts';
import { waitFor } from '../../dev-env/process-harness.ts';
import type { SessionDetail } from '../../shared/device-api.ts';

const TEST_TIMEOUT_MS = 240_000;
const TITLE = 'Plan the parser';
const FIRST = 'say hello';

let lab: AgentCliLab;
let world: TwoDevices;
let sessionId = '';

/** The newest model request of `api` whose user text is a continuation of this session. */
function continuationRequest(api: ModelApi, since: number) {
  return lab.server.requests.find(
    (r) => r.seq > since && r.api === api && (r.lastUserText ?? '').includes(`continuation of the session "${TITLE}"`),
  );
}

/** Every file under `dir` (the backend's data folder: database, WAL, blobs). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)]));
}

const lastSeq = () => lab.server.requests.at(-1)?.seq ?? 0;

/** Waits until the session's agent on `device` has answered after `since` and is idle again. */
function settled(device: DeviceHandle, what: string, probe: (d: SessionDetail) => boolean): Promise<SessionDetail> {
  return waitSession(
    device,
    sessionId,
    what,
    (d) => probe(d) && d.inputBlock === null && d.agents.every((a) => a.status !== 'running' && a.status !== 'starting'),
    90_000,
  );
}

beforeAll(async () => {
  lab = await AgentCliLab.start();
  const laptop = await lab.home('laptop');
  const desktop = await lab.home('desktop');
  // The desktop has Codex only: a Claude Code session continues there with Codex.
  const codexOnly = join(desktop.root, 'codex-only-bin');
  mkdirSync(codexOnly);
  symlinkSync(join(lab.binDir, 'codex'), join(codexOnly, 'codex'));
  const desktopPath = (desktop.env.PATH ?? '')
    .split(':')
    .map((dir) => (dir === lab.binDir ? codexOnly : dir))
    .join(':');
  world = await startTwoDevices({
    env: { BATON_PREPARE_TIMEOUT_MS: '60000' },
    laptopEnv: laptop.env,
    desktopEnv: { ...desktop.env, PATH: desktopPath },
    prefix: 'baton-agent-switch-',
  });
}, 120_000);

afterAll(async () => {
  await world?.cleanup();
  await lab?.close();
});

describe('continuing a session with another agent, with the real CLIs', () => {
  it(
    'moves a Claude Code session to a device with only Codex, which continues it from a summary, and back to Claude Code',
    async () => {
      const { laptop, desktop } = world;
      const [laptopId, desktopId] = await Promise.all([deviceId(laptop), deviceId(desktop)]);
      const started = await laptop.client.take('startSession', {
        workspace: world.repo,
        provider: 'claude-code',
        prompt: FIRST,
        title: TITLE,
        permission: 'ask',
      });
      sessionId = started.id;
      await settled(laptop, 'the first Claude Code turn', (d) =>
        d.transcript.some((e) => e.text.includes('Hello from the scripted model.')),
      );

      // The Move dialog's list: the desktop lacks Claude Code, so it is offered as "continue with Codex".
      const offer = await waitFor(
        'the desktop offered as continue with Codex',
        async () => (await laptop.client.call('moveEligibility', { sessionId })).find((e) => e.deviceId === desktopId && e.eligible),
        30_000,
        200,
      );
      expect(offer.continueWith).toBe('codex');
      expect(offer.warning?.code).toBe('summary_continuation');

      const before = lastSeq();
      const lastOnLaptop = (await laptop.client.call('getSession', { sessionId }))!.transcript.at(-1)!;
      await laptop.client.take('startMove', { sessionId, targetDeviceId: desktopId });
      const there = await settled(
        desktop,
        'Codex running the session on the desktop',
        (d) => d.lastHandoff?.state === 'completed' && d.isOwner,
      );
      expect(there.provider).toBe('codex');
      // The session's level carries over: Codex runs it with its own settings for "Ask before edits and commands".
      expect(there.permission).toBe('ask');
      expect(there.lastHandoff?.resumePath).toBe('summary-continuation');
      expect(there.lastHandoff?.providerChange).toEqual({ from: 'claude-code', to: 'codex' });
      expect(there.lastHandoff?.resumeNote).toContain('Continued with Codex instead of Claude Code');
      expect(there.providerChanges).toEqual([
        expect.objectContaining({ from: 'claude-code', to: 'codex', handoffId: there.lastHandoff!.id }),
      ]);
      expect(there.providerChanges[0]?.afterEntryId).toBe(lastOnLaptop.id);
      // Codex was started with the continuation prompt: the packet, the verified facts and Claude's part of the history.
      const prompt = continuationRequest('openai-responses', before)?.lastUserText ?? '';
      expect(prompt).toContain('Until now the session was run by another agent, Claude Code');
      expect(prompt).toContain('## Goal\nsay hello');
      expect(prompt).toMatch(/## Verified on this device\n- \. is on main at [0-9a-f]{40}/);
      expect(prompt).toContain('[assistant] Hello from the scripted model.');
      // Every entry Claude Code wrote is on the desktop, and the laptop follows the change of agent.
      expect(there.transcript.map((e) => e.id)).toEqual(expect.arrayContaining([lastOnLaptop.id]));
      await waitSession(
        laptop,
        sessionId,
        'the laptop following the agent',
        (d) => d.provider === 'codex' && d.providerChanges.length === 1,
      );
      // The laptop reads the change from the handoff's sealed outcome; the backend holds no agent, title or prompt in clear.
      const seen = (await laptop.client.call('handoffHistory', { sessionId })).find((h) => h.id === there.lastHandoff!.id);
      expect(seen?.providerChange).toEqual({ from: 'claude-code', to: 'codex' });
      const files = filesUnder(world.backendData);
      expect(files.some((f) => /^[0-9a-f]{64}$/.test(f.split('/').pop()!))).toBe(true);
      for (const file of files) {
        const bytes = readFileSync(file).toString('latin1');
        for (const clear of ['claude-code', 'Claude Code', TITLE, 'continuation of the session'])
          expect(bytes.includes(clear), `${clear} in ${file}`).toBe(false);
      }

      // Codex answers the next message on the desktop.
      await desktop.client.take('sendMessage', { sessionId, text: 'what did I say first?' });
      await settled(desktop, 'the Codex answer', (d) => d.transcript.some((e) => e.text.startsWith('I remember: This is a continuation')));

      // And back: the laptop continues with Claude Code, from a summary of the Codex part.
      const back = lastSeq();
      await desktop.client.take('startMove', { sessionId, targetDeviceId: laptopId, provider: 'claude-code' });
      const home = await settled(
        laptop,
        'Claude Code running it on the laptop',
        (d) => d.isOwner && d.lastHandoff?.state === 'completed' && d.generation === 3,
      );
      expect(home.provider).toBe('claude-code');
      expect(home.lastHandoff?.providerChange).toEqual({ from: 'codex', to: 'claude-code' });
      expect(home.providerChanges.map((c) => `${c.from}>${c.to}`)).toEqual(['claude-code>codex', 'codex>claude-code']);
      const backPrompt = continuationRequest('anthropic-messages', back)?.lastUserText ?? '';
      expect(backPrompt).toContain('run by another agent, Codex');
      expect(backPrompt).toContain('what did I say first?');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'switches the agent on one device, Claude Code → Codex → Claude Code, each continuing from a summary',
    async () => {
      const { laptop } = world;
      const toCodex = lastSeq();
      await laptop.client.take('switchAgent', { sessionId, provider: 'codex' });
      const codex = await settled(laptop, 'Codex after the switch', (d) => d.provider === 'codex' && d.providerChanges.length === 3);
      expect(codex.providerChanges.at(-1)).toEqual(expect.objectContaining({ from: 'claude-code', to: 'codex', handoffId: null }));
      expect(codex.transcript.some((e) => e.role === 'system' && e.text.startsWith('Switched from Claude Code to Codex on laptop.'))).toBe(
        true,
      );
      expect(continuationRequest('openai-responses', toCodex)?.lastUserText).toContain('run by another agent, Claude Code');

      const toClaude = lastSeq();
      await laptop.client.take('switchAgent', { sessionId, provider: 'claude-code' });
      const claude = await settled(
        laptop,
        'Claude Code after switching back',
        (d) => d.provider === 'claude-code' && d.providerChanges.length === 4,
      );
      expect(claude.generation).toBe(3);
      expect(continuationRequest('anthropic-messages', toClaude)?.lastUserText).toContain('run by another agent, Codex');
      // The same agent again is refused, with the reason.
      const same = await laptop.client.call('switchAgent', { sessionId, provider: 'claude-code' });
      expect(same).toMatchObject({ ok: false, code: 'same_agent' });
      // The desktop, which does not run it, sees the switches in the session's history.
      await waitSession(world.desktop, sessionId, 'the desktop following the switches', (d) => d.providerChanges.length === 4);
    },
    TEST_TIMEOUT_MS,
  );
});
