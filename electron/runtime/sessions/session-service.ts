/**
 * Sessions on this device: start one, run its provider while this device owns it, append its
 * transcript and agent map as sealed events fenced by the generation, refuse input durably when
 * quiescing or not the owner, and stop driving at once when the backend says the session moved.
 *
 * One part per job, wired here: starting (session-start.ts), refusing input (session-input.ts),
 * driving the provider (provider-driver.ts), sending events (event-sender.ts), pulling events in
 * (event-puller.ts), rebuilding a lost record (session-rebuild.ts) and resuming after a restart
 * (restart-resume.ts). This class is what the device runtime and its API call, and what the handoff
 * steps see as SessionsPort.
 */
import type { Device } from '../../../shared/api/devices.ts';
import type { Session } from '../../../shared/api/sessions.ts';
import type { InputBlock, MoveNoticeView } from '../../../shared/device-api.ts';
import type { ActionResult, Result } from '../../../shared/errors.ts';
import type { PermissionAnswer } from '../../../shared/permission-request.ts';
import type { ProviderId, ProviderSession } from '../../../shared/provider.ts';
import type { LocalSession, LocalState } from '../../local-state/local-state.ts';
import type { BackendPort } from '../../ports/backend.ts';
import type { ChangeSink } from '../../ports/changes.ts';
import type { Clock } from '../../ports/clock.ts';
import type { GitPort } from '../../ports/git.ts';
import type { ProviderPort } from '../../ports/providers.ts';
import type { SealPort } from '../../ports/seal.ts';
import type { SessionContent, SessionsPort } from '../../ports/sessions.ts';
import { PermissionService } from '../permissions/permission-service.ts';
import type { PostHandler } from '../session-posts.ts';
import { switchAgent, type AgentSwitchDeps } from './agent-switch.ts';
import { EventPuller } from './event-puller.ts';
import { EventSender } from './event-sender.ts';
import { ProviderDriver } from './provider-driver.ts';
import { RestartResume } from './restart-resume.ts';
import type { SessionEventBody } from './session-events.ts';
import { SessionInput } from './session-input.ts';
import { rebuildSession, type SessionRebuildDeps } from './session-rebuild.ts';
import {
  checkNew,
  createRecord,
  startSession,
  type CheckedNewSession,
  type NewSessionInput,
  type SessionStartDeps,
} from './session-start.ts';
import type { TurnObserver } from './turn-observer.ts';

export interface SessionServiceDeps {
  selfId: string;
  /** This device's name (what a restart's continuation prompt says the session ran on). */
  selfName?: string;
  state: LocalState;
  backend: BackendPort;
  seal: SealPort;
  git: GitPort;
  providers: ProviderPort;
  clock: Clock;
  /** Where the service tells what it changed: a session's view, or only its transcript and agent map. */
  changes: ChangeSink;
  log(message: string): void;
  /** Told of every provider turn that starts or ends here, with the generation and owner known then. */
  observeTurn?: TurnObserver;
  /** This device's signing key: answers to other devices' permission requests are signed with it. */
  signer?: { sign(data: Uint8Array): Uint8Array };
  /** The account's devices (names, and the signing keys relayed answers are checked against). */
  devices?: { get(id: string): Device | undefined; nameOf(id: string): string };
  /** Shows a desktop notification (a permission request). */
  notice?(notice: MoveNoticeView): void;
}

export class SessionService implements SessionsPort {
  private readonly events: EventSender;
  private readonly driver: ProviderDriver;
  private readonly input: SessionInput;
  private readonly puller: EventPuller;
  private readonly restart: RestartResume;
  private readonly permissions: PermissionService;
  private readonly starting: SessionStartDeps;
  private readonly rebuilding: SessionRebuildDeps;
  private readonly switching: AgentSwitchDeps;

  private readonly selfId: string;
  private readonly stateOf: LocalState;
  private readonly devicesOf: SessionServiceDeps['devices'];

