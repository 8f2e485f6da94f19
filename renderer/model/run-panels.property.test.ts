/**
 * A property of the run view's panels over random sequences of what happens to a session — moves
 * (completed, cancelled with blockers), blocks and their fixes, Move here asked, takeovers, a page
 * that reloads, views that lag behind a move — seen from each device: no panel names a direction, an
 * owner or a generation the session does not have, and a button drawn from a panel acts (movedOnSince
 * is null). Sequences come from a seeded generator; a failure names its seed and its steps.
 */
import { describe, expect, it } from 'vitest';
import type { HandoffView, MoveBlockView, SessionView } from '../../shared/device-api.ts';
import type { Blocker, ReadinessReport } from '../../shared/readiness.ts';
import { checkoutBlocker, DIRTY_TREE, handoffIn, handoffView, sessionView } from '../test-support/views.ts';
import { movedOnSince, runPanels, stampOf, type PageMemory, type RunPanels } from './run-panels.ts';

const DEVICES = ['d1', 'd2', 'd3'] as const;
const NAMES: Record<string, string> = { d1: 'laptop', d2: 'desktop', d3: 'studio' };
const DIRTY = DIRTY_TREE;
const CHECKOUT = checkoutBlocker('the target', 'd2');

/** A small seeded generator (mulberry32): the same seed, the same sequence. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!, chance: (p: number) => next() < p };
}

interface World {
  self: string;
  session: SessionView;
  memory: PageMemory;
  now: number;
  /** Blocks the session had at earlier generations: a view that lags may still carry one. */
  oldBlocks: MoveBlockView[];
}

const report = (blockers: Blocker[], at: number): ReadinessReport => ({
  ready: blockers.length === 0,
  blockers,
  repos: [],
  evaluatedAt: at,
});

function block(session: SessionView, target: string, at: number, askedBy: string | null, blockers: Blocker[]): MoveBlockView {
  const { ownerDeviceId: source, ownerName: sourceName, generation } = session;
  return {
    sourceDeviceId: source,
    sourceName,
    generation,
    targetDeviceId: target,
    targetName: NAMES[target]!,
    askedBy,
    blockers,
    foundBy: 'readiness',
    handoffId: null,
    at,
  };
}

/** The session's view on `self` with `change` folded in (owner-derived fields kept in step). */
function viewOf(self: string, session: SessionView, change: Partial<SessionView>): SessionView {
  const next = { ...session, ...change };
  const isOwner = next.ownerDeviceId === self;
  return {
    ...next,
    ownerName: NAMES[next.ownerDeviceId]!,
    isOwner,
    condition: next.activeHandoff ? 'moving' : isOwner ? 'owned' : 'remote',
  };
}

type Step = { name: string; apply(w: World, r: ReturnType<typeof random>): void };

const others = (w: World) => DEVICES.filter((d) => d !== w.session.ownerDeviceId);

const STEPS: Step[] = [
  {
    name: 'a move starts',
    apply(w, r) {
      if (w.session.activeHandoff) return;
      const target = r.pick(others(w));
      const handoff = handoffView({
        id: `h${w.now}`,
        sourceDeviceId: w.session.ownerDeviceId,
        sourceName: w.session.ownerName,
        targetDeviceId: target,
        targetName: NAMES[target]!,
        initiatorDeviceId: r.chance(0.5) ? target : w.session.ownerDeviceId,
        generation: w.session.generation,
      });
      w.session = viewOf(w.self, w.session, { activeHandoff: handoff, blocked: null });
    },
  },
  {
    name: 'the move completes',
    apply(w, r) {
      const active = w.session.activeHandoff;
      if (!active) return;
      if (w.session.blocked) w.oldBlocks.push(w.session.blocked);
      const done: HandoffView = { ...handoffIn('completed'), ...active, state: 'completed', history: handoffIn('completed').history };
      // A view that lags may still carry the block of the generation before.
      const lagging = r.chance(0.4) ? (w.oldBlocks.at(-1) ?? null) : null;
      const driftWarnings = r.chance(0.3) ? [{ code: 'head_moved', detail: 'HEAD moved.' }] : [];
      w.session = viewOf(w.self, w.session, {
        ownerDeviceId: active.targetDeviceId,
        generation: active.generation + 1,
        activeHandoff: null,
        lastHandoff: { ...done, driftWarnings } as HandoffView,
        blocked: lagging,
      });
    },
  },
  {
    name: 'the move is cancelled by what blocks it',
    apply(w, r) {
      const active = w.session.activeHandoff;
      if (!active) return;
      const blockers = [r.pick([DIRTY, CHECKOUT])];
      const cancelled: HandoffView = { ...active, state: 'cancelled', blockers };
      const kept = {
        ...block(
          w.session,
          active.targetDeviceId,
          w.now,
          active.initiatorDeviceId === active.targetDeviceId ? active.targetDeviceId : null,
          blockers,
        ),
        handoffId: active.id,
        foundBy: 'target' as const,
      };
      w.session = viewOf(w.self, w.session, { activeHandoff: null, lastHandoff: cancelled, blocked: kept });
    },
  },
  {
    name: 'readiness blocks a move (the owner’s own, or a Move here)',
    apply(w, r) {
      if (w.session.activeHandoff) return;
      const target = r.pick(others(w));
      const askedBy = r.chance(0.5) ? target : null;
      w.session = viewOf(w.self, w.session, { blocked: block(w.session, target, w.now, askedBy, [DIRTY]) });
      if (w.session.isOwner && askedBy === null && r.chance(0.5))
        w.memory = {
          ...w.memory,
          blocked: {
            stamp: stampOf(w.session),
            targetDeviceId: target,
            targetName: NAMES[target]!,
            report: report([DIRTY], w.now),
            actionError: null,
            askedBy: null,
            handoffId: null,
          },
        };
    },
  },
  {
    name: 'the owner fixes what blocked it',
    apply(w) {
      const kept = w.session.blocked;
      if (w.memory.blocked) w.memory = { ...w.memory, blocked: { ...w.memory.blocked, report: report([], w.now) } };
      if (kept && kept.generation === w.session.generation) w.session = viewOf(w.self, w.session, { blocked: null });
    },
  },
  {
    name: 'this device asks for Move here',
    apply(w) {
      if (w.session.isOwner || w.session.activeHandoff) return;
      w.memory = { ...w.memory, asked: { stamp: stampOf(w.session), at: w.now } };
    },
  },
  {
    name: 'this page says a refusal',
    apply(w, r) {
      w.memory = { ...w.memory, said: { stamp: stampOf(w.session), text: 'Refused.', ownerOffline: r.chance(0.5) } };
    },
  },
  {
    name: 'another device takes the session over',
    apply(w, r) {
      if (w.session.activeHandoff) return;
      if (w.session.blocked) w.oldBlocks.push(w.session.blocked);
      w.session = viewOf(w.self, w.session, { ownerDeviceId: r.pick(others(w)), generation: w.session.generation + 1, blocked: null });
    },
  },
  {
    name: 'the page reloads',
    apply(w) {
      w.memory = {};
    },
  },
  {
    name: 'the user dismisses the alert',
    apply(w) {
      const panels = runPanels(w.session, w.memory, known(w), w.now);
      if (panels.blocked) w.memory = { ...w.memory, dismissed: panels.blocked.report.evaluatedAt };
    },
  },
];

