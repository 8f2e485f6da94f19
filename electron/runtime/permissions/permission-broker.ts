/**
 * The owner's side of permission requests: what its agents ask (a provider's `permission-request`
 * event) becomes a pending request of the session — kept in its record, published sealed in its
 * event stream so every device shows it, and told to the desktop notification — unless one of the
 * session's "Allow for this session" rules covers it, or the session is moving (then Baton answers
 * at once). Each request is answered exactly once, first answer wins, and only while it is pending
 * at the session's generation; every ending is a transcript entry (what was asked, the answer, on
 * which device, when) and a `permission-settled` event. The CLI's own request id never leaves here:
 * the request goes out under Baton's own id, so an answer to an earlier run's request cannot land.
 */
import { fail, ok, type ActionResult } from '../../../shared/errors.ts';
import {
  ruleCovers,
  sessionRuleFor,
  type PermissionAnswer,
  type PermissionRequest,
  type PermissionRule,
} from '../../../shared/permission-request.ts';
import {
  describeAsk,
  outcomeText,
  type PermissionOutcomeView,
  type PermissionRequestView,
  type PermissionVia,
} from '../../../shared/permission-views.ts';
import { PROVIDER_LABELS, type ProviderEvent, type ProviderSession } from '../../../shared/provider.ts';
import { newId } from '../../crypto/new-id.ts';
import type { LocalSession, LocalState } from '../../local-state/local-state.ts';
import type { ChangeSink } from '../../ports/changes.ts';
import type { Clock } from '../../ports/clock.ts';
import type { EventSender } from '../sessions/event-sender.ts';
import { recordAsked, recordSettled } from './permission-book.ts';

export interface PermissionBrokerDeps {
  selfId: string;
  state: Pick<LocalState, 'readSession' | 'updateSession'>;
  events: Pick<EventSender, 'append' | 'appendEntry' | 'publishMeta'>;
  /** A device's name (for "allowed on desktop"). */
  nameOf(deviceId: string): string;
  clock: Clock;
  /** Told each change of a session's view (a request asked or settled). */
  changes: ChangeSink;
  log(message: string): void;
  /** A request now waits for a person (the desktop notification). */
  asked?(request: PermissionRequestView): void;
}

/** Who answers: a person on a device (`byDeviceId`), or Baton itself for a reason (`via`). */
type Answerer = { via: 'user'; byDeviceId: string } | { via: Exclude<PermissionVia, 'user'>; rule?: PermissionRule };

/** The answer a device gives to one request, bound to the generation it was asked at. */
export interface DeviceAnswer extends PermissionAnswer {
  requestId: string;
  generation: number;
  byDeviceId: string;
}

export class PermissionBroker {
  /** Pending requests of this process by Baton's id: the session, the CLI's own id and the provider that waits. */
  private readonly asks = new Map<string, { sessionId: string; adapterId: string; provider: ProviderSession }>();

  constructor(private readonly deps: PermissionBrokerDeps) {}

  /** Folds a provider's permission events (and a turn's end) of session `sessionId` in. */
  onProviderEvent(sessionId: string, provider: ProviderSession, event: ProviderEvent): void {
    if (event.type === 'permission-request') void this.asked(sessionId, provider, event.request);
    else if (event.type === 'permission-cancelled')
      void this.withdrawn(sessionId, (ask) => ask.adapterId === event.requestId, event.reason);
    else if (event.type === 'turn-ended' || event.type === 'exited') void this.withdrawn(sessionId, () => true, 'The turn ended.');
  }

  /**
   * Applies a device's answer: only to a request pending here at the session's generation, once.
   * A refusal says why: not this device's session, asked at another generation, already answered
   * (and by whom), or no such request.
   */
  async answer(sessionId: string, answer: DeviceAnswer): Promise<ActionResult> {
    const session = this.deps.state.readSession(sessionId);
    if (!session) return fail('not_found', 'No such session.');
    if (session.ownerDeviceId !== this.deps.selfId) return fail('not_owner', 'This device no longer runs the session.');
    const pending = session.permissions.pending.find((p) => p.id === answer.requestId);
    if (!pending) {
      const ended = session.permissions.outcomes.find((o) => o.requestId === answer.requestId);
      if (!ended) return fail('unknown_request', 'The session has no such permission request.');
      const by = ended.byName === null ? ' by Baton' : ` on ${ended.byName}`;
      return fail('already_answered', `It was already answered${by} (${ended.decision}).`);
    }
    if (answer.generation !== session.generation || pending.generation !== session.generation)
      return fail(
        'stale_generation',
        `It was asked at generation ${pending.generation}; the session is at generation ${session.generation}.`,
      );
    // Asked by a process of this device that is gone (a restart): nobody would read the answer; the restart ends it.
    if (!this.asks.has(pending.id)) return fail('not_waiting', 'The agent no longer waits for this answer: its turn ended.');
    await this.settle(pending, answer, { via: 'user', byDeviceId: answer.byDeviceId });
    return ok(undefined);
  }

  /** Denies every pending request of the session for `via`, saying `message` to the agent; resolves once the CLIs have the answers. */
  async denyAll(sessionId: string, via: 'move' | 'stop' | 'interrupt', message: string): Promise<void> {
    const pending = this.deps.state.readSession(sessionId)?.permissions.pending ?? [];
    await Promise.all(pending.map((request) => this.settle(request, { decision: 'deny', message }, { via })));
  }

