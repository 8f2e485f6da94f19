/**
 * The Move request's record: it carries the commits readiness read, sealed to the handoff, and a
 * backend that refuses the field is asked again without it. The parts around the request are
 * stand-ins that answer as a ready source and an eligible target do.
 */
import { describe, expect, it } from 'vitest';
import type { CreateHandoffRequest, Handoff } from '../../shared/api/handoffs.ts';
import { DEFAULT_MOVE_SETTINGS } from '../../shared/carry.ts';
import { fail, ok, type Result } from '../../shared/errors.ts';
import type { ReadinessReport } from '../../shared/readiness.ts';
import type { LocalSession } from '../local-state/local-state.ts';
import type { DevicesPort } from '../ports/devices.ts';
import type { SealContext, SealPort } from '../ports/seal.ts';
import { openMoveCommits } from './move-commits.ts';
import { moveRequests, type MoveRequestDeps } from './move-request.ts';

const HEAD = 'a'.repeat(40);
const SELF = 'laptop-id';

/** The key versions the stand-in ring holds (a refresh may add one). */
const held = [1, 2];

/** Seals as a JSON envelope naming its context, and opens only under that very context. */
const seal: Pick<SealPort, 'sealJson' | 'openJson' | 'keyVersions'> = {
  keyVersions: () => held,
  sealJson: (value: unknown, context: SealContext) => Buffer.from(JSON.stringify({ value, context })).toString('base64url'),
  openJson: (sealed: string, context: SealContext) => {
    const { value, context: was } = JSON.parse(Buffer.from(sealed, 'base64url').toString()) as { value: unknown; context: SealContext };
    return JSON.stringify(was) === JSON.stringify(context) ? ok(value) : fail('checkpoint_rejected', 'another context');
  },
};

const session = {
  id: 'session-1',
  workspace: '/work/app',
  repoPaths: [],
  provider: 'demo',
  repos: [{ relPath: '.', remoteUrl: 'git@example.com:app.git', branch: 'main' }],
  ownerDeviceId: SELF,
  generation: 3,
  inputBlock: null,
  freshCloneOn: null,
  continueWith: null,
} as unknown as LocalSession;

const ready: ReadinessReport = {
  ready: true,
  blockers: [],
  repos: [
    { path: '/work/app', branch: 'main', upstream: 'origin/main', head: HEAD, ahead: 0, behind: 0, remoteUrl: session.repos[0]!.remoteUrl },
  ],
  evaluatedAt: 0,
};

const BASE = 'b'.repeat(40);

/** The source as readiness reads it with one uncommitted file and one unpushed commit, both of which can be carried. */
const carryable: ReadinessReport = {
  ready: false,
  blockers: [
    { code: 'dirty_tree', message: 'app has 1 uncommitted file', fix: 'commit', carryable: true },
    { code: 'unpushed_commits', message: 'main has 1 commit not pushed', fix: 'git push', carryable: true },
  ],
  repos: [{ ...ready.repos[0]!, ahead: 1, carryBase: BASE }],
  evaluatedAt: 0,
  carry: { changed: 0, added: 1, deleted: 0, commits: 1, secretFiles: ['app/.env'], estimatedBytes: 10, largest: [], repos: ['/work/app'] },
};

/** A move request over stand-ins; `create` answers each createHandoff in turn, all of which are kept in `asked`. */
function requests(create: (request: CreateHandoffRequest) => Result<Handoff>, refresh: () => void = () => undefined, source = ready) {
  const asked: CreateHandoffRequest[] = [];
  const updates: Partial<LocalSession>[] = [];
  const devices = {
    listedWithin: () => true,
    replaceAll: () => undefined,
    targetBlockers: () => [],
    continuationFor: () => null,
    nameOf: () => 'desktop',
  } as unknown as DevicesPort;
  const deps: MoveRequestDeps = {
    selfId: SELF,
    state: {
      readSession: () => session,
      updateSession: (_id: string, change: (s: LocalSession) => void) => {
        const changed = { ...session };
        change(changed);
        updates.push(changed);
      },
      ensureProgress: () => undefined,
      updateProgress: () => undefined,
      transcriptBytes: () => 0,
    } as unknown as MoveRequestDeps['state'],
    backend: {
      listDevices: async () => ok([]),
      getHandoff: async () => fail('not_found', 'none'),
      blobLimit: async () => null,
      createHandoff: async (request: CreateHandoffRequest) => {
        asked.push(request);
        return create(request);
      },
    } as unknown as MoveRequestDeps['backend'],
    seal,
    git: { sourceReadiness: async () => source },
    devices,
    targetCheck: () => [],
    sessions: { publishMeta: async () => ok(undefined), markMoved: async () => undefined, provider: () => undefined },
    handoffs: { active: () => undefined, observe: () => undefined },
    keys: { refreshKeyRing: async () => refresh() },
    settings: { get: () => DEFAULT_MOVE_SETTINGS },
    clock: () => 1000,
  };
  return { moves: moveRequests(deps), asked, updates };
}

