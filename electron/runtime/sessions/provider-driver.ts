/**
 * Driving the providers of the sessions this device owns: one running provider session per
 * session, its events recorded in local state and sent (the transcript entry by entry, the agent
 * map as one snapshot at most every 50 ms), its export kept after each turn so a restart can
 * resume it, and every turn that starts or ends told to the turn observer when one is given.
 */
import { DEFAULT_PERMISSION_LEVEL, isProviderId, type ProviderEvent, type ProviderSession } from '../../../shared/provider.ts';
import type { LocalState } from '../../local-state/local-state.ts';
import type { ChangeSink } from '../../ports/changes.ts';
import type { Clock } from '../../ports/clock.ts';
import type { ProviderPort } from '../../ports/providers.ts';
import type { EventSender } from './event-sender.ts';
import type { TurnObserver } from './turn-observer.ts';

export interface ProviderDriverDeps {
  selfId: string;
  state: Pick<LocalState, 'readSession' | 'updateSession' | 'transcriptCount' | 'settled' | 'pruneExports'>;
  providers: Pick<ProviderPort, 'create'>;
  events: Pick<EventSender, 'append' | 'appendEntry'>;
  /** Told of every event of a running provider: its permission requests are asked here (runtime/permissions/). */
  permissions?: { onProviderEvent(sessionId: string, provider: ProviderSession, event: ProviderEvent): void };
  clock: Clock;
  /** Where this part tells what it changed (a session's view, or only its transcript). */
  changes: ChangeSink;
  log(message: string): void;
  /** Told of every provider turn that starts or ends here, with the generation and owner known then. */
  observeTurn?: TurnObserver;
}

export class ProviderDriver {
  private readonly live = new Map<string, { provider: ProviderSession; unsubscribe: () => void }>();
  private readonly agentFlush = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(private readonly deps: ProviderDriverDeps) {}

  /** The running provider of an owned session, if any. */
  provider(sessionId: string): ProviderSession | undefined {
    return this.live.get(sessionId)?.provider;
  }

  /** Whether a provider runs the session here. */
  isRunning(sessionId: string): boolean {
    return this.live.has(sessionId);
  }

  /** Attaches a fresh provider session whose events are recorded and appended. */
  attach(sessionId: string, providerId: string): ProviderSession {
    if (!isProviderId(providerId)) throw new Error(`unknown provider ${providerId}`);
    const permission = this.deps.state.readSession(sessionId)?.permission ?? DEFAULT_PERMISSION_LEVEL;
    return this.run(sessionId, this.deps.providers.create(providerId, { permission }));
  }

  /** Makes `provider` (already made with the session's settings) the session's running provider: its events are recorded and appended. */
  run(sessionId: string, provider: ProviderSession): ProviderSession {
    void this.detach(sessionId);
    const unsubscribe = provider.onEvent((event) => this.onProviderEvent(sessionId, provider, event));
    this.live.set(sessionId, { provider, unsubscribe });
    return provider;
  }

  /** Stops and forgets the provider of a session (moved away, or shutting down). */
  async detach(sessionId: string): Promise<void> {
    const entry = this.live.get(sessionId);
    if (!entry) return;
    this.live.delete(sessionId);
    entry.unsubscribe();
    // The turn the stop ends is no longer heard of (unsubscribed): say here that it ended.
    if (entry.provider.isTurnActive()) this.tellTurn(sessionId, 'ended', true);
    await entry.provider.stop().catch(() => undefined);
  }

  /**
   * Keeps the provider's export in local state so a restart of this device can resume the session:
   * small JSON naming the CLI's own files. Provider files a checkpoint unpacked here are then no
   * longer needed and are removed.
   */
  async saveResumeData(sessionId: string, provider: ProviderSession): Promise<void> {
    if (!provider.capabilities.checkpointImport) return;
    const exported = await provider.exportResumeData();
    if (!exported.ok) return;
    this.deps.state.updateSession(sessionId, (s) => {
      s.providerResume = exported.value;
    });
    await this.deps.state.settled().catch(() => undefined);
    await this.deps.state.pruneExports(sessionId);
  }

  /** Stops every provider (device shutdown); local state stays as it is. */
  async stopAll(): Promise<void> {
    for (const timer of this.agentFlush.values()) clearTimeout(timer);
    this.agentFlush.clear();
    await Promise.all([...this.live.keys()].map((id) => this.detach(id)));
  }

  private tellTurn(sessionId: string, event: 'started' | 'ended', interrupted?: boolean): void {
    if (!this.deps.observeTurn) return;
    const session = this.deps.state.readSession(sessionId);
    this.deps.observeTurn({
      deviceId: this.deps.selfId,
      sessionId,
      event,
      generation: session?.generation ?? 0,
      ownerDeviceId: session?.ownerDeviceId ?? '',
      at: this.deps.clock(),
      ...(interrupted === undefined ? {} : { interrupted }),
    });
  }

  private onProviderEvent(sessionId: string, provider: ProviderSession, event: ProviderEvent): void {
    this.deps.permissions?.onProviderEvent(sessionId, provider, event);
    if (event.type === 'turn-started' || event.type === 'turn-ended') {
      this.tellTurn(
        sessionId,
        event.type === 'turn-started' ? 'started' : 'ended',
        event.type === 'turn-ended' ? event.interrupted : undefined,
      );
    }
    if (event.type === 'transcript') {
      this.deps.events.appendEntry(sessionId, event.entry);
      // What the provider says about itself (a CLI's own error line, a refused permission, an import) goes to the device log too.
      if (event.entry.role === 'system') this.deps.log(`session ${sessionId} (${provider.provider}): ${event.entry.text}`);
    } else if (event.type === 'agent') {
      this.deps.state.updateSession(
        sessionId,
        (s) => {
          s.agents = [...s.agents.filter((a) => a.id !== event.agent.id), event.agent];
        },
        false,
      );
      this.scheduleAgentSnapshot(sessionId);
      this.deps.changes.emit('sessionActivity', { sessionId, transcriptFrom: this.deps.state.transcriptCount(sessionId) });
    } else if (event.type === 'turn-ended') {
      void this.saveResumeData(sessionId, provider);
    }
  }

  private scheduleAgentSnapshot(sessionId: string): void {
    if (this.agentFlush.has(sessionId)) return;
    this.agentFlush.set(
      sessionId,
      setTimeout(() => {
        this.agentFlush.delete(sessionId);
        const session = this.deps.state.readSession(sessionId);
        if (session) void this.deps.events.append(sessionId, { type: 'agents', agents: session.agents });
      }, 50),
    );
  }
}
