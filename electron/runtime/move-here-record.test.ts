/**
 * The owner's record of the Move here requests it acted on, in its real local state with real keys
 * and sealing: a request served again to the owner after a restart within the request's lifetime
 * starts nothing; a flood of distinct valid requests from one device runs readiness (the move's
 * start) at most once every few seconds, and the record stays bounded.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Device } from '../../shared/api/devices.ts';
import type { SessionAnswer } from '../../shared/api/sessions.ts';
import { ok } from '../../shared/errors.ts';
import { waitFor } from '../../dev-env/process-harness.ts';
import { tempFolders } from '../../dev-env/temp-folders.ts';
import { identityFromKeys, type DeviceIdentity } from '../crypto/device-identity.ts';
import { KeyRing } from '../crypto/key-ring.ts';
import { LocalState } from '../local-state/local-state.ts';
import { noPermissions } from '../local-state/session-permissions.ts';
import { ringSeal } from './adapters/seal-port.ts';
import { MOVE_HERE_IDS_KEPT, MOVE_HERE_RECHECK_MS } from './move-here-record.ts';
import { MoveHere } from './move-here.ts';

const profile = tempFolders('baton-move-here-record-');
const seal = ringSeal('account-1', new KeyRing([[1, randomBytes(32)]]));
const identity = () => identityFromKeys(generateKeyPairSync('ed25519').privateKey, generateKeyPairSync('x25519').privateKey);
const owner = identity();
const desktop = identity();

function device(id: DeviceIdentity, name: string): Device {
  const { signingPublicKey, agreementPublicKey } = id.keys;
  const times = { enrolledAt: 1, revokedAt: null, lastSeenAt: 1 };
  return {
    id: id.deviceId,
    accountId: 'account-1',
    name,
    status: 'enrolled',
    signingPublicKey,
    agreementPublicKey,
    ...times,
    sealedCapabilities: null,
    keyVersions: [1],
  };
}

const devices = new Map([
  [owner.deviceId, device(owner, 'laptop')],
  [desktop.deviceId, device(desktop, 'desktop')],
]);

/** A MoveHere part of `self` over `state`, whose posts go to `posted` and whose starts to `started`. */
function part(self: DeviceIdentity, state: LocalState, clock: () => number, posted: SessionAnswer[], started: string[]) {
  return new MoveHere({
    selfId: self.deviceId,
    state,
    backend: {
      postAnswer: async (sessionId, generation, sealedBody) => {
        const entry = { sessionId, seq: posted.length + 1, generation, deviceId: self.deviceId, sealedBody, createdAt: clock() };
        posted.push(entry);
        return ok(entry);
      },
    },
    seal,
    signer: self,
    devices: { get: (id) => devices.get(id), isOnline: () => true, nameOf: (id) => devices.get(id)?.name ?? id },
    handoffs: { active: () => undefined },
    start: async (sessionId, target) => {
      started.push(`${sessionId}→${target}`);
      return ok({ handoffId: `h${started.length}` });
    },
    clock,
    log: () => undefined,
  });
}

/** Local state in `dir` knowing session s1, owned by the laptop at generation 1. */
function stateIn(dir: string): LocalState {
  const state = new LocalState(dir);
  if (!state.readSession('s1')) {
    state.saveSession({
      id: 's1',
      title: 'Fix the parser',
      workspace: '/w/repo',
      repoPaths: ['/w/repo'],
      provider: 'demo',
      permission: 'workspace',
      repos: [],
      ownerDeviceId: owner.deviceId,
      generation: 1,
      inputBlock: null,
      providerResume: null,
      needsAttention: null,
      freshCloneOn: null,
      moveBlock: null,
      agents: [],
      eventCursor: 0,
      permissions: noPermissions(),
      providerChanges: [],
      createdAt: 1,
      updatedAt: 1,
    });
  }
  return state;
}

describe("the owner's record of Move here requests", () => {
  it('refuses a request served again to the owner restarted within its lifetime', async () => {
    const dir = profile();
    const now = () => 1_800_000_000_000;
    const posted: SessionAnswer[] = [];
    const started: string[] = [];
    const asker = part(desktop, stateIn(profile()), now, posted, started);
    const first = stateIn(dir);
    expect((await asker.ask('s1')).ok).toBe(true);
    await part(owner, first, now, posted, started).take('s1', posted[0]!, opened(posted[0]!));
    expect(started).toEqual([`s1→${desktop.deviceId}`]);
    await first.close();

    // The owner restarts; the same signed request reaches it again (the backend served it again, as a new post).
    const restarted = part(owner, stateIn(dir), () => now() + MOVE_HERE_RECHECK_MS, posted, started);
    await restarted.take('s1', { ...posted[0]!, seq: 2 }, opened(posted[0]!));
    expect(started).toHaveLength(1);
  });

  it('runs readiness at most once every few seconds for a flood of distinct valid requests, and keeps a bounded record', async () => {
    const state = stateIn(profile());
    const posted: SessionAnswer[] = [];
    const started: string[] = [];
    const asker = part(desktop, stateIn(profile()), Date.now, posted, started);
    const ownerPart = part(owner, state, Date.now, posted, started);
    const begun = Date.now();
    for (let i = 0; i < 5_000; i += 1) {
      await asker.ask('s1');
      await ownerPart.take('s1', posted.at(-1)!, opened(posted.at(-1)!));
    }
    // One check at once, then at most one per interval of the time the flood took, and the one still waiting.
    const intervals = Math.floor((Date.now() - begun) / MOVE_HERE_RECHECK_MS);
    await waitFor('the waiting check', async () => (started.length >= 2 ? true : undefined), MOVE_HERE_RECHECK_MS * 3);
    expect(started.length).toBeLessThanOrEqual(intervals + 2);
    expect(state.readSession('s1')!.permissions.seenMoveHere.length).toBeLessThanOrEqual(MOVE_HERE_IDS_KEPT);
  }, 120_000);

  it('answers a request made just after a check a few seconds later, once', async () => {
    const posted: SessionAnswer[] = [];
    const started: string[] = [];
    const asker = part(desktop, stateIn(profile()), Date.now, posted, started);
    const ownerPart = part(owner, stateIn(profile()), Date.now, posted, started);
    for (let i = 0; i < 3; i += 1) {
      await asker.ask('s1');
      await ownerPart.take('s1', posted.at(-1)!, opened(posted.at(-1)!));
    }
    expect(started).toHaveLength(1);
    await waitFor('the check again', async () => (started.length === 2 ? true : undefined), MOVE_HERE_RECHECK_MS * 3);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(started).toHaveLength(2);
  }, 60_000);
});

/** A posted request as the owner's log reader opens it. */
function opened(entry: SessionAnswer): unknown {
  const result = seal.openJson(entry.sealedBody, { kind: 'move-here-request', sessionId: entry.sessionId });
  if (!result.ok) throw new Error(result.message);
  return result.value;
}