  constructor(deps: SessionServiceDeps) {
    const { selfId, state, backend, seal, git, providers, clock, changes } = deps;
    this.selfId = selfId;
    this.stateOf = state;
    this.devicesOf = deps.devices;
    const log = (message: string) => deps.log(message);
    const observeTurn = deps.observeTurn;
    this.events = new EventSender({ selfId, state, backend, seal, clock, changes, moved: (id) => this.markMoved(id) });
    const events = this.events;
    const { signer, devices, notice } = deps;
    const selfName = deps.selfName ?? selfId;
    const provider = (id: string) => this.driver.provider(id);
    this.permissions = new PermissionService({
      selfId,
      selfName,
      state,
      backend,
      seal,
      events,
      provider,
      signer,
      devices,
      clock,
      changes,
      log,
      notice,
    });
    const permissions = this.permissions;
    this.driver = new ProviderDriver({
      selfId,
      state,
      providers,
      events,
      permissions,
      clock,
      changes,
      log,
      ...(observeTurn ? { observeTurn } : {}),
    });
    const driver = this.driver;
    this.input = new SessionInput({ selfId, state, driver, changes });
    const markMoved = (id: string) => this.markMoved(id);
    const isRunning = (id: string) => driver.isRunning(id);
    const asked = permissions.asked.bind(permissions);
    this.puller = new EventPuller({ selfId, state, backend, seal, isRunning, markMoved, changes, asked });
    const named = deps.selfName === undefined ? {} : { selfName: deps.selfName };
    this.restart = new RestartResume({ selfId, ...named, state, seal, git, providers, driver, events, clock, changes, log });
    this.starting = { state, backend, seal, git, events, driver, clock, changes, log };
    const note = (id: string, text: string) => events.note(id, text);
    this.rebuilding = { selfId, ...named, state, seal, git, pullEvents: (id) => this.pullEvents(id), note, changes, log };
    const interrupt = (id: string) => permissions.interrupt(id);
    const setInputBlock = (id: string, block: InputBlock) => this.setInputBlock(id, block);
    this.switching = { selfId, selfName, state, git, providers, driver, events, interrupt, setInputBlock, clock, changes, log };
  }

  /** Continues owned session `sessionId` here with agent `to`, from a summary (agent-switch.ts); a failed start resumes the old agent. */
  async switchAgent(sessionId: string, to: ProviderId): Promise<ActionResult> {
    const switched = await switchAgent(this.switching, sessionId, to);
    if (!switched.ok && switched.code === 'switch_failed') await this.resumeOwned();
    return switched;
  }

  /** The running provider of an owned session, if any. */
  provider(sessionId: string): ProviderSession | undefined {
    return this.driver.provider(sessionId);
  }

  /** Starts a session on `workspace` with `provider`; this device owns it at generation 1. */
  start(input: NewSessionInput & { prompt: string }): Promise<Result<LocalSession>> {
    return startSession(this.starting, input);
  }

  /** Checks what a new session is made of (session-start.ts); resolves to the input with its repositories. */
  checkNew(input: NewSessionInput): Promise<Result<CheckedNewSession>> {
    return checkNew(this.starting, input);
  }

  /** Creates the session (`id`, else a new one) on the backend (generation 1, owned here) and its local record, with `content` as its history. */
  createRecord(input: CheckedNewSession, title: string, content?: SessionContent, id?: string): Promise<Result<LocalSession>> {
    return createRecord(this.starting, input, title, content, id);
  }

  /** Why input is refused on this device right now, or null. */
  inputBlock(session: Readonly<LocalSession>): InputBlock {
    return this.input.inputBlock(session);
  }

  /** Sends user input to the owned, accepting session; otherwise refuses with the reason. */
  send(sessionId: string, text: string): Promise<ActionResult> {
    return this.input.send(sessionId, text);
  }

  /** Durably sets (or clears) the input-rejection flag of a session. */
  setInputBlock(sessionId: string, block: InputBlock): void {
    this.input.setInputBlock(sessionId, block);
  }

  /** Durably clears "needs attention" and the input block: the session runs here again. */
  clearAttention(sessionId: string): void {
    this.input.clearAttention(sessionId);
  }

