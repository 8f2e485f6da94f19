/**
 * The handoff coordinator: for every handoff this device is party to, performs this device's step
 * for the current state (the table in shared/handoff-states.ts), once per state, reacting to pushes. Steps for one
 * handoff run one at a time; progress is recorded locally so a restart resumes the step.
 */
import type { CancelReason, Handoff, TransitionRequest } from '../../shared/api/handoffs.ts';
import { isCancellable, isTerminal, reachedAt, type HandoffState } from '../../shared/handoff-states.ts';
import { fail, ok, type ActionResult } from '../../shared/errors.ts';
import type { Blocker } from '../../shared/readiness.ts';
import type { LocalState } from '../local-state/local-state.ts';
import type { BackendPort } from '../ports/backend.ts';
import type { ChangeSink } from '../ports/changes.ts';
import type { Clock } from '../ports/clock.ts';
import type { SealPort } from '../ports/seal.ts';
import { sealCancelReason } from './cancel-reason.ts';
import { OPEN_GATE, type GatePoint, type StepGate } from './test-seam.ts';
import { TransitionRefused } from './transition-refused.ts';

export interface CoordinatorDeps {
  selfId: string;
  /** This device's progress records of the handoffs it is party to. */
  progress: Pick<LocalState, 'ensureProgress' | 'updateProgress' | 'listProgress'>;
  backend: Pick<BackendPort, 'transition' | 'getHandoff' | 'listHandoffs'>;
  /** Seals cancel reasons: only their code reaches the backend in clear. */
  seal: Pick<SealPort, 'sealJson'>;
  /** The backend said this device no longer drives the session (stale generation, not the owner). */
  lostSession(sessionId: string): Promise<void>;
  clock: Clock;
  /** Told each newer record of a handoff this device knows, and when this device has just finished its part in an ended one. */
  changes: ChangeSink;
  log(message: string): void;
  /**
   * Asked before each step, before each transition is sent and once its commit is known, and by the
   * steps inside work begun ahead of its state (test-seam.ts); OPEN_GATE when absent.
   */
  gate?: StepGate;
}

/** What a step may ask of the coordinator that runs it. */
export type HandoffDriver = Pick<Coordinator, 'get' | 'transition' | 'cancel' | 'refresh' | 'at' | 'clearTimer' | 'finish' | 'pass'>;

/** One step of one role: given the latest record, does this device's part (or nothing). */
export type Step = (handoff: Handoff, driver: HandoffDriver) => Promise<void>;

/** Newer record wins: history only grows. */
function isNewer(next: Handoff, known: Handoff | undefined): boolean {
  if (!known) return true;
  if (next.history.length !== known.history.length) return next.history.length > known.history.length;
  // A checkpoint released by a later move changes no time: once released it stays so.
  return next.updatedAt > known.updatedAt || next.state !== known.state || (known.checkpointKept && !next.checkpointKept);
}

/** How soon a step that failed unexpectedly is tried again. */
const RETRY_MS = 1000;

const AFTER_TRANSFER: readonly HandoffState[] = ['ownership-transferred', 'target-activating', 'completed'];

/** The session generation a transition from `from` is fenced by. */
export function generationFor(handoff: Handoff, from: HandoffState): number {
  return AFTER_TRANSFER.includes(from) ? handoff.generation + 1 : handoff.generation;
}

/** Whether `handoff`'s history shows `deviceId` moving it from `from` to `to`. */
function movedBy(handoff: Handoff, deviceId: string, from: HandoffState, to: HandoffState): boolean {
  return handoff.history.some((entry, i) => entry.state === to && entry.deviceId === deviceId && handoff.history[i - 1]?.state === from);
}

/** Whether the handoff reached ownership-transferred at some point. */
export function transferred(handoff: Handoff): boolean {
  return reachedAt(handoff.history, 'ownership-transferred') !== undefined;
}

