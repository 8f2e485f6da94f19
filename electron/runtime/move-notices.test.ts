import { describe, expect, it } from 'vitest';
import type { HandoffView } from '../../shared/device-api.ts';
import { FORWARD_STATES, type HandoffState } from '../../shared/handoff-states.ts';
import { blockedNotice, endedNotice } from './move-notices.ts';

const AT = 1_800_000_000_000;

function handoff(states: HandoffState[], extra: Partial<HandoffView> = {}): HandoffView {
  return {
    id: 'handoff-1',
    sessionId: 'session-1',
    sourceDeviceId: 'laptop-id',
    sourceName: 'laptop',
    targetDeviceId: 'desktop-id',
    targetName: 'desktop',
    initiatorDeviceId: 'laptop-id',
    state: states.at(-1)!,
    generation: 1,
    history: states.map((state, i) => ({ state, at: AT + i, deviceId: null })),
    cancelReason: null,
    resumePath: null,
    resumeNote: null,
    driftWarnings: [],
    blockers: [],
    targetFolder: null,
    providerChange: null,
    checkpointKept: false,
    carried: null,
    ...extra,
  };
}

/** Every forward state up to (not including) completed. */
const FORWARD: HandoffState[] = FORWARD_STATES.slice(0, -1);
const DIRTY = { code: 'dirty_tree', message: 'app has 1 uncommitted file; commit it.', fix: 'git commit' } as const;

describe('the desktop notifications of a move', () => {
  it('tells both devices a move completed, naming the session and where it is now', () => {
    for (const role of ['source', 'target'] as const) {
      expect(endedNotice(handoff([...FORWARD, 'completed']), role, 'Fix the parser', AT)).toEqual({
        kind: 'completed',
        sessionId: 'session-1',
        handoffId: 'handoff-1',
        title: 'Move completed',
        body: '“Fix the parser” is now on desktop (moved from laptop).',
        at: AT,
      });
    }
  });

  it('tells the source a move was blocked, with the first blocker (re-check at the checkpoint) or the target’s reason', () => {
    const rechecked = handoff(['requested', 'target-prepared', 'source-quiescing', 'cancelled'], {
      cancelReason: { code: 'dirty_tree', message: 'app has 1 uncommitted file.' },
      blockers: [DIRTY, { ...DIRTY, code: 'unpushed_commits', message: 'Push it.' }],
    });
    expect(endedNotice(rechecked, 'source', 'Fix the parser', AT)).toMatchObject({
      kind: 'blocked',
      title: 'Move blocked',
      body: '“Fix the parser” stays on laptop; moving it to desktop is blocked: app has 1 uncommitted file; commit it (and 1 more).',
    });
    const refused = handoff(['requested', 'cancelled'], {
      cancelReason: { code: 'target_missing_provider', message: 'The target does not have the codex provider.' },
    });
    expect(endedNotice(refused, 'source', 'T', AT)?.body).toBe(
      '“T” stays on laptop; moving it to desktop is blocked: The target does not have the codex provider.',
    );
    expect(endedNotice(refused, 'target', 'T', AT)).toBeNull();
  });

  it('says nothing of a move the user cancelled', () => {
    const cancelled = handoff(['requested', 'cancelled'], { cancelReason: { code: 'user_cancelled', message: 'The move was cancelled.' } });
    expect(endedNotice(cancelled, 'source', 'T', AT)).toBeNull();
    expect(endedNotice(cancelled, 'target', 'T', AT)).toBeNull();
  });

  it('tells the target a failed activation left the session needing attention there', () => {
    const failed = handoff([...FORWARD, 'cancelled'], { cancelReason: { code: 'digest_mismatch', message: 'The body does not match.' } });
    expect(endedNotice(failed, 'target', 'Fix the parser', AT)).toMatchObject({
      kind: 'attention',
      title: 'Needs attention',
      body: '“Fix the parser” needs attention on desktop: The body does not match (digest_mismatch).',
    });
    expect(endedNotice(failed, 'source', 'Fix the parser', AT)).toBeNull();
  });

  it('tells the device asked to move a session that readiness refused it, naming both devices', () => {
    const move = { sessionId: 's', title: 'Fix the parser', sourceName: 'laptop', targetName: 'desktop', blockers: [DIRTY] };
    expect(blockedNotice(move, AT)).toEqual({
      kind: 'blocked',
      sessionId: 's',
      handoffId: null,
      title: 'Move blocked',
      body: '“Fix the parser” stays on laptop; moving it to desktop is blocked: app has 1 uncommitted file; commit it.',
      at: AT,
    });
  });
});
