/**
 * Adopting a Claude Code session the user already had, against a real backend process and a real
 * git workspace: the Baton session is owned here, its provider is bound to that CLI session (the
 * export names the same id), its history (read from the CLI's transcript, written as the real CLI
 * writes it) is its transcript here and, sealed, on another device; adopting it again, or a session
 * the CLI does not have, is refused and creates nothing.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeClaudeSession } from '../../../dev-env/cli-session-files.ts';
import { firstDevice, joinedDevice, startEnrollmentWorld, type EnrollmentWorld } from '../../../dev-env/enrollment-fixture.ts';
import { createGitSandbox, type GitSandbox } from '../../../dev-env/git-sandbox.ts';
import { sessionServiceOf } from '../../../dev-env/session-services.ts';
import type { Profile } from '../../enrollment/profile.ts';
import { listExistingSessions } from '../../providers/existing-sessions.ts';
import { createProvider } from '../../providers/registry.ts';
import { providerPort } from '../adapters/provider-port.ts';
import { adoptSession, listAgentSessions } from './session-adoption.ts';

let world: EnrollmentWorld;
let sandbox: GitSandbox;
let laptop: Profile;
let desktop: Profile;
/** The CLI homes of this machine (a throwaway CLAUDE_CONFIG_DIR). */
let cliEnv: NodeJS.ProcessEnv;

beforeAll(async () => {
  world = await startEnrollmentWorld();
  sandbox = createGitSandbox('baton-adopt-');
  cliEnv = { ...sandbox.env, CLAUDE_CONFIG_DIR: join(sandbox.root, 'claude'), CODEX_HOME: join(sandbox.root, 'codex') };
  laptop = await firstDevice(world, 'laptop');
  desktop = await joinedDevice(world, laptop, 'desktop');
}, 90_000);

afterAll(async () => {
  await world?.close();
  sandbox?.cleanup();
});

const providers = providerPort({
  detect: async () => [],
  create: (id, settings) => {
    const made = createProvider(id, { env: cliEnv }, settings);
    if (!made.ok) throw new Error(made.message);
    return made.value;
  },
  existing: (id, workspace) => listExistingSessions(id, workspace, cliEnv),
});

function device(profile: Profile, stateDir: string) {
  const parts = sessionServiceOf(profile, {
    backendUrl: world.backendUrl,
    stateDir: join(sandbox.root, stateDir),
    gitEnv: sandbox.env,
    providers,
  });
  return {
    ...parts,
    adoption: {
      selfId: profile.identity.deviceId,
      selfName: profile.info.name,
      state: parts.state,
      sessions: parts.sessions,
      providers,
      changes: { emit: () => undefined },
    },
  };
}

describe('adopting a Claude Code session', () => {
  it('makes a Baton session bound to the same CLI session, with its history here and sealed on another device', async () => {
    const repo = sandbox.clone(sandbox.makeOrigin('adopt'), 'adopt');
    const turns = [
      { user: 'Fix the flaky parser test', assistant: 'Fixed.', wrote: { file: 'parser.ts', content: 'export {};' } },
      { user: 'Run it again', assistant: 'Green.' },
    ];
    const existing = writeClaudeSession(cliEnv.CLAUDE_CONFIG_DIR!, repo, { turns });
    const laptopSide = device(laptop, 'laptop-state');

    const offered = await listAgentSessions(laptopSide.adoption, 'claude-code', repo);
    expect(offered).toEqual({
      ok: true,
      value: [expect.objectContaining({ provider: 'claude-code', sessionId: existing.sessionId, batonSessionId: null })],
    });

    const adopted = await adoptSession(laptopSide.adoption, {
      workspace: repo,
      provider: 'claude-code',
      sessionId: existing.sessionId,
      permission: 'full',
    });
    if (!adopted.ok) throw new Error(adopted.message);
    const session = adopted.value;
    expect(session).toMatchObject({ title: 'Fix the flaky parser test', provider: 'claude-code', permission: 'full', generation: 1 });
    expect(session.ownerDeviceId).toBe(laptop.identity.deviceId);
    expect(laptopSide.sessions.provider(session.id)).toBeDefined();
    expect(laptopSide.state.session(session.id)?.providerResume).toMatchObject({ provider: 'claude-code', sessionId: existing.sessionId });
    const texts = laptopSide.state.transcriptPage(session.id, 0, Infinity).map((e) => e.text);
    expect(texts.slice(0, 6)).toEqual([
      'Fix the flaky parser test',
      `Write ${repo}/parser.ts`,
      `Result: File created successfully at: ${repo}/parser.ts`,
      'Fixed.',
      'Run it again',
      'Green.',
    ]);
    expect(texts.at(-1)).toBe(
      `Adopted Claude Code session ${existing.sessionId} from laptop with 6 earlier entries; the next message resumes it.`,
    );

    // Another device of the account reads the same history, in order, from the sealed events.
    const desktopSide = device(desktop, 'desktop-state');
    const record = await desktopSide.client.call('getSession', { params: { sessionId: session.id } });
    if (!record.ok) throw new Error(record.message);
    await desktopSide.sessions.applyRemote(record.value.session);
    const seen = desktopSide.state.session(session.id)!;
    expect(desktopSide.state.transcriptPage(session.id, 0, Infinity).map((e) => e.text)).toEqual(texts);
    expect(seen.agents.map((a) => a.id)).toEqual(['main']);
    expect(seen.permission).toBe('full');

    // Listed as adopted now; adopting it again is refused and creates nothing.
    const again = await listAgentSessions(laptopSide.adoption, 'claude-code', repo);
    expect(again.ok && again.value[0]?.batonSessionId).toBe(session.id);
    const count = laptopSide.state.listSessions().length;
    expect(
      await adoptSession(laptopSide.adoption, { workspace: repo, provider: 'claude-code', sessionId: existing.sessionId }),
    ).toMatchObject({
      ok: false,
      code: 'already_adopted',
    });
    expect(laptopSide.state.listSessions()).toHaveLength(count);
    await laptopSide.sessions.stopAll();
  }, 60_000);

  it('refuses a session the CLI does not have for the workspace, and one of a provider that cannot adopt, creating nothing', async () => {
    const repo = sandbox.clone(sandbox.makeOrigin('adopt-none'), 'adopt-none');
    const side = device(laptop, 'none-state');
    const before = await side.client.call('listSessions', {});
    const unknown = '11111111-2222-4333-8444-555555555555';
    expect(await adoptSession(side.adoption, { workspace: repo, provider: 'claude-code', sessionId: unknown })).toMatchObject({
      ok: false,
      code: 'session_not_found',
    });
    expect(await adoptSession(side.adoption, { workspace: repo, provider: 'demo', sessionId: unknown })).toMatchObject({
      ok: false,
      code: 'unsupported',
    });
    expect(side.state.listSessions()).toEqual([]);
    const after = await side.client.call('listSessions', {});
    expect(after.ok && before.ok && after.value.sessions.length === before.value.sessions.length).toBe(true);
  }, 60_000);
});
