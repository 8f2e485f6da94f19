/**
 * What the user does to move a session, behind the device API's move handlers: which devices can
 * take it, its readiness, starting and cancelling the move, the git remediations readiness offers
 * (each followed by a fresh evaluation), a failed activation retried, and the session's handoffs.
 */
import { detectedVersion } from '../../shared/cli-version.ts';
import type { EligibilityView, HandoffView, MoveResult } from '../../shared/device-api.ts';
import { fail, ok, type ActionResult, type Failure } from '../../shared/errors.ts';
import { isTerminal } from '../../shared/handoff-states.ts';
import type { ProviderId } from '../../shared/provider.ts';
import type { ReadinessReport } from '../../shared/readiness.ts';
import { activateCheckpoint, type ActivationDeps } from '../handoff/activation.ts';
import type { Coordinator } from '../handoff/coordinator.ts';
import type { MoveOptions, MoveRequests } from '../handoff/move-request.ts';
import type { LocalState } from '../local-state/local-state.ts';
import type { BackendPort } from '../ports/backend.ts';
import type { ChangeSink } from '../ports/changes.ts';
import type { Clock } from '../ports/clock.ts';
import type { TargetCheck } from '../ports/devices.ts';
import type { GitPort, RemediationPort } from '../ports/git.ts';
import type { ProviderPort } from '../ports/providers.ts';
import type { MoveSettingsPort } from '../ports/settings.ts';
import type { DeviceDirectory } from './device-directory.ts';
import type { DeviceEvents } from './device-events.ts';
import type { DeviceViews } from './device-views.ts';
import type { MoveBlocks } from './move-blocks.ts';
import { blockedNotice } from './move-notices.ts';
import { newestPage, type HistoryPage } from './history-page.ts';
import type { SessionService } from './sessions/session-service.ts';

export interface MoveServiceDeps {
  selfId: string;
  selfName: string;
  state: Pick<LocalState, 'session' | 'readSession' | 'updateSession'>;
  backend: Pick<BackendPort, 'listDevices' | 'blobLimit' | 'getHandoff' | 'listHandoffs'>;
  git: Pick<GitPort, 'repos' | 'sourceReadiness'>;
  remediation: RemediationPort;
  providers: Pick<ProviderPort, 'list'>;
  devices: Pick<DeviceDirectory, 'replaceAll' | 'eligibility' | 'nameOf'>;
  targetCheck: TargetCheck;
  requests: MoveRequests;
  handoffs: Pick<Coordinator, 'observe' | 'get' | 'forSession' | 'cancelByUser'>;
  sessions: Pick<SessionService, 'clearAttention' | 'publishMeta' | 'note' | 'provider' | 'saveResumeData' | 'switchAgent'>;
  /** What activating a checkpoint again uses (the target's own activation). */
  activation: ActivationDeps;
  views: Pick<DeviceViews, 'handoff' | 'titleOf'>;
  /** The session's blocked move (part of its state): recorded when readiness refuses, cleared when it passes or a move starts. */
  blocks: Pick<MoveBlocks, 'of' | 'fromReport' | 'clear'>;
  events: Pick<DeviceEvents, 'emit'>;
  /** Where a change of a session's view is told (a retried activation that failed again). */
  changes: ChangeSink;
  /** This device's move settings: whether a Move carries the work unless told otherwise. */
  settings: Pick<MoveSettingsPort, 'get'>;
  clock: Clock;
}

const NO_SUCH_SESSION = fail('not_found', 'No such session.');

export class MoveService {
  constructor(private readonly deps: MoveServiceDeps) {}

  /** Whether each other device can take the session, and why not. */
  async eligibility(sessionId: string): Promise<EligibilityView[]> {
    const { backend, devices, state, providers } = this.deps;
    // The backend's blob limit is learnt beside the device list, so the Move that follows asks for neither.
    const [listed] = await Promise.all([backend.listDevices(), backend.blobLimit()]);
    if (listed.ok) devices.replaceAll(listed.value);
    const session = state.readSession(sessionId);
    if (!session) return [];
    return devices.eligibility(session, this.deps.targetCheck, detectedVersion(await providers.list(), session.provider));
  }