export class Coordinator {
  private readonly latest = new Map<string, Handoff>();
  private readonly busy = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** Transitions waiting for their answer, by handoff: each hears every newer record (its push may come first). */
  private readonly awaiting = new Map<string, Set<(handoff: Handoff) => void>>();
  private stopped = false;
  private readonly gate: StepGate;

  constructor(
    private readonly deps: CoordinatorDeps,
    private readonly steps: { source: Step; target: Step },
  ) {
    this.gate = deps.gate ?? OPEN_GATE;
  }

  /** The latest known record of a handoff. */
  get(handoffId: string): Handoff | undefined {
    return this.latest.get(handoffId);
  }

  /** Every handoff of a session this device knows, oldest first. */
  forSession(sessionId: string): Handoff[] {
    return [...this.latest.values()].filter((h) => h.sessionId === sessionId).sort((a, b) => a.createdAt - b.createdAt);
  }

  /** The session's handoff that has not ended, if any. */
  active(sessionId: string): Handoff | undefined {
    return this.forSession(sessionId).find((h) => !isTerminal(h.state));
  }

  /**
   * Takes in a handoff record (push, list or transition answer) and drives this device's step.
   * `force` drives it even when the record is not newer (reconcile after a reconnect or a restart).
   */
  observe(handoff: Handoff, force = false): void {
    const newer = isNewer(handoff, this.latest.get(handoff.id));
    if (!newer && !force) return;
    if (newer) {
      this.latest.set(handoff.id, handoff);
      this.deps.changes.emit('handoffChanged', { handoff });
      for (const hear of this.awaiting.get(handoff.id) ?? []) hear(handoff);
    }
    if (this.roleIn(handoff) !== null) this.schedule(handoff.id);
  }

  roleIn(handoff: Handoff): 'source' | 'target' | null {
    if (handoff.sourceDeviceId === this.deps.selfId) return 'source';
    if (handoff.targetDeviceId === this.deps.selfId) return 'target';
    return null;
  }

  private schedule(handoffId: string): void {
    if (this.stopped) return;
    if (this.busy.has(handoffId)) {
      this.dirty.add(handoffId);
      return;
    }
    this.busy.add(handoffId);
    void this.run(handoffId).finally(() => this.busy.delete(handoffId));
  }

  private async run(handoffId: string): Promise<void> {
    let pass = 0;
    do {
      this.dirty.delete(handoffId);
      const handoff = this.latest.get(handoffId);
      if (!handoff || this.stopped) return;
      const role = this.roleIn(handoff)!;
      // A target's record need not reach the disk before it acts: it drives only active handoffs, and
      // the backend's list of them brings each back after a restart (reconcile).
      const progress = this.deps.progress.ensureProgress(handoff.id, handoff.sessionId, role, this.deps.clock(), role === 'source');
      if (progress.finished) return;
      try {
        const held = this.pass({ at: 'step', role, state: handoff.state }, handoff);
        if (held) {
          await held;
          if (this.stopped) return;
          // A newer record came while the gate held the step: that one is stepped instead (it marked the handoff dirty).
          if (this.latest.get(handoffId) !== handoff) continue;
        }
        await this.steps[role](handoff, this);
      } catch (error) {
        // Unexpected (backend unreachable or restarting): try the step again shortly; a reconnect also drives it.
        this.deps.log(`handoff ${handoffId} ${role} step at ${handoff.state} failed: ${(error as Error).message}`);
        this.at(`${handoffId}:retry`, this.deps.clock() + RETRY_MS, async () => this.schedule(handoffId));
        return;
      }
      pass += 1;
    } while (this.dirty.has(handoffId) && pass < 50);
  }