/** The record a backend makes of `request`. */
const recorded = (request: CreateHandoffRequest): Handoff =>
  ({ id: request.handoffId, sessionId: request.sessionId, sealedCommits: request.sealedCommits ?? null }) as Handoff;

describe('the Move request', () => {
  it('creates the record with the commits readiness read, sealed to that handoff', async () => {
    const { moves, asked } = requests((request) => ok(recorded(request)));
    const started = await moves.start(session.id, 'desktop-id');
    expect(started.ok).toBe(true);
    expect(asked).toHaveLength(1);
    const record = recorded(asked[0]!);
    expect(record.sealedCommits).not.toContain(HEAD);
    expect([...openMoveCommits(seal, record)]).toEqual([['.', HEAD]]);
    // Sealed to this handoff: under another one's id they do not open.
    expect(openMoveCommits(seal, { ...record, id: 'other-handoff' }).size).toBe(0);
  });

  it('asks a backend that refuses the field again without it, and the move starts', async () => {
    const { moves, asked } = requests((request) =>
      request.sealedCommits === undefined ? ok(recorded(request)) : fail('validation_failed', 'Unrecognized key: "sealedCommits"'),
    );
    const started = await moves.start(session.id, 'desktop-id');
    expect(started.ok).toBe(true);
    expect(asked.map((r) => r.sealedCommits === undefined)).toEqual([false, true]);
    expect(asked[1]!.handoffId).toBe(asked[0]!.handoffId);
  });

  it('fetches the keys when the backend says they were rotated, and asks again under the newest version', async () => {
    const { moves, asked } = requests(
      (request) =>
        request.keyVersion === 3 ? ok(recorded(request)) : fail('key_version_outdated', 'seal under version 3', { currentVersion: 3 }),
      () => held.push(3),
    );
    const started = await moves.start(session.id, 'desktop-id');
    expect(started.ok).toBe(true);
    expect(asked.map((r) => r.keyVersion)).toEqual([2, 3]);
    held.pop();
  });

  it('carries the work only with the secret-looking files confirmed, names the commit it is carried against, and records the choice', async () => {
    const { moves, asked, updates } = requests((request) => ok(recorded(request)), undefined, carryable);
    const plain = await moves.start(session.id, 'desktop-id');
    expect(plain.ok === false && 'report' in plain && plain.report.blockers.map((b) => b.code)).toEqual(['dirty_tree', 'unpushed_commits']);
    const unconfirmed = await moves.start(session.id, 'desktop-id', { carry: { confirmedFiles: [] } });
    expect(unconfirmed.ok === false && 'report' in unconfirmed && unconfirmed.report.blockers).toMatchObject([
      { code: 'carry_unconfirmed_files', details: { files: ['app/.env'] } },
    ]);
    expect(asked).toHaveLength(0);
    const started = await moves.start(session.id, 'desktop-id', { carry: { confirmedFiles: ['app/.env'] } });
    expect(started.ok).toBe(true);
    expect([...openMoveCommits(seal, recorded(asked[0]!))]).toEqual([['.', BASE]]);
    expect(updates.at(-1)?.carryOn).toEqual({ confirmedFiles: ['app/.env'], handoffId: asked[0]!.handoffId, targetName: 'desktop' });
  });
});