  /** Continues the session here with agent `to` (Switch agent), unless a move of it is under way. */
  switchAgent(sessionId: string, to: ProviderId): Promise<ActionResult> {
    if (this.deps.handoffs.forSession(sessionId).some((h) => !isTerminal(h.state)))
      return Promise.resolve(fail('handoff_in_progress', 'A move of this session is in progress; switch once it has ended.'));
    return this.deps.sessions.switchAgent(sessionId, to);
  }

  /**
   * The whole readiness report for moving the session to `targetDeviceId`, or to the device its
   * blocked move was for; with neither, this device's side only. A re-check of a blocked move
   * records what it found: still blocked, or cleared — and a Move here it blocked then starts on its
   * own, as the device that asked for it asked (docs/moving-sessions.md).
   */
  async readiness(sessionId: string, targetDeviceId?: string): Promise<ReadinessReport> {
    const block = this.deps.blocks.of(sessionId);
    const target = targetDeviceId ?? block?.targetDeviceId;
    const report = await this.deps.requests.evaluate(sessionId, target);
    if (!block || target !== block.targetDeviceId) return report;
    this.deps.blocks.fromReport(sessionId, target, report, block.askedBy);
    if (report.ready && block.askedBy !== null) {
      const started = await this.start(sessionId, target, { initiatorDeviceId: block.askedBy });
      if (!started.ok) return 'report' in started ? started.report : report;
    }
    return report;
  }

  /**
   * Starts the move when ready (clearing a blocked one); a blocked one is recorded on the session
   * (every device shows it, after a reload too) and told as a desktop notice. `options`: into a
   * fresh clone on the target, the device that asked (the target, by Move here; the one a blocked
   * Move here to that target names, when the owner's own button goes on with it), the agent it
   * continues with, and whether it carries the work (absent: as this device's settings say).
   */
  async start(sessionId: string, targetDeviceId: string, options: MoveOptions & { generation?: number } = {}): Promise<MoveResult> {
    const movedOn = this.movedOn(sessionId, options.generation);
    if (movedOn) return movedOn;
    const block = this.deps.blocks.of(sessionId);
    const askedBy = options.initiatorDeviceId ?? (block?.targetDeviceId === targetDeviceId ? block.askedBy : null) ?? undefined;
    const carry = options.carry !== undefined ? options.carry : this.deps.settings.get().carryByDefault ? { confirmedFiles: [] } : null;
    const withCarry = { ...options, carry };
    const asked = askedBy === undefined || askedBy === this.deps.selfId ? withCarry : { ...withCarry, initiatorDeviceId: askedBy };
    const started = await this.deps.requests.start(sessionId, targetDeviceId, asked);
    if (started.ok) this.deps.blocks.clear(sessionId);
    if (!started.ok && 'report' in started) {
      this.deps.blocks.fromReport(sessionId, targetDeviceId, started.report, asked.initiatorDeviceId ?? null);
      const move = { sessionId, title: this.deps.views.titleOf(sessionId), sourceName: this.deps.selfName };
      const targetName = this.deps.devices.nameOf(targetDeviceId);
      this.deps.events.emit('moveNotice', blockedNotice({ ...move, targetName, blockers: started.report.blockers }, this.deps.clock()));
    }
    return started;
  }

  /** Why a button drawn at `generation` no longer applies (the session moved on since), or null. */
  private movedOn(sessionId: string, generation: number | undefined): Failure | null {
    const session = this.deps.state.session(sessionId);
    if (generation === undefined || !session || (session.generation === generation && session.ownerDeviceId === this.deps.selfId))
      return null;
    const where = session.ownerDeviceId === this.deps.selfId ? 'this device' : this.deps.devices.nameOf(session.ownerDeviceId);
    return fail('stale_generation', `The session moved meanwhile: it runs on ${where} now. Nothing was moved.`);
  }