  /**
   * Asks the backend for `from → to` with an idempotency key per (handoff, from, to, checkpoint). A lost race
   * (state moved on) re-reads the record; `stale_generation` stops this device driving the session.
   * A pushed record that shows this device's `from → to` committed stands for the answer: the step
   * goes on without waiting for an answer that is slow or lost (the request itself still runs).
   * With `continueTo`, `to` and then `continueTo` are entered in one commit; a backend that does not
   * know the field is asked for `to` alone (without the fields, which belong to `continueTo`).
   */
  async transition(
    handoff: Handoff,
    to: HandoffState,
    extra: Partial<Omit<TransitionRequest, 'from' | 'to' | 'generation' | 'reason'>> & { reason?: CancelReason } = {},
  ): Promise<Handoff | null> {
    const { reason, ...rest } = extra;
    const sealed = reason === undefined ? {} : { reason: sealCancelReason(this.deps.seal, handoff, reason) };
    const request: TransitionRequest = { from: handoff.state, to, generation: generationFor(handoff, handoff.state), ...rest, ...sealed };
    const entered = rest.continueTo ? [to, rest.continueTo] : [to];
    const held = this.pass({ at: 'sending', enters: entered }, handoff);
    if (held) await held;
    const committed = this.committedWhenPushed(handoff, to);
    // A checkpoint taken again (its upload collected) is a new request: its key names the checkpoint too.
    const key = [handoff.id, handoff.state, ...entered, ...(rest.checkpoint ? [rest.checkpoint.digest.slice(0, 16)] : [])].join('-');
    const answer = this.deps.backend.transition(handoff.id, request, key.slice(0, 120));
    const first = await Promise.race([answer, committed.seen]).finally(committed.stop);
    if ('pushed' in first) {
      answer.catch(() => undefined);
      const gated = this.pass({ at: 'committed', enters: entered }, handoff);
      if (gated) await gated;
      this.recordDone(handoff, entered, 'its push came before the answer');
      return first.pushed;
    }
    const result = first;
    if (result.ok) {
      const gated = this.pass({ at: 'committed', enters: entered }, handoff);
      if (gated) await gated;
      this.recordDone(handoff, entered);
      this.observe(result.value);
      return result.value;
    }
    if (result.code === 'validation_failed' && rest.continueTo !== undefined) {
      this.deps.log(
        `transition ${handoff.state} → ${to} → ${rest.continueTo} of ${handoff.id} refused (${result.message}): asking for ${to} alone`,
      );
      return this.transition(handoff, to);
    }
    if (result.code === 'stale_generation' || result.code === 'not_owner') await this.deps.lostSession(handoff.sessionId);
    if (
      ['state_mismatch', 'illegal_transition', 'not_cancellable', 'stale_generation', 'not_owner', 'idempotency_conflict'].includes(
        result.code,
      )
    ) {
      this.deps.log(`transition ${handoff.state} → ${to} of ${handoff.id} refused: ${result.code}`);
      await this.refresh(handoff.id);
      return null;
    }
    throw new TransitionRefused(
      result.code,
      `transition ${handoff.state} → ${to} failed: ${result.code} ${result.message}`,
      result.details,
    );
  }

  /**
   * Logs `handoff`'s move by this device into `entered` (the states, in order) and notes its
   * steps done (informational: the backend record is the truth).
   */
  private recordDone(handoff: Handoff, entered: HandoffState[], how?: string): void {
    this.deps.log(`handoff ${handoff.id}: ${[handoff.state, ...entered].join(' → ')}${how ? ` (${how})` : ''}`);
    this.deps.progress.updateProgress(
      handoff.id,
      (p) => {
        for (const state of [handoff.state, ...entered.slice(0, -1)]) if (!p.done.includes(state)) p.done.push(state);
      },
      false,
    );
  }

  /** Resolves with the first record observed that shows this device moving `handoff` to `to`; `stop` stops listening. */
  private committedWhenPushed(handoff: Handoff, to: HandoffState): { seen: Promise<{ pushed: Handoff }>; stop: () => void } {
    const listeners = this.awaiting.get(handoff.id) ?? new Set<(next: Handoff) => void>();
    this.awaiting.set(handoff.id, listeners);
    let hear: (next: Handoff) => void = () => undefined;
    const seen = new Promise<{ pushed: Handoff }>((resolve) => {
      hear = (next) => {
        if (movedBy(next, this.deps.selfId, handoff.state, to)) resolve({ pushed: next });
      };
    });
    listeners.add(hear);
    return {
      seen,
      stop: () => {
        listeners.delete(hear);
        if (listeners.size === 0) this.awaiting.delete(handoff.id);
      },
    };
  }

