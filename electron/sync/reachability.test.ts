/** Reachability from what calls see: changes only, the addresses tried, and since when. */
import { describe, expect, it } from 'vitest';
import type { BackendReachabilityView } from '../../shared/device-api.ts';
import { ReachabilityTracker } from './reachability.ts';

describe('the reachability tracker', () => {
  it('is unknown until a call ends, then follows answers and failed rounds, telling listeners only of changes', () => {
    let now = 1_000;
    const tracker = new ReachabilityTracker(() => now);
    const heard: BackendReachabilityView['state'][] = [];
    tracker.subscribe((view) => heard.push(view.state));
    expect(tracker.view()).toEqual({ state: 'unknown', current: null, tried: [], since: null, lastError: null });

    tracker.reached('http://a:1');
    tracker.reached('http://a:1');
    now = 2_000;
    tracker.unreachable(['http://a:1', 'http://b:2'], 'connect ECONNREFUSED 127.0.0.1:1');
    now = 3_000;
    tracker.unreachable(['http://a:1', 'http://b:2'], 'connect ECONNREFUSED 127.0.0.1:2');
    expect(tracker.view()).toEqual({
      state: 'unreachable',
      current: 'http://a:1',
      tried: ['http://a:1', 'http://b:2'],
      since: 2_000,
      lastError: 'connect ECONNREFUSED 127.0.0.1:2',
    });
    now = 4_000;
    tracker.reached('http://b:2');
    expect(tracker.view()).toMatchObject({ state: 'reachable', current: 'http://b:2', tried: [], since: 4_000, lastError: null });
    expect(heard).toEqual(['reachable', 'unreachable', 'reachable']);
  });

  it('says how long the call waiting longest has waited, and 0 once every call has ended', () => {
    let now = 1_000;
    const tracker = new ReachabilityTracker(() => now);
    expect(tracker.longestWait()).toBe(0);
    const first = tracker.sent();
    now = 1_500;
    const second = tracker.sent();
    now = 7_000;
    expect(tracker.longestWait()).toBe(6_000);
    first();
    expect(tracker.longestWait()).toBe(5_500);
    second();
    expect(tracker.longestWait()).toBe(0);
  });

  it('keeps a refusal as revoked, from its first, and tells listeners once', () => {
    let now = 5_000;
    const tracker = new ReachabilityTracker(() => now);
    let heard = 0;
    tracker.subscribe(() => (heard += 1));
    expect(tracker.revokedAt()).toBeNull();
    tracker.refusedAsRevoked();
    now = 6_000;
    tracker.refusedAsRevoked();
    expect([tracker.revokedAt(), heard]).toEqual([5_000, 1]);
  });
});
