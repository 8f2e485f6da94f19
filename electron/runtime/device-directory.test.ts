import { describe, expect, it } from 'vitest';
import type { Device } from '../../shared/api/devices.ts';
import { KeyRing, generateAdk } from '../crypto/key-ring.ts';
import { DeviceDirectory } from './device-directory.ts';
import type { LocalSession } from '../local-state/local-state.ts';
import type { DeviceCapabilities } from '../ports/devices.ts';
import { ringSeal } from './adapters/seal-port.ts';
import { targetCheck } from './adapters/target-check.ts';

const NOW = 1_800_000_000_000;
const ACCOUNT = 'account-aaaaaaaaaaaa';
const seal = ringSeal(ACCOUNT, new KeyRing([[1, generateAdk()]]));
const ORIGIN = '/srv/origins/app.git';

const session = {
  id: 'session-aaaaaaaaaaaa',
  provider: 'demo',
  repos: [{ relPath: '.', remoteUrl: ORIGIN, branch: 'main' }],
} as LocalSession;

const capable: DeviceCapabilities = { providers: ['demo'], git: true, remotes: [ORIGIN], keyVersions: [1] };

function device(id: string, name: string, overrides: Partial<Device> = {}, capabilities: DeviceCapabilities | null = capable): Device {
  return {
    id,
    accountId: ACCOUNT,
    name,
    status: 'enrolled',
    signingPublicKey: 'AAAA',
    agreementPublicKey: 'AAAA',
    enrolledAt: 1,
    revokedAt: null,
    lastSeenAt: NOW - 2_000,
    keyVersions: [1],
    sealedCapabilities: capabilities === null ? null : seal.sealJson(capabilities, { kind: 'capabilities', deviceId: id }),
    ...overrides,
  };
}

function reasons(devices: Device[]): Record<string, string | null> {
  const directory = new DeviceDirectory('self-aaaaaaaaaaaaaa', seal, () => NOW);
  directory.replaceAll([device('self-aaaaaaaaaaaaaa', 'this laptop'), ...devices]);
  return Object.fromEntries(directory.eligibility(session, targetCheck).map((e) => [e.name, e.eligible ? null : (e.reason?.code ?? '?')]));
}

describe('eligibility of the other devices for a session', () => {
  it('finds an enrolled, reachable device with the provider, git, the remote and the key version eligible', () => {
    expect(reasons([device('desk-aaaaaaaaaaaaaa', 'desktop')])).toEqual({ desktop: null });
  });

  it('gives each ineligible device its reason', () => {
    expect(
      reasons([
        device('off-aaaaaaaaaaaaaaa', 'offline', { lastSeenAt: NOW - 16_000 }),
        device('pend-aaaaaaaaaaaaaa', 'pending', { status: 'pending' }),
        device('prov-aaaaaaaaaaaaaa', 'no provider', {}, { ...capable, providers: [] }),
        device('git-aaaaaaaaaaaaaaa', 'no git', {}, { ...capable, git: false }),
        device('key-aaaaaaaaaaaaaaa', 'no key', { keyVersions: [] }, { ...capable, keyVersions: [] }),
      ]),
    ).toEqual({
      offline: 'target_offline',
      pending: 'target_not_enrolled',
      'no provider': 'target_missing_provider',
      'no git': 'target_cannot_open_workspace',
      'no key': 'target_missing_key_version',
    });
  });

  it('does not trust capabilities sealed for another device', () => {
    const swapped = device('swap-aaaaaaaaaaaaaa', 'swapped');
    swapped.sealedCapabilities = seal.sealJson(capable, { kind: 'capabilities', deviceId: 'desk-aaaaaaaaaaaaaa' });
    expect(reasons([swapped])).toEqual({ swapped: 'target_cannot_open_workspace' });
  });

  it('lists neither this device nor revoked devices', () => {
    expect(Object.keys(reasons([device('gone-aaaaaaaaaaaaaa', 'revoked', { status: 'revoked' })]))).toEqual([]);
  });

  it('reports a device the account does not have as not enrolled', () => {
    const directory = new DeviceDirectory('self-aaaaaaaaaaaaaa', seal, () => NOW);
    expect(directory.targetBlockers(session, 'nobody-aaaaaaaaaaaa', targetCheck).map((b) => b.code)).toEqual(['target_not_enrolled']);
  });
});

