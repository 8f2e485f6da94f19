import { describe, expect, it } from 'vitest';
import type { ReadinessReport } from '../../shared/readiness.ts';
import { checkTarget, combineReports, type TargetCheckInput } from './target-checks.ts';

const NOW = 1_000_000;
const base = (): TargetCheckInput => ({
  device: { id: 'd2', name: 'Laptop', status: 'enrolled', lastSeenAt: NOW - 2_000, keyVersions: [1, 2] },
  capabilities: { providers: ['claude', 'demo'], git: true, remotes: ['git@github.com:acme/app.git'], canClone: false },
  requiredProvider: 'claude',
  requiredKeyVersion: 2,
  repos: [{ remoteUrl: 'https://github.com/acme/app', relPath: '.' }],
  now: NOW,
  isOwner: true,
  handoffActive: false,
});
const codes = (input: TargetCheckInput) => checkTarget(input).map((b) => b.code);

describe('target checks', () => {
  it('finds an enrolled, recently seen, capable device eligible (matching its clone by remote)', () => {
    expect(checkTarget(base())).toEqual([]);
  });

  it.each<[string, (i: TargetCheckInput) => void, string[]]>([
    [
      'no heartbeat for over 15 s',
      (i) => {
        i.device = { ...i.device!, lastSeenAt: NOW - 15_001 };
      },
      ['target_offline'],
    ],
    [
      'never seen',
      (i) => {
        i.device = { ...i.device!, lastSeenAt: null };
      },
      ['target_offline'],
    ],
    [
      'the caller says it is offline',
      (i) => {
        i.online = false;
      },
      ['target_offline'],
    ],
    [
      'a pending device',
      (i) => {
        i.device = { ...i.device!, status: 'pending' };
      },
      ['target_not_enrolled'],
    ],
    [
      'a revoked device',
      (i) => {
        i.device = { ...i.device!, status: 'revoked' };
      },
      ['target_not_enrolled'],
    ],
    [
      'no such device',
      (i) => {
        i.device = null;
      },
      ['target_not_enrolled'],
    ],
    [
      'no clone and no cloning',
      (i) => {
        i.repos = [{ remoteUrl: 'git@github.com:acme/other.git' }];
      },
      ['target_cannot_open_workspace'],
    ],
    [
      'a repository without remote',
      (i) => {
        i.repos = [{ remoteUrl: null }];
      },
      ['target_cannot_open_workspace'],
    ],
    [
      'no git on the device',
      (i) => {
        i.capabilities = { ...i.capabilities!, git: false };
      },
      ['target_cannot_open_workspace'],
    ],
    [
      'another provider',
      (i) => {
        i.requiredProvider = 'codex';
      },
      ['target_missing_provider'],
    ],
    [
      'an older key ring',
      (i) => {
        i.requiredKeyVersion = 3;
      },
      ['target_missing_key_version'],
    ],
    [
      'a caller who is not the owner',
      (i) => {
        i.isOwner = false;
      },
      ['not_owner'],
    ],
    [
      'a handoff already running',
      (i) => {
        i.handoffActive = true;
      },
      ['handoff_in_progress'],
    ],
    [
      'no published capabilities',
      (i) => {
        i.capabilities = null;
      },
      ['target_cannot_open_workspace', 'target_missing_provider'],
    ],
    [
      'offline, other provider and not owner together',
      (i) => {
        i.online = false;
        i.requiredProvider = 'codex';
        i.isOwner = false;
      },
      ['not_owner', 'target_offline', 'target_missing_provider'],
    ],
  ])('blocks %s', (_label, change, expected) => {
    const input = base();
    change(input);
    expect(codes(input)).toEqual(expected);
  });

  it('lets a device that can clone open a repository it has no clone of', () => {
    const input = base();
    input.capabilities = { ...input.capabilities!, canClone: true };
    input.repos = [{ remoteUrl: 'ssh://git@github.com/acme/other.git' }];
    expect(checkTarget(input)).toEqual([]);
  });

  it('accepts a key version published in the capabilities', () => {
    const input = base();
    input.requiredKeyVersion = 3;
    input.capabilities = { ...input.capabilities!, keyVersions: [3] };
    expect(checkTarget(input)).toEqual([]);
  });

  it('gives every blocker a sentence and a fix naming the device', () => {
    const input = base();
    input.online = false;
    input.requiredKeyVersion = 9;
    for (const b of checkTarget(input)) {
      expect(b.message).toMatch(/Laptop/);
      expect(b.fix.length).toBeGreaterThan(10);
    }
  });

  it('combines a ready source report with target blockers into a blocked report', () => {
    const source: ReadinessReport = { ready: true, blockers: [], repos: [], evaluatedAt: 5 };
    const input = base();
    input.online = false;
    const combined = combineReports(source, checkTarget(input));
    expect(combined).toMatchObject({ ready: false, evaluatedAt: 5, blockers: [{ code: 'target_offline' }] });
    expect(combineReports(source, [], []).ready).toBe(true);
  });
});