  /** Attaches a fresh provider session whose events are recorded and appended. */
  attach(sessionId: string, providerId: string): ProviderSession {
    return this.driver.attach(sessionId, providerId);
  }

  /** Makes `provider` (already made with the session's settings) the session's running provider. */
  run(sessionId: string, provider: ProviderSession): ProviderSession {
    return this.driver.run(sessionId, provider);
  }

  /** Stops and forgets the provider of a session (moved away, or shutting down). */
  detach(sessionId: string): Promise<void> {
    return this.driver.detach(sessionId);
  }

  /** Keeps the provider's export in local state so a restart of this device can resume the session. */
  saveResumeData(sessionId: string, provider: ProviderSession): Promise<void> {
    return this.driver.saveResumeData(sessionId, provider);
  }

  /** Holds the appends of `sessionId`'s events until `until` settles (event-sender.ts, APPEND_HOLD_MAX_MS at most). */
  holdAppends(sessionId: string, until: Promise<unknown>): void {
    this.events.holdAppends(sessionId, until);
  }

  /** Appends one sealed event at this device's generation; a stale refusal marks the session moved. */
  append(sessionId: string, event: SessionEventBody): Promise<ActionResult> {
    return this.events.append(sessionId, event);
  }

  /** Stops driving a session this device no longer owns: provider stopped, input refused as moved. */
  markMoved(sessionId: string): Promise<void> {
    return this.input.markMoved(sessionId);
  }

  /** Applies a backend session record: learns unknown sessions, follows owner and generation. */
  applyRemote(record: Session): Promise<void> {
    return this.puller.applyRemote(record);
  }

  /** Reads every event after the local cursor into transcript and agents (event-puller.ts); `seq`: the event a push announced. */
  pullEvents(sessionId: string, seq?: number): Promise<void> {
    return this.puller.pullEvents(sessionId, seq);
  }

  /** Rebuilds a session whose local record could not be read (`why`) from the backend's record and event stream. */
  rebuild(record: Session, why: string): Promise<void> {
    return rebuildSession(this.rebuilding, record, why);
  }

  /** Re-seals and stores the session metadata (owner only, fenced by generation), unless already published as it is. */
  publishMeta(sessionId: string): Promise<ActionResult> {
    return this.events.publishMeta(sessionId);
  }

  /** Resumes every session this device owns after a restart, as a target would (restart-resume.ts); what it asked before is ended. */
  resumeOwned(): Promise<void> {
    for (const s of this.stateOf.listSessions()) {
      if (s.ownerDeviceId === this.selfId && !this.driver.isRunning(s.id)) this.permissions.endLeftOver(s.id);
    }
    return this.restart.resumeOwned();
  }

  /** Answers a permission request of the session: here on the owner, else relayed sealed and signed to it. */
  answerPermission(sessionId: string, requestId: string, generation: number, answer: PermissionAnswer): Promise<ActionResult> {
    return this.permissions.answer(sessionId, requestId, generation, answer);
  }

  /** Stops the running turn of an owned session, denying what it asks first. */
  interruptTurn(sessionId: string): Promise<ActionResult> {
    return this.permissions.interrupt(sessionId);
  }

  /** Denies the session's pending permission requests: it moves to `targetDeviceId` (quiescing). */
  denyPermissionsForMove(sessionId: string, targetDeviceId: string): Promise<void> {
    return this.permissions.denyForMove(sessionId, this.nameOf(targetDeviceId));
  }

  /** What takes the answers other devices post to the session's permission requests (owner only; read by session-posts.ts). */
  get answers(): PostHandler {
    return this.permissions;
  }

  /** Adds a Baton note (a system entry of the main agent) to the transcript and appends it. */
  note(sessionId: string, text: string): void {
    this.events.note(sessionId, text);
  }

  /** Stops every provider (device shutdown), denying what their agents ask first; local state stays as it is. */
  async stopAll(): Promise<void> {
    await this.permissions.denyAllForStop();
    await this.driver.stopAll();
  }

  private nameOf(deviceId: string): string {
    return this.devicesOf?.nameOf(deviceId) ?? deviceId.slice(0, 8);
  }
}