  /** Cancels the session's move for the user. */
  cancel(sessionId: string): Promise<ActionResult> {
    return this.deps.handoffs.cancelByUser(sessionId);
  }

  /** Pushes one repository of the session, then evaluates its readiness again. */
  push(sessionId: string, repo: string): Promise<{ result: ActionResult; report: ReadinessReport }> {
    return this.remediate(sessionId, repo, (path) => this.deps.remediation.push(path));
  }

  /** Commits everything in one repository of the session, then evaluates its readiness again. */
  commitAll(sessionId: string, repo: string, message: string): Promise<{ result: ActionResult; report: ReadinessReport }> {
    return this.remediate(sessionId, repo, (path) => this.deps.remediation.commitAll(path, message));
  }

  /**
   * One page of the session's handoffs, newest first, as the backend lists them (each observed; a page
   * reads `page.limit` records however long the history), as the UI shows them. Offline: the ones this
   * device knows, paged the same way.
   */
  async history(sessionId: string, page: HistoryPage): Promise<HandoffView[]> {
    const { handoffs, views } = this.deps;
    const listed = await this.deps.backend.listHandoffs({ sessionId, limit: page.limit, ...(page.before ? { before: page.before } : {}) });
    if (!listed.ok) return newestPage(handoffs.forSession(sessionId), page).map((h) => views.handoff(h));
    for (const h of listed.value) handoffs.observe(h);
    return listed.value.map((h) => views.handoff(handoffs.get(h.id) ?? h));
  }

  /** Runs the activation of a failed handoff's checkpoint again (the target keeps ownership). */
  async retryActivation(sessionId: string): Promise<ActionResult> {
    const { state, sessions } = this.deps;
    const session = state.session(sessionId);
    if (!session?.needsAttention) return fail('not_needed', 'The session does not need attention.');
    if (session.needsAttention.handoffId === null)
      return fail('not_an_activation', session.needsAttention.fix ?? 'The session needs attention, but not a failed activation.');
    const handoff = await this.deps.backend.getHandoff(session.needsAttention.handoffId);
    if (!handoff.ok) return fail(handoff.code, handoff.message);
    const result = await activateCheckpoint(this.deps.activation, handoff.value);
    if (!result.ok) {
      state.updateSession(sessionId, (s) => {
        s.needsAttention = { handoffId: handoff.value.id, code: result.code, message: result.message };
      });
      this.deps.changes.emit('sessionChanged', { sessionId });
      return fail(result.code, result.message);
    }
    sessions.clearAttention(sessionId);
    await sessions.publishMeta(sessionId);
    const { resumePath, note, drift } = result.value;
    const found = drift.length === 0 ? 'no drift' : `drift: ${drift.map((d) => d.detail).join('; ')}`;
    const how = resumePath === 'checkpoint-import' ? 'by importing its checkpoint' : 'from a summary of its checkpoint';
    const said = `Activation retried on ${this.deps.selfName} and succeeded: the session resumed ${how} (${found}).`;
    sessions.note(sessionId, `${said}${note ? ` ${note}` : ''}`);
    const provider = sessions.provider(sessionId);
    if (provider) await sessions.saveResumeData(sessionId, provider);
    return ok(undefined);
  }

  private async remediate(sessionId: string, repo: string, act: (path: string) => Promise<ActionResult>) {
    const { state, git } = this.deps;
    const session = state.session(sessionId);
    if (!session) return { result: NO_SUCH_SESSION, report: { ready: false, blockers: [], repos: [], evaluatedAt: this.deps.clock() } };
    const repos = await git.repos(session);
    const target = repos.find((r) => r.path === repo || r.relPath === repo);
    const result = target ? await act(target.path) : fail('not_found', 'That repository is not part of the session.');
    return { result, report: await this.readiness(sessionId) };
  }
}
