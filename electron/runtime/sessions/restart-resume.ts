/**
 * Resuming after a restart: every session this device owns and may run is resumed as a target
 * would resume it — import of the locally kept export where the provider supports it, else summary
 * continuation from the session's own transcript — and the path taken is recorded on the session
 * and said in its transcript. A rebuilt session whose workspace is back runs again.
 */
import type { ResumeData } from '../../../shared/provider.ts';
import type { LocalSession, LocalState } from '../../local-state/local-state.ts';
import type { ChangeSink } from '../../ports/changes.ts';
import type { Clock } from '../../ports/clock.ts';
import type { ProviderPort } from '../../ports/providers.ts';
import { CONTINUATION_TAIL_ENTRIES, continuationInput } from '../../providers/continuation-input.ts';
import type { EventSender } from './event-sender.ts';
import type { ProviderDriver } from './provider-driver.ts';
import { workspaceBack, type RebuildDeps } from './session-rebuild.ts';

export interface RestartResumeDeps extends RebuildDeps {
  /** This device's name (what a restart's continuation prompt says the session ran on). */
  selfName?: string;
  state: RebuildDeps['state'] & Pick<LocalState, 'listSessions' | 'session' | 'findTranscriptEntry' | 'newestTranscript'>;
  providers: Pick<ProviderPort, 'resume'>;
  driver: Pick<ProviderDriver, 'attach' | 'detach' | 'isRunning'>;
  events: Pick<EventSender, 'note'>;
  clock: Clock;
  /** Where this part tells what it changed (a session's view, or only its transcript). */
  changes: ChangeSink;
  log(message: string): void;
}

export class RestartResume {
  private readonly resuming = new Set<string>();

  constructor(private readonly deps: RestartResumeDeps) {}

  /**
   * Resumes every session this device owns after a restart, as a target would: import of the
   * locally kept export where the provider supports it, else summary continuation from the
   * session's own transcript. Records the path taken on the session.
   */
  async resumeOwned(): Promise<void> {
    for (const listed of this.deps.state.listSessions()) {
      // A rebuilt session whose workspace is back runs again.
      const session = (await workspaceBack(this.deps, listed)) ? this.deps.state.session(listed.id)! : listed;
      const block = session.inputBlock?.code;
      if (session.ownerDeviceId !== this.deps.selfId || session.needsAttention || block === 'moved' || block === 'not_running') continue;
      // A session quiescing for a move starts no turn; the source resumes it here if that move is cancelled.
      if (block === 'quiescing' || this.deps.driver.isRunning(session.id) || this.resuming.has(session.id) || !session.workspace) continue;
      // Start-up and a cancelled move's clean-up may both ask: one resume per session at a time.
      this.resuming.add(session.id);
      try {
        await this.resumeAfterRestart(session);
      } catch (error) {
        this.deps.log(`could not resume session ${session.id}: ${(error as Error).message}`);
        await this.deps.driver.detach(session.id);
      } finally {
        this.resuming.delete(session.id);
      }
      this.deps.changes.emit('sessionChanged', { sessionId: session.id });
    }
  }

  private async resumeAfterRestart(session: LocalSession): Promise<void> {
    const repos = await this.deps.git.repos({ workspace: session.workspace, repoPaths: session.repoPaths });
    const continuation = continuationInput({
      title: session.title,
      ranOn: this.deps.selfName ?? null,
      goal: (await this.deps.state.findTranscriptEntry(session.id, (e) => e.role === 'user'))?.text ?? '',
      newest: this.deps.state.newestTranscript(session.id, CONTINUATION_TAIL_ENTRIES),
      repos: repos.map((r) => ({ relPath: r.relPath, branch: r.branch, commit: r.head })),
      drift: [],
      nextAction: 'This device restarted; continue where the session left off.',
    });
    const provider = this.deps.driver.attach(session.id, session.provider);
    // The kept export is checked by the resume itself, which says why it fell back to a summary when refused.
    const resumed = await this.deps.providers.resume(
      provider,
      session.providerResume as ResumeData | null,
      continuation,
      session.workspace,
    );
    if (!resumed.ok) {
      this.deps.log(`could not resume session ${session.id}: ${resumed.message}`);
      await this.deps.driver.detach(session.id);
      return;
    }
    const { path, reason } = resumed.value;
    const at = this.deps.clock();
    this.deps.state.updateSession(session.id, (s) => {
      s.restartResume = { path, reason: reason ?? null, at };
    });
    this.deps.log(`resumed session ${session.id} after a restart by ${path}${reason ? ` (${reason})` : ''}`);
    const how = path === 'checkpoint-import' ? 'by importing the session it kept' : 'from a summary of its own transcript';
    const who = this.deps.selfName ?? 'This device';
    this.deps.events.note(session.id, `${who} restarted; the session resumed ${how}.${reason ? ` ${reason}` : ''}`);
  }
}
