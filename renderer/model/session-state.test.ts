import { describe, expect, it } from 'vitest';
import type { HandoffView, SessionDetail } from '../../shared/device-api.ts';
import type { Blocker } from '../../shared/readiness.ts';
import {
  handoffCodes,
  handoffOutcome,
  moveBlockReason,
  remediationOf,
  sendBlockReason,
  sessionTone,
  withActivity,
  withEarlier,
  withHandoff,
  withViews,
} from './session-state.ts';
import { handoffView as handoff, sessionView as session } from '../test-support/views.ts';

/** A detail's permission fields when nothing is asked. */
const noRequests = { permissionRequests: [], permissionOutcomes: [], providerChanges: [] };

describe('session state in the run view', () => {
  it('colours a session by what matters most: needs attention, then moving, then blocked, then owner or elsewhere', () => {
    expect(sessionTone(session({ condition: 'needs-attention', activeHandoff: handoff() }), true)).toBe('attention');
    expect(sessionTone(session({ activeHandoff: handoff() }), true)).toBe('moving');
    expect(sessionTone(session(), true)).toBe('blocked');
    expect(sessionTone(session(), false)).toBe('owner');
    expect(sessionTone(session({ isOwner: false, condition: 'remote' }), false)).toBe('remote');
  });

  it('disables Move off the owner and during a move, saying why', () => {
    expect(moveBlockReason(session())).toBeNull();
    expect(moveBlockReason(session({ isOwner: false, ownerName: 'desktop' }))).toContain('desktop');
    const attention = { code: 'workspace_missing', message: 'Its workspace is gone.', fix: 'Put it back.', retryActivation: false };
    expect(moveBlockReason(session({ condition: 'needs-attention', attention }))).toBe('This session needs attention before it can move.');
    expect(moveBlockReason(session({ condition: 'needs-attention', attention: { ...attention, retryActivation: true } }))).toMatch(
      /^Activation needs attention/,
    );
  });

  it("disables the message box with the runtime's reason, or with the owner's name off the owner", () => {
    expect(sendBlockReason(session())).toBeNull();
    expect(sendBlockReason(session({ inputBlock: { code: 'quiescing', message: 'Moving: input is paused.' } }))).toBe(
      'Moving: input is paused.',
    );
    // Off the owner, where to type instead, not the runtime's "input goes there" for a box that takes none.
    const elsewhere = { code: 'not_owner' as const, message: 'Another device owns this session.' };
    for (const offOwner of [
      session({ isOwner: false, ownerName: 'desktop' }),
      session({ isOwner: false, ownerName: 'desktop', inputBlock: elsewhere }),
    ])
      expect(sendBlockReason(offOwner)).toBe(
        'Messages are sent from desktop, which owns this session; move it here to send them from this device.',
      );
    const failed = { code: 'needs_attention' as const, message: 'Activation failed (digest_mismatch): the body does not match.' };
    expect(sendBlockReason(session({ inputBlock: failed }))).toBe('Activation failed: the body does not match.');
  });

  it('offers the remediation the device found, and none it did not (no remote to push to, a merge to finish)', () => {
    const blocker = (code: Blocker['code'], over: Partial<Blocker> = {}): Blocker => ({
      code,
      message: 'm',
      fix: 'f',
      repo: '/r',
      ...over,
    });
    expect(remediationOf(blocker('dirty_tree', { action: { kind: 'commit', repo: '/r' } }))).toEqual({ kind: 'commit', repo: '/r' });
    expect(remediationOf(blocker('unpushed_commits', { action: { kind: 'push', repo: '/r' } }))).toEqual({ kind: 'push', repo: '/r' });
    expect(remediationOf(blocker('no_upstream', { details: { branch: 'main', remote: null } }))).toBeNull();
    expect(remediationOf(blocker('dirty_tree', { details: { conflicted: 1 } }))).toBeNull();
    expect(remediationOf(blocker('target_offline'))).toBeNull();
  });

  it('folds a running handoff in as active, and a finished one as the last move', () => {
    const running = withHandoff(session(), handoff({ state: 'target-prepared' }));
    expect(running.activeHandoff?.state).toBe('target-prepared');
    const done = withHandoff(running, handoff({ state: 'completed', resumePath: 'checkpoint-import' }));
    expect(done.activeHandoff).toBeNull();
    expect(done.lastHandoff?.resumePath).toBe('checkpoint-import');
    expect(withHandoff(session({ id: 'other' }), handoff())).toEqual(session({ id: 'other' }));
  });

  it('words how a move ended — completed, moved with a failed activation, or cancelled — and keeps its codes for Details', () => {
    const at = (...states: HandoffView['state'][]) => states.map((state, i) => ({ state, at: i, deviceId: null }));
    expect(handoffOutcome(handoff({ state: 'completed', resumePath: 'checkpoint-import' }))).toBe('completed');
    expect(handoffCodes(handoff({ state: 'completed', resumePath: 'checkpoint-import' }))).toEqual(['completed', 'checkpoint-import']);
    const reason = { code: 'digest_mismatch', message: 'The body does not match.' };
    expect(
      handoffOutcome(
        handoff({
          state: 'cancelled',
          cancelReason: reason,
          history: at(
            'requested',
            'target-prepared',
            'source-quiescing',
            'source-relinquished-and-checkpointed',
            'ownership-transferred',
            'target-activating',
            'cancelled',
          ),
        }),
      ),
    ).toBe('moved · activation failed');
    expect(
      handoffOutcome(
        handoff({ state: 'cancelled', cancelReason: { code: 'target_timeout', message: '' }, history: at('requested', 'cancelled') }),
      ),
    ).toBe('cancelled');
    const timedOut = handoff({
      state: 'cancelled',
      cancelReason: { code: 'target_timeout', message: '' },
      history: at('requested', 'cancelled'),
    });
    expect(handoffCodes(timedOut)).toEqual(['cancelled', 'target_timeout']);
    expect(handoffOutcome(handoff({ state: 'source-quiescing' }))).toBe('in progress');
  });

  it('folds newer session views into loaded details, keeping their transcript and agents', () => {
    const transcript: SessionDetail['transcript'] = [{ id: 'e1', role: 'user', text: 'hi', at: 1 } as SessionDetail['transcript'][number]];
    const details: Record<string, SessionDetail | null> = {
      s1: { ...session(), agents: [], transcript, transcriptFrom: 0, transcriptTotal: 1, ...noRequests },
      s2: null,
    };
    const moved = session({ ownerDeviceId: 'd2', ownerName: 'desktop', generation: 2, isOwner: false, condition: 'remote' });
    const next = withViews(details, [moved, session({ id: 's2' }), session({ id: 's3' })]);
    expect(next.s1).toMatchObject({ ownerName: 'desktop', generation: 2, isOwner: false, transcript });
    expect(next.s2).toBeNull();
    expect(next.s3).toBeUndefined();
    expect(details.s1?.generation).toBe(1);
    expect(withViews(details, [session({ id: 's9' })])).toBe(details);
  });

  it("folds an agent's activity into a loaded session: the new tail and the agent map, or a reload when entries were missed", () => {
    const entry = (id: string) => ({ id, at: 1, role: 'assistant', agentId: 'main', text: id }) as SessionDetail['transcript'][number];
    const agents = [
      { id: 'main', name: 'Demo agent', role: 'main', status: 'running', parentId: null },
    ] as unknown as SessionDetail['agents'];
    const detail: SessionDetail = {
      ...session(),
      agents: [],
      transcript: [entry('a'), entry('b')],
      transcriptFrom: 0,
      transcriptTotal: 2,
      ...noRequests,
    };
    const appended = withActivity(detail, { sessionId: 's1', transcriptFrom: 2, transcript: [entry('c')], agents });
    expect(appended !== 'reload' && appended.transcript.map((e) => e.id)).toEqual(['a', 'b', 'c']);
    expect(appended !== 'reload' && appended.transcript[0]).toBe(detail.transcript[0]);
    expect(appended !== 'reload' && appended.agents).toBe(agents);
    const agentsOnly = withActivity(detail, { sessionId: 's1', transcriptFrom: 2, transcript: [], agents });
    expect(agentsOnly !== 'reload' && agentsOnly.transcript).toBe(detail.transcript);
    const overlapping = withActivity(detail, { sessionId: 's1', transcriptFrom: 1, transcript: [entry('b'), entry('c')], agents });
    expect(overlapping !== 'reload' && overlapping.transcript.map((e) => e.id)).toEqual(['a', 'b', 'c']);
    expect(withActivity(detail, { sessionId: 's1', transcriptFrom: 5, transcript: [entry('f')], agents })).toBe('reload');
    expect(appended !== 'reload' && appended.transcriptTotal).toBe(3);
  });

  it('folds activity into a window of a long transcript by absolute index, and prepends an earlier page', () => {
    const entry = (n: number) =>
      ({ id: `e${n}`, at: n, role: 'assistant', agentId: 'main', text: `${n}` }) as SessionDetail['transcript'][number];
    const agents = [] as SessionDetail['agents'];
    // Entries 1000…1199 of 1200 are loaded.
    const window: SessionDetail = {
      ...session(),
      agents,
      transcript: Array.from({ length: 200 }, (_, i) => entry(1000 + i)),
      transcriptFrom: 1000,
      transcriptTotal: 1200,
      ...noRequests,
    };
    const next = withActivity(window, { sessionId: 's1', transcriptFrom: 1200, transcript: [entry(1200)], agents });
    expect(next !== 'reload' && [next.transcriptFrom, next.transcriptTotal, next.transcript.length, next.transcript.at(-1)?.id]).toEqual([
      1000,
      1201,
      201,
      'e1200',
    ]);
    // A rewrite that starts before the window (a merge) replaces what the window shows from there.
    const rewritten = withActivity(window, {
      sessionId: 's1',
      transcriptFrom: 900,
      transcript: Array.from({ length: 301 }, (_, i) => entry(900 + i)),
      agents,
    });
    expect(rewritten !== 'reload' && [rewritten.transcriptFrom, rewritten.transcript[0]?.id, rewritten.transcriptTotal]).toEqual([
      1000,
      'e1000',
      1201,
    ]);
    expect(withActivity(window, { sessionId: 's1', transcriptFrom: 1300, transcript: [entry(1300)], agents })).toBe('reload');

    const earlier = withEarlier(window, {
      sessionId: 's1',
      from: 800,
      total: 1200,
      entries: Array.from({ length: 200 }, (_, i) => entry(800 + i)),
    });
    expect(earlier !== 'reload' && [earlier.transcriptFrom, earlier.transcript.length, earlier.transcript[0]?.id]).toEqual([
      800,
      400,
      'e800',
    ]);
    // The transcript changed underneath (its length is not the one the window knew): reload instead.
    expect(withEarlier(window, { sessionId: 's1', from: 800, total: 1250, entries: [] })).toBe('reload');
  });
});