describe('CLI versions in the Move dialog', () => {
  const claudeSession = { ...session, provider: 'claude-code' } as LocalSession;
  const withClaude = (version: string | null): DeviceCapabilities => ({
    ...capable,
    providers: ['claude-code'],
    ...(version === null ? {} : { providerVersions: { 'claude-code': version } }),
  });
  const views = (devices: Device[], sourceVersion: string | null) => {
    const directory = new DeviceDirectory('self-aaaaaaaaaaaaaa', seal, () => NOW);
    directory.replaceAll(devices);
    return directory.eligibility(claudeSession, targetCheck, sourceVersion);
  };

  it('warns next to an eligible device whose CLI is older than the one that wrote the session, naming both versions', () => {
    const [older] = views([device('old-aaaaaaaaaaaaaaa', 'desktop', {}, withClaude('2.1.300'))], '2.1.332');
    expect(older).toMatchObject({ eligible: true, reason: null });
    expect(older?.warning).toEqual({
      code: 'target_provider_older',
      message:
        'desktop has Claude Code 2.1.300, older than the Claude Code 2.1.332 this session was written with, ' +
        'so the session continues from a summary instead of resuming the same Claude Code session.',
    });
  });

  it('does not warn for the same or a newer CLI, or when a version is unknown', () => {
    const list = views(
      [
        device('same-aaaaaaaaaaaaaa', 'same', {}, withClaude('2.1.332')),
        device('new-aaaaaaaaaaaaaaa', 'newer', {}, withClaude('2.2.0')),
        device('unk-aaaaaaaaaaaaaaa', 'unknown', {}, withClaude(null)),
      ],
      '2.1.332',
    );
    expect(list.map((e) => [e.name, e.eligible, e.warning])).toEqual([
      ['same', true, null],
      ['newer', true, null],
      ['unknown', true, null],
    ]);
    expect(views([device('old-aaaaaaaaaaaaaaa', 'desktop', {}, withClaude('1.0.0'))], null)[0]?.warning).toBeNull();
  });

  it('shows a device without the CLI as ineligible, naming the agent', () => {
    const [missing] = views([device('none-aaaaaaaaaaaaaa', 'desktop', {}, { ...capable, providers: ['demo'] })], '2.1.332');
    expect(missing).toMatchObject({
      eligible: false,
      reason: { code: 'target_missing_provider', message: 'desktop does not have Claude Code, which this session runs on.' },
      warning: null,
      continueWith: null,
    });
  });

  it('offers a device with another agent but not the session\'s as "continue with" it, a summary continuation', () => {
    const [other] = views(
      [device('cdx-aaaaaaaaaaaaaaa', 'desktop', {}, { ...capable, providers: ['demo', 'command', 'codex'] })],
      '2.1.332',
    );
    expect(other).toMatchObject({
      eligible: true,
      reason: null,
      continueWith: 'codex',
      otherAgents: ['command'],
      warning: { code: 'summary_continuation', message: 'Continue with Codex: a summary continuation (desktop has no Claude Code).' },
    });
  });

  it("lists a device's other real agents next to the session's own, never the demo agent, keeping the same agent the default", () => {
    const [both] = views(
      [device('both-aaaaaaaaaaaaaa', 'desktop', {}, { ...capable, providers: ['demo', 'command', 'codex', 'claude-code'] })],
      null,
    );
    expect(both).toMatchObject({ eligible: true, continueWith: null, warning: null, otherAgents: ['codex', 'command'] });
    const [only] = views([device('only-aaaaaaaaaaaaaa', 'desktop', {}, withClaude(null))], null);
    expect(only?.otherAgents).toEqual([]);
  });

  it('still gives the device its other reasons when it could continue with another agent', () => {
    const [offline] = views(
      [device('cdx-aaaaaaaaaaaaaaa', 'desktop', { lastSeenAt: NOW - 60_000 }, { ...capable, providers: ['codex'] })],
      null,
    );
    expect(offline).toMatchObject({ eligible: false, reason: { code: 'target_offline' } });
  });
});

