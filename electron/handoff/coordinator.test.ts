/**
 * The coordinator's compare-and-set when the push of its record comes before the answer (or instead
 * of it): the step goes on as soon as a record shows this device's transition committed, and only then.
 * And its gate (test-seam.ts): asked before each step, before a transition is sent and once its
 * commit is known; a gate that waits delays the device there and changes nothing else.
 */
import { describe, expect, it } from 'vitest';
import type { Handoff, TransitionRequest } from '../../shared/api/handoffs.ts';
import type { HandoffState } from '../../shared/handoff-states.ts';
import type { Result } from '../../shared/errors.ts';
import { handoffRecord } from '../../dev-env/handoff-record.ts';
import { Coordinator, type CoordinatorDeps, type Step } from './coordinator.ts';
import { gateName } from '../../dev-env/step-holds.ts';
import type { GatePoint, StepGate } from './test-seam.ts';

const SELF = 'device-target-0000000001';
const OTHER = 'device-source-0000000001';

function record(states: [HandoffState, string | null][]): Handoff {
  return handoffRecord(
    { source: OTHER, target: SELF },
    states.map(([state, deviceId], i) => ({ state, at: 1000 + i, deviceId })),
  );
}

/** A coordinator whose backend holds every transition's answer until `answer` is called; `gate` and `steps` as given. */
function coordinatorWithHeldAnswers(
  gate?: StepGate,
  steps: { source: Step; target: Step } = { source: async () => undefined, target: async () => undefined },
) {
  const asked: TransitionRequest[] = [];
  let answer: (result: Result<Handoff>) => void = () => undefined;
  const logged: string[] = [];
  const deps: CoordinatorDeps = {
    selfId: SELF,
    progress: {
      ensureProgress: () => ({ finished: false }) as never,
      updateProgress: () => true,
      listProgress: () => [],
    },
    backend: {
      transition: (_id, request) => {
        asked.push(request);
        return new Promise((resolve) => (answer = resolve));
      },
      getHandoff: async () => ({ ok: false, code: 'not_found', message: 'none' }),
      listHandoffs: async () => ({ ok: true, value: [] }),
    },
    seal: { sealJson: () => 'sealed' },
    lostSession: async () => undefined,
    clock: () => 2000,
    changes: { emit: () => undefined },
    log: (message) => logged.push(message),
    ...(gate ? { gate } : {}),
  };
  const coordinator = new Coordinator(deps, steps);
  return { coordinator, asked, answer: (result: Result<Handoff>) => answer(result), logged };
}

const prepared = record([
  ['requested', OTHER],
  ['target-prepared', SELF],
  ['source-quiescing', OTHER],
  ['source-relinquished-and-checkpointed', OTHER],
]);

describe('a transition whose push comes first', () => {
  it('goes on with the pushed record that shows this device’s transition, without waiting for the answer', async () => {
    const { coordinator, asked, logged } = coordinatorWithHeldAnswers();
    coordinator.observe(prepared);
    const claimed = coordinator.transition(prepared, 'ownership-transferred');
    expect(asked.map((r) => [r.from, r.to])).toEqual([['source-relinquished-and-checkpointed', 'ownership-transferred']]);

    const pushed = record([
      ...prepared.history.map((h) => [h.state, h.deviceId] as [HandoffState, string | null]),
      ['ownership-transferred', SELF],
    ]);
    coordinator.observe(pushed);
    await expect(claimed).resolves.toEqual(pushed);
    expect(coordinator.get(prepared.id)?.state).toBe('ownership-transferred');
    expect(logged.some((line) => line.includes('its push came before the answer'))).toBe(true);
  });

  it('keeps waiting for the answer when the pushed record was moved by another device or from another state', async () => {
    const { coordinator, answer } = coordinatorWithHeldAnswers();
    coordinator.observe(prepared);
    const claimed = coordinator.transition(prepared, 'ownership-transferred');

    // Cancelled by the source (a device other than this one): not this device's claim. Taken for one,
    // it would settle the transition with it before the answer below, given after it.
    coordinator.observe(
      record([...prepared.history.map((h) => [h.state, h.deviceId] as [HandoffState, string | null]), ['cancelled', OTHER]]),
    );

    const answered = record([
      ...prepared.history.map((h) => [h.state, h.deviceId] as [HandoffState, string | null]),
      ['ownership-transferred', SELF],
    ]);
    answer({ ok: true, value: answered });
    await expect(claimed).resolves.toEqual(answered);
  });
});