const known = (w: World) => ({ selfId: w.self, offline: (id: string) => id === 'd3', askAnsweredWithinMs: 120_000 });

/** Why `panels` do not fit `session` as it is (empty: they fit). */
function misfits(panels: RunPanels, session: SessionView, w: World): string[] {
  const wrong: string[] = [];
  const { blocked, asked, lastMove, said } = panels;
  if (blocked) {
    if (blocked.stamp.ownerDeviceId !== session.ownerDeviceId || blocked.stamp.generation !== session.generation)
      wrong.push(`the blocked alert is of ${blocked.stamp.ownerDeviceId}@${blocked.stamp.generation}`);
    if (blocked.targetDeviceId === session.ownerDeviceId) wrong.push('the blocked alert moves it to where it runs');
    if (blocked.sourceName !== session.ownerName) wrong.push(`the blocked alert moves it from ${blocked.sourceName}`);
    if (session.activeHandoff) wrong.push('the blocked alert shows during a move');
    if (blocked.ownedHere !== session.isOwner) wrong.push('the blocked alert acts as the owner off it, or the other way');
    if (movedOnSince(blocked.stamp, session, w.self) !== null) wrong.push('the blocked alert’s buttons would not act');
  }
  if (asked) {
    if (asked.ownerName !== session.ownerName) wrong.push(`the Move here note names ${asked.ownerName}`);
    if (session.isOwner) wrong.push('the Move here note shows on the owner');
    if (!w.memory.asked || movedOnSince(w.memory.asked.stamp, session, w.self) !== null) wrong.push('the Move here note outlived its ask');
  }
  if (lastMove) {
    const h = lastMove.handoff;
    const landed = lastMove.kind !== 'cancelled';
    if (landed && (h.targetDeviceId !== session.ownerDeviceId || h.generation + 1 !== session.generation))
      wrong.push(`"moved to ${h.targetName}" while it runs on ${session.ownerName}@${session.generation}`);
    if (!landed && (h.sourceDeviceId !== session.ownerDeviceId || h.generation !== session.generation))
      wrong.push(`"stays on ${h.sourceName}" while it runs on ${session.ownerName}@${session.generation}`);
    if (lastMove.arrivedHere !== (h.targetDeviceId === w.self)) wrong.push('"moved here" on a device it did not move to');
    if (lastMove.drift === 'matched' && blocked) wrong.push('"matched the checkpoint" beside a blocked move');
    if (lastMove.canRetry && !session.isOwner) wrong.push('Try again off the owner');
  }
  if (said && (!w.memory.said || movedOnSince(w.memory.said.stamp, session, w.self) !== null)) wrong.push('a refusal outlived its state');
  return wrong;
}

describe('the run view’s panels over random sequences of events', () => {
  it('never name a direction, owner or generation the session does not have, on any device', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const r = random(seed);
      for (const self of ['d1', 'd2']) {
        const w: World = { self, session: viewOf(self, sessionView(), {}), memory: {}, now: 1_000, oldBlocks: [] };
        const done: string[] = [];
        for (let i = 0; i < 40; i++) {
          const step = r.pick(STEPS);
          w.now += 1_000;
          step.apply(w, r);
          done.push(step.name);
          const wrong = misfits(runPanels(w.session, w.memory, known(w), w.now), w.session, w);
          expect(wrong, `seed ${seed} on ${self}, after: ${done.join(' → ')}`).toEqual([]);
        }
      }
    }
  });
});