describe('how recent the device list is', () => {
  it('says the list is fresh for the given time after it was read whole, and not before it ever was', () => {
    let now = NOW;
    const directory = new DeviceDirectory('self-aaaaaaaaaaaaaa', seal, () => now);
    expect(directory.listedWithin(10_000)).toBe(false);
    directory.upsert(device('desk-aaaaaaaaaaaaaa', 'desktop'));
    expect(directory.listedWithin(10_000)).toBe(false);
    directory.replaceAll([device('desk-aaaaaaaaaaaaaa', 'desktop')]);
    now += 10_000;
    expect(directory.listedWithin(10_000)).toBe(true);
    now += 1;
    expect(directory.listedWithin(10_000)).toBe(false);
  });
});

describe('what is known now of another device', () => {
  const beating = { ...capable, heartbeatMs: 1000 };
  const directoryAt = (clock: () => number, reached = true) =>
    new DeviceDirectory('self-aaaaaaaaaaaaaa', seal, clock, () => ({ reached, since: reached ? null : NOW - 5_000 }));

  it('counts a device online for three of its published heartbeat intervals (5 s at least), then offline since its last one', () => {
    let now = NOW;
    const directory = directoryAt(() => now);
    directory.replaceAll([
      device('desk-aaaaaaaaaaaaaa', 'desktop', { lastSeenAt: NOW }, beating),
      device('slow-aaaaaaaaaaaaaa', 'slow', { lastSeenAt: NOW }, { ...capable, heartbeatMs: 4_000 }),
    ]);
    expect(directory.views()[0]).toMatchObject({ online: true, presence: 'online', offlineSince: null });
    expect(directory.nextPresenceChange()).toBe(NOW + 5_001);
    now = NOW + 5_001;
    expect(directory.views()[1]).toMatchObject({ presence: 'online' });
    expect(directory.nextPresenceChange()).toBe(NOW + 12_001);
    expect(directory.views()[0]).toMatchObject({ online: false, presence: 'offline', offlineSince: NOW });
    const [desktop] = directory.eligibility(session, targetCheck);
    expect(desktop).toMatchObject({ eligible: false, since: NOW, checkedAt: now });
    expect(desktop?.reason).toEqual({
      code: 'target_offline',
      message: 'desktop stopped sending heartbeats, so it is taken to be offline.',
    });
  });

  it('counts a device that said it stopped offline at once, since then', () => {
    const stopped = device('desk-aaaaaaaaaaaaaa', 'desktop', { lastSeenAt: NOW - 100 }, { ...beating, stoppedAt: NOW - 100 });
    const directory = directoryAt(() => NOW);
    directory.replaceAll([stopped]);
    expect(directory.views()[0]).toMatchObject({ online: false, presence: 'offline', offlineSince: NOW - 100 });
    expect(directory.nextPresenceChange()).toBeNull();
    expect(directory.eligibility(session, targetCheck)[0]).toMatchObject({
      eligible: false,
      reason: { code: 'target_offline', message: 'Baton on desktop was stopped.' },
      since: NOW - 100,
    });
  });

  it('claims nothing online while this device cannot reach the backend, and says why the move cannot be judged', () => {
    const directory = directoryAt(() => NOW, false);
    directory.replaceAll([
      device('self-aaaaaaaaaaaaaa', 'this laptop'),
      device('desk-aaaaaaaaaaaaaa', 'desktop', { lastSeenAt: NOW }, beating),
    ]);
    expect(directory.views().map((d) => [d.name, d.online, d.presence, d.lastSeenAt])).toEqual([
      ['this laptop', false, 'unknown', NOW - 2_000],
      ['desktop', false, 'unknown', NOW],
    ]);
    expect(directory.eligibility(session, targetCheck)[0]).toMatchObject({
      eligible: false,
      reason: { code: 'target_offline', message: 'Whether desktop is online is not known: this device cannot reach the sync backend.' },
      since: NOW - 5_000,
    });
  });

  it('says since when another reason holds: when this device first saw it, not each time it looks', () => {
    let now = NOW;
    const directory = directoryAt(() => now);
    const noGit = { ...beating, git: false };
    directory.replaceAll([device('git-aaaaaaaaaaaaaaa', 'desktop', { lastSeenAt: NOW }, noGit)]);
    expect(directory.eligibility(session, targetCheck)[0]).toMatchObject({ reason: { code: 'target_cannot_open_workspace' }, since: NOW });
    now += 500;
    directory.upsert(device('git-aaaaaaaaaaaaaaa', 'desktop', { lastSeenAt: now }, noGit));
    expect(directory.eligibility(session, targetCheck)[0]).toMatchObject({ since: NOW, checkedAt: NOW + 500 });
  });
});