describe('a transition that continues to a further state in the same commit', () => {
  const history = (extra: [HandoffState, string | null][]) =>
    record([...prepared.history.map((h) => [h.state, h.deviceId] as [HandoffState, string | null]), ...extra]);

  it('asks once for both states and goes on at the last, whether the push or the answer comes first', async () => {
    const claimedAndActivating = history([
      ['ownership-transferred', SELF],
      ['target-activating', SELF],
    ]);
    for (const first of ['push', 'answer'] as const) {
      const { coordinator, asked, answer } = coordinatorWithHeldAnswers();
      coordinator.observe(prepared);
      const claimed = coordinator.transition(prepared, 'ownership-transferred', { continueTo: 'target-activating' });
      expect(asked.map((r) => [r.from, r.to, r.continueTo])).toEqual([
        ['source-relinquished-and-checkpointed', 'ownership-transferred', 'target-activating'],
      ]);
      if (first === 'push') coordinator.observe(claimedAndActivating);
      else answer({ ok: true, value: claimedAndActivating });
      await expect(claimed).resolves.toEqual(claimedAndActivating);
      expect(coordinator.get(prepared.id)?.state).toBe('target-activating');
    }
  });

  it('asks for the first state alone, without the last state’s fields, when the backend does not know the continuation', async () => {
    const { coordinator, asked, answer, logged } = coordinatorWithHeldAnswers();
    const targetPrepared = record([
      ['requested', SELF],
      ['target-prepared', OTHER],
    ]);
    coordinator.observe(targetPrepared);
    const checkpoint = { digest: 'a'.repeat(64), size: 10 };
    const relinquished = coordinator.transition(targetPrepared, 'source-quiescing', {
      continueTo: 'source-relinquished-and-checkpointed',
      checkpoint,
    });
    answer({ ok: false, code: 'validation_failed', message: 'Unrecognized key: "continueTo"' });
    await expect.poll(() => asked).toHaveLength(2);
    expect(asked.map((r) => [r.to, r.continueTo, r.checkpoint])).toEqual([
      ['source-quiescing', 'source-relinquished-and-checkpointed', checkpoint],
      ['source-quiescing', undefined, undefined],
    ]);
    const quiescing = record([
      ['requested', SELF],
      ['target-prepared', OTHER],
      ['source-quiescing', SELF],
    ]);
    answer({ ok: true, value: quiescing });
    await expect(relinquished).resolves.toEqual(quiescing);
    expect(logged.some((line) => line.includes('asking for source-quiescing alone'))).toBe(true);
  });
});

/** A gate that waits at the points named in `held` until `open(name)`, and lists every point asked, in order. */
function testGate(held: string[]) {
  const asked: string[] = [];
  const waiting = new Map<string, () => void>();
  const gate: StepGate = {
    before: (point: GatePoint) => {
      const name = gateName(point);
      asked.push(name);
      return held.includes(name) ? new Promise<void>((resolve) => waiting.set(name, resolve)) : undefined;
    },
  };
  return { gate, asked, open: (name: string) => waiting.get(name)?.() };
}

/**
 * Resolves once every promise job queued so far has run, and those they queue: the coordinator's
 * work here is all promise jobs (its backend and gate answer without I/O), so what it would do by
 * itself it has done by then. No time passes for it.
 */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('the gate', () => {
  it('is asked before each step; a step it held runs on the record that came meanwhile, not the one it was held with', async () => {
    const { gate, asked, open } = testGate(['target-step-at-requested']);
    const stepped: HandoffState[] = [];
    const { coordinator } = coordinatorWithHeldAnswers(gate, {
      source: async () => undefined,
      target: async (handoff) => void stepped.push(handoff.state),
    });
    const requested = record([['requested', OTHER]]);
    coordinator.observe(requested);
    await settled();
    expect(asked).toEqual(['target-step-at-requested']);
    expect(stepped).toEqual([]);

    coordinator.observe(
      record([
        ['requested', OTHER],
        ['cancelled', OTHER],
      ]),
    );
    open('target-step-at-requested');
    await expect.poll(() => stepped).toEqual(['cancelled']);
    expect(asked).toEqual(['target-step-at-requested', 'target-step-at-cancelled']);
  });

  it('is asked before a transition is sent and once it is committed, before the device takes the answer in', async () => {
    const sending = 'sending-ownership-transferred+target-activating';
    const committed = 'committed-ownership-transferred+target-activating';
    const { gate, asked: passed, open } = testGate([sending, committed]);
    const { coordinator, asked, answer } = coordinatorWithHeldAnswers(gate);
    coordinator.observe(prepared);
    const claimed = coordinator.transition(prepared, 'ownership-transferred', { continueTo: 'target-activating' });
    await settled();
    expect(asked).toEqual([]);

    open(sending);
    await expect.poll(() => asked.map((r) => [r.to, r.continueTo])).toEqual([['ownership-transferred', 'target-activating']]);
    const claimedAndActivating = record([
      ...prepared.history.map((h) => [h.state, h.deviceId] as [HandoffState, string | null]),
      ['ownership-transferred', SELF],
      ['target-activating', SELF],
    ]);
    answer({ ok: true, value: claimedAndActivating });
    await settled();
    // Committed on the backend, not yet taken in here.
    expect(coordinator.get(prepared.id)?.state).toBe('source-relinquished-and-checkpointed');

    open(committed);
    await expect(claimed).resolves.toEqual(claimedAndActivating);
    expect(coordinator.get(prepared.id)?.state).toBe('target-activating');
    expect(passed.filter((name) => name.includes('ownership'))).toEqual([sending, committed]);
  });
});

describe('a record released by a later move', () => {
  it('replaces the kept one though nothing else changed, and a kept one never replaces it again', () => {
    const { coordinator } = coordinatorWithHeldAnswers();
    const completed = record([
      ['requested', OTHER],
      ['completed', SELF],
    ]);
    coordinator.observe({ ...completed, checkpointKept: true });
    coordinator.observe({ ...completed, checkpointKept: false });
    expect(coordinator.forSession(completed.sessionId).map((h) => h.checkpointKept)).toEqual([false]);
    coordinator.observe({ ...completed, checkpointKept: true });
    expect(coordinator.forSession(completed.sessionId).map((h) => h.checkpointKept)).toEqual([false]);
  });
});
