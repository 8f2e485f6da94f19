/**
 * A device's permission requests, as the rest of the runtime asks for them: answer one (here when
 * this device owns the session, else relayed sealed and signed to the owner), stop a turn (its
 * requests denied first), deny what a move or a stop leaves pending, end what a restart left, and
 * take the answers other devices posted (read by session-posts.ts). The broker (permission-broker.ts)
 * and the relay (answer-relay.ts) do the work; the desktop notice of a new request is made here.
 */
import type { Device } from '../../../shared/api/devices.ts';
import type { SessionAnswer } from '../../../shared/api/sessions.ts';
import type { MoveNoticeView } from '../../../shared/device-api.ts';
import { fail, type ActionResult } from '../../../shared/errors.ts';
import type { PermissionAnswer } from '../../../shared/permission-request.ts';
import { describeAsk, type PermissionRequestView } from '../../../shared/permission-views.ts';
import type { ProviderEvent, ProviderSession } from '../../../shared/provider.ts';
import type { LocalState } from '../../local-state/local-state.ts';
import type { BackendPort } from '../../ports/backend.ts';
import type { ChangeSink } from '../../ports/changes.ts';
import type { Clock } from '../../ports/clock.ts';
import type { SealPort } from '../../ports/seal.ts';
import type { PostHandler } from '../session-posts.ts';
import type { EventSender } from '../sessions/event-sender.ts';
import { AnswerRelay } from './answer-relay.ts';
import { PermissionBroker } from './permission-broker.ts';

export interface PermissionServiceDeps {
  selfId: string;
  selfName: string;
  state: Pick<LocalState, 'readSession' | 'updateSession' | 'listSessions'>;
  backend: Pick<BackendPort, 'postAnswer'>;
  seal: Pick<SealPort, 'sealJson'>;
  events: Pick<EventSender, 'append' | 'appendEntry' | 'publishMeta' | 'note'>;
  /** The running provider of an owned session. */
  provider(sessionId: string): ProviderSession | undefined;
  /** This device's signing key; without one, answers are not relayed. */
  signer?: { sign(data: Uint8Array): Uint8Array };
  /** The account's devices (names, signing keys); without them, names are short ids and no relayed answer verifies. */
  devices?: { get(id: string): Device | undefined; nameOf(id: string): string };
  clock: Clock;
  /** Where a change of a session's view is told (a request asked or settled). */
  changes: ChangeSink;
  log(message: string): void;
  /** Shows a desktop notification. */
  notice?(notice: MoveNoticeView): void;
}

/** The desktop notification of a request: "laptop: Claude Code wants to run `npm test`". */
export function permissionNotice(request: PermissionRequestView, deviceName: string, at: number): MoveNoticeView {
  const who = request.agentName === request.providerLabel || request.agent === 'main' ? request.providerLabel : request.agentName;
  const body = `${deviceName}: ${who} wants to ${describeAsk(request)}`;
  return { kind: 'permission', sessionId: request.sessionId, handoffId: null, title: 'Permission request', body, at };
}

export class PermissionService implements PostHandler {
  private readonly broker: PermissionBroker;
  private readonly relay: AnswerRelay | null;

  constructor(private readonly deps: PermissionServiceDeps) {
    const nameOf = (id: string) => (id === deps.selfId ? deps.selfName : (deps.devices?.nameOf(id) ?? id.slice(0, 8)));
    const { selfId, state, events, clock, changes, log } = deps;
    this.broker = new PermissionBroker({ selfId, state, events, nameOf, clock, changes, log, asked: (request) => this.asked(request) });
    const { signer, devices } = deps;
    this.relay =
      signer && devices ? new AnswerRelay({ ...deps, signer, device: (id) => devices.get(id), broker: this.broker, nameOf }) : null;
  }

  /** Folds a provider's events of an owned session in (its permission requests, and a turn's end). */
  onProviderEvent(sessionId: string, provider: ProviderSession, event: ProviderEvent): void {
    this.broker.onProviderEvent(sessionId, provider, event);
  }

  /** A request of another device's agent learned from the event stream: the desktop notice. */
  asked(request: PermissionRequestView): void {
    const name = request.deviceId === this.deps.selfId ? this.deps.selfName : (this.deps.devices?.nameOf(request.deviceId) ?? '');
    this.deps.notice?.(permissionNotice(request, name, this.deps.clock()));
  }

  /** Answers request `requestId` (asked at `generation`): applied here on the owner, else relayed to it. */
  answer(sessionId: string, requestId: string, generation: number, answer: PermissionAnswer): Promise<ActionResult> {
    const session = this.deps.state.readSession(sessionId);
    if (!session) return Promise.resolve(fail('not_found', 'No such session.'));
    if (session.ownerDeviceId === this.deps.selfId)
      return this.broker.answer(sessionId, { ...answer, requestId, generation, byDeviceId: this.deps.selfId });
    if (!this.relay) return Promise.resolve(fail('unsupported', 'This device cannot answer for another device.'));
    return this.relay.send(sessionId, requestId, generation, answer);
  }

  /** Stops the running turn of an owned session; its pending requests are denied first (the agent reads why). */
  async interrupt(sessionId: string): Promise<ActionResult> {
    const provider = this.deps.provider(sessionId);
    if (!provider || this.deps.state.readSession(sessionId)?.ownerDeviceId !== this.deps.selfId)
      return fail('not_running', 'The agent does not run on this device.');
    await this.broker.denyAll(sessionId, 'interrupt', 'The user stopped the turn.');
    await provider.interrupt();
    return { ok: true, value: undefined };
  }

  /** Denies the session's pending requests because it moves to `targetName`; resolves once the agent has the answers. */
  denyForMove(sessionId: string, targetName: string): Promise<void> {
    return this.broker.denyAll(sessionId, 'move', `The session is moving to ${targetName}; ask again there.`);
  }

  /** Denies every pending request of this device's sessions: the device stops. */
  async denyAllForStop(): Promise<void> {
    this.relay?.stop();
    const owned = this.deps.state.listSessions().filter((s) => s.ownerDeviceId === this.deps.selfId);
    await Promise.all(owned.map((s) => this.broker.denyAll(s.id, 'stop', `${this.deps.selfName} stopped; ask again once it runs.`)));
  }

  /** Ends the requests a restart left pending in an owned session that does not run here now. */
  endLeftOver(sessionId: string): void {
    const message = `${this.deps.selfName} restarted while this was asked, which ended that turn; send the message again to ask again.`;
    this.broker.endLeftOver(sessionId, message);
  }

  /** Takes an answer another device posted for an owned session (answer-relay.ts); one this device cannot check is left. */
  take(sessionId: string, posted: SessionAnswer, body: unknown): Promise<void> {
    return this.relay?.take(sessionId, posted, body) ?? Promise.resolve();
  }
}