  /** Cancels with a reason and the remediation (both sealed to the handoff; only the code in clear), the remediation also kept locally. */
  async cancel(handoff: Handoff, reason: CancelReason, blockers: Blocker[] = []): Promise<Handoff | null> {
    if (blockers.length > 0)
      this.deps.progress.updateProgress(handoff.id, (p) => {
        p.blockers = blockers;
      });
    return this.transition(handoff, 'cancelled', { reason: blockers.length > 0 ? { ...reason, blockers } : reason });
  }

  /** Undefined when the gate lets this device go on past `point` in `handoff` at once (always on a shipped device); else resolves once it does. */
  pass(point: GatePoint, handoff: Handoff): Promise<void> | undefined {
    return this.gate.before(point, handoff);
  }

  /** Re-reads a handoff from the backend. */
  async refresh(handoffId: string): Promise<void> {
    const fresh = await this.deps.backend.getHandoff(handoffId);
    if (fresh.ok) this.observe(fresh.value);
  }

  /** Runs `action` once at `deadline` (ms since epoch), replacing any timer of the same key. */
  at(key: string, deadline: number, action: () => Promise<void>): void {
    this.clearTimer(key);
    if (this.stopped) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(key);
        void action().catch((error: Error) => this.deps.log(`timer ${key} failed: ${error.message}`));
      },
      Math.max(0, deadline - this.deps.clock()),
    );
    this.timers.set(key, timer);
  }

  clearTimer(key: string): void {
    const timer = this.timers.get(key);
    if (timer) clearTimeout(timer);
    this.timers.delete(key);
  }

  /** Marks this device done with a handoff. */
  finish(handoffId: string): void {
    let first = false;
    this.deps.progress.updateProgress(handoffId, (p) => {
      first = !p.finished;
      p.finished = true;
    });
    const handoff = this.latest.get(handoffId);
    const role = handoff ? this.roleIn(handoff) : null;
    if (first && handoff && role) this.deps.changes.emit('handoffEnded', { handoff, role });
    for (const key of [...this.timers.keys()]) if (key.startsWith(handoffId)) this.clearTimer(key);
  }

  /** The user cancels the session's active handoff while it is cancellable. */
  async cancelByUser(sessionId: string): Promise<ActionResult> {
    const handoff = this.active(sessionId);
    if (!handoff) return fail('not_found', 'No move is in progress for this session.');
    if (!isCancellable(handoff.state)) return fail('not_cancellable', 'Ownership has already moved; the move can no longer be cancelled.');
    const after = await this.transition(handoff, 'cancelled', { reason: { code: 'user_cancelled', message: 'The move was cancelled.' } });
    if (after?.state === 'cancelled') return ok(undefined);
    const now = this.latest.get(handoff.id);
    return now?.state === 'cancelled' ? ok(undefined) : fail('not_cancellable', `The move is now ${now?.state ?? 'unknown'}.`);
  }

  /** Fetches every handoff this device should act on (active ones and unfinished local progress). */
  async reconcile(): Promise<void> {
    const active = await this.deps.backend.listHandoffs({ active: true });
    if (active.ok) for (const handoff of active.value) this.observe(handoff, true);
    for (const progress of this.deps.progress.listProgress()) {
      if (progress.finished || (active.ok && active.value.some((h) => h.id === progress.handoffId))) continue;
      const fresh = await this.deps.backend.getHandoff(progress.handoffId);
      if (fresh.ok) this.observe(fresh.value, true);
    }
  }

  stop(): void {
    this.stopped = true;
    for (const key of [...this.timers.keys()]) this.clearTimer(key);
  }
}
