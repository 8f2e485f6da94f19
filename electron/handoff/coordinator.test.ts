/**
 * The coordinator's compare-and-set when the push of its record comes before the answer (or instead
 * of it): the step goes on as soon as a record shows this device's transition committed, and only then.
 */
import { describe, expect, it } from 'vitest';
import type { Handoff, TransitionRequest } from '../../shared/api/handoffs.ts';
import type { HandoffState } from '../../shared/handoff-states.ts';
import type { Result } from '../../shared/errors.ts';
import { handoffRecord } from '../../dev-env/handoff-record.ts';
import { Coordinator, type CoordinatorDeps } from './coordinator.ts';

const SELF = 'device-target-0000000001';
const OTHER = 'device-source-0000000001';

function record(states: [HandoffState, string | null][]): Handoff {
  return handoffRecord(
    { source: OTHER, target: SELF },
    states.map(([state, deviceId], i) => ({ state, at: 1000 + i, deviceId })),
  );
}

/** A coordinator whose backend holds every transition's answer until `answer` is called. */
function coordinatorWithHeldAnswers() {
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
    handoffChanged: () => undefined,
    log: (message) => logged.push(message),
  };
  const coordinator = new Coordinator(deps, { source: async () => undefined, target: async () => undefined });
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
    let settled = false;
    const claimed = coordinator.transition(prepared, 'ownership-transferred').then((h) => {
      settled = true;
      return h;
    });

    // Cancelled by the source (a device other than this one): not this device's claim.
    coordinator.observe(
      record([...prepared.history.map((h) => [h.state, h.deviceId] as [HandoffState, string | null]), ['cancelled', OTHER]]),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(settled).toBe(false);

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
    await new Promise((resolve) => setTimeout(resolve, 0));
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
