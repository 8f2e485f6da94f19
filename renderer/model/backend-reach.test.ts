/** What the UI says while the backend is unreachable, and only then. */
import { describe, expect, it } from 'vitest';
import type { BackendReachabilityView, DeviceStatusView } from '../../shared/device-api.ts';
import { needsBackendReason, unreachableDetail, unreachableNotice } from './backend-reach.ts';

const status = (reachability: BackendReachabilityView | null): DeviceStatusView => ({
  enrolled: true,
  deviceId: 'd1',
  deviceName: 'laptop',
  accountId: 'a1',
  backendUrls: ['http://a:1', 'http://b:2'],
  reachability,
  backendKey: null,
  backendHome: { where: 'elsewhere' },
  joining: false,
  revokedAt: null,
  moveSettings: null,
});
const view = (state: BackendReachabilityView['state'], tried: string[] = []): BackendReachabilityView => ({
  state,
  current: null,
  tried,
  since: 1,
  lastError: state === 'unreachable' ? 'connect ECONNREFUSED' : null,
});

describe('the unreachable backend in the UI', () => {
  it('names the addresses tried and says the view is what the device last knew', () => {
    expect(unreachableNotice(status(view('unreachable', ['http://b:2', 'http://a:1'])))).toBe(
      "Can't reach the sync backend (tried http://b:2, http://a:1) — showing what this device last knew.",
    );
    expect(needsBackendReason(status(view('unreachable', ['http://a:1'])))).toMatch(/^Can't reach the sync backend, which this needs/);
  });

  it('names the device the backend runs on, and says what still works here and what waits for it', () => {
    const onDesk: DeviceStatusView = {
      ...status(view('unreachable', ['https://192.168.1.23:8787'])),
      backendHome: { where: 'device', deviceId: 'd0', deviceName: 'desk' },
    };
    expect(unreachableNotice(onDesk)).toBe(
      "Can't reach the sync backend on desk (tried https://192.168.1.23:8787) — showing what this device last knew.",
    );
    expect(unreachableDetail(onDesk)).toBe(
      'desk may be off, asleep or on another network. Sessions running on this device keep running and take your messages; ' +
        'moves, new sessions and invites wait until desk answers. This device keeps retrying.',
    );
    expect(needsBackendReason(onDesk)).toBe(
      "Can't reach the sync backend on desk, which this needs; it is enabled again as soon as desk answers.",
    );
  });

  it('says nothing while the backend answers, before the first call, or before enrollment', () => {
    for (const s of [status(view('reachable')), status(view('unknown')), status(null), null]) {
      expect([unreachableNotice(s), needsBackendReason(s)]).toEqual([null, null]);
    }
  });
});