  /**
   * Ends the requests a restart left pending (no process waits for them any more): each is recorded
   * as ended by the restart, with `message`, so every device stops showing it.
   */
  endLeftOver(sessionId: string, message: string): void {
    for (const request of this.deps.state.readSession(sessionId)?.permissions.pending ?? []) {
      if (!this.asks.has(request.id)) void this.settle(request, { decision: 'deny', message }, { via: 'restart' });
    }
  }

  /** Whether any request of the session is pending. */
  hasPending(sessionId: string): boolean {
    return (this.deps.state.readSession(sessionId)?.permissions.pending.length ?? 0) > 0;
  }

  private async asked(sessionId: string, provider: ProviderSession, request: PermissionRequest): Promise<void> {
    const session = this.deps.state.readSession(sessionId);
    if (!session || session.ownerDeviceId !== this.deps.selfId) {
      await provider.answerPermission?.(request.id, { decision: 'deny', message: 'This device no longer runs the session.' });
      return;
    }
    const view = this.viewOf(session, provider, request);
    this.asks.set(view.id, { sessionId, adapterId: request.id, provider });
    if (session.inputBlock?.code === 'quiescing') {
      await this.settle(view, { decision: 'deny', message: MOVING }, { via: 'move' });
      return;
    }
    const rule = session.permissions.rules.find((r) => ruleCovers(r, request));
    if (rule) {
      await this.settle(view, { decision: 'allow' }, { via: 'rule', rule });
      return;
    }
    this.deps.state.updateSession(sessionId, (s) => recordAsked(s, view));
    void this.deps.events.append(sessionId, { type: 'permission-request', request: view });
    this.deps.changes.emit('sessionChanged', { sessionId });
    this.deps.asked?.(view);
  }

  /** The requests of the session the CLI no longer waits for (`which`) end as withdrawn, with `reason`. */
  private async withdrawn(sessionId: string, which: (ask: { adapterId: string }) => boolean, reason: string): Promise<void> {
    const pending = this.deps.state.readSession(sessionId)?.permissions.pending ?? [];
    for (const request of pending) {
      const ask = this.asks.get(request.id);
      if (ask && ask.sessionId === sessionId && which(ask)) {
        this.asks.delete(request.id);
        await this.settle(request, { decision: 'deny', message: reason }, { via: 'withdrawn' });
      }
    }
  }

  private viewOf(session: Readonly<LocalSession>, provider: ProviderSession, request: PermissionRequest): PermissionRequestView {
    const { tool, command, path, diff, detail, reason } = request;
    const optional = Object.fromEntries(Object.entries({ command, path, diff, detail, reason }).filter(([, v]) => v !== undefined));
    return {
      id: `perm-${newId()}`,
      sessionId: session.id,
      generation: session.generation,
      deviceId: this.deps.selfId,
      agent: request.agent,
      agentName: session.agents.find((a) => a.id === request.agent)?.name ?? request.agent,
      providerLabel: PROVIDER_LABELS[provider.provider],
      tool,
      ...optional,
      sessionRule: sessionRuleFor(request),
      askedAt: this.deps.clock(),
    };
  }

  /**
   * Ends `request` with `answer`: claimed at once (so a second answer finds it ended), recorded with
   * its transcript entry, then written to the CLI (unless it was withdrawn), then published.
   */
  private async settle(request: PermissionRequestView, answer: PermissionAnswer, by: Answerer): Promise<void> {
    const sessionId = request.sessionId;
    const ask = this.asks.get(request.id);
    this.asks.delete(request.id);
    const byDeviceId = by.via === 'user' ? by.byDeviceId : null;
    const message = answer.message?.trim();
    const outcome: PermissionOutcomeView = {
      requestId: request.id,
      asked: describeAsk(request),
      decision: by.via === 'withdrawn' ? 'cancelled' : answer.decision,
      via: by.via,
      ...(message ? { message } : {}),
      byDeviceId,
      byName: byDeviceId === null ? null : this.deps.nameOf(byDeviceId),
      at: this.deps.clock(),
    };
    const kept = answer.decision === 'allow-session' ? request.sessionRule : undefined;
    this.deps.state.updateSession(sessionId, (s) => {
      recordSettled(s, outcome);
      if (kept && !s.permissions.rules.some((r) => r.tool === kept.tool && r.commandPrefix === kept.commandPrefix))
        s.permissions.rules.push(kept);
    });
    const rule = kept ?? (by.via === 'rule' ? by.rule : undefined);
    const at = outcome.at;
    this.deps.events.appendEntry(sessionId, {
      id: `baton-${newId()}`,
      at,
      role: 'system',
      agentId: request.agent,
      text: outcomeText(outcome, rule),
    });
    if (ask && by.via !== 'withdrawn') {
      const written = await ask.provider.answerPermission?.(ask.adapterId, answer);
      if (written && !written.ok)
        this.deps.log(`session ${sessionId}: the answer to ${request.id} did not reach the agent: ${written.message}`);
    }
    void this.deps.events.append(sessionId, { type: 'permission-settled', outcome });
    if (kept) void this.deps.events.publishMeta(sessionId);
    this.deps.changes.emit('sessionChanged', { sessionId });
  }
}

/** What a request asked while the session quiesces for a move is told. */
const MOVING = 'The session is moving to another device; ask again there.';
