/**
 * The account's devices as this device knows them (from the backend list and `device` pushes),
 * their unsealed capabilities, and the eligibility of each for a session, with the reason when not.
 */
import { z } from 'zod';
import type { Device } from '../../shared/api/devices.ts';
import type { DeviceView, EligibilityView } from '../../shared/device-api.ts';
import { agentLabel, continuationAgent, otherAgents } from '../../shared/agent-switch.ts';
import { isProviderId, type ProviderId } from '../../shared/provider.ts';
import type { Blocker } from '../../shared/readiness.ts';
import { olderCliReason } from '../../shared/cli-version.ts';
import type { LocalSession } from '../local-state/local-state.ts';
import type { Clock } from '../ports/clock.ts';
import type { BackendPort } from '../ports/backend.ts';
import type { DeviceCapabilities, DevicesPort, SessionToPlace, TargetCheck } from '../ports/devices.ts';
import type { SealPort } from '../ports/seal.ts';
import { presenceChangesAt, presenceOf, type Presence } from './device-presence.ts';

/** An offline blocker worded for what is known: the device stopped, went silent, or cannot be told (no backend). */
function offlineWorded(blocker: Blocker, name: string, presence: Presence): Blocker {
  if (blocker.code !== 'target_offline') return blocker;
  if (presence.state === 'unknown')
    return {
      ...blocker,
      message: `Whether ${name} is online is not known: this device cannot reach the sync backend.`,
      fix: "Check this device's network and the sync backend, then try again.",
    };
  if (presence.stopped) return { ...blocker, message: `Baton on ${name} was stopped.`, fix: `Start Baton on ${name}, then try again.` };
  if (presence.since === null) return { ...blocker, message: `${name} has not come online yet.` };
  return { ...blocker, message: `${name} stopped sending heartbeats, so it is taken to be offline.` };
}

const CapabilitiesSchema = z.object({
  providers: z.array(z.string()),
  git: z.boolean(),
  remotes: z.array(z.string()),
  keyVersions: z.array(z.number()),
  providerVersions: z.record(z.string(), z.string()).optional(),
  heartbeatMs: z.number().int().positive().optional(),
  stoppedAt: z.number().optional(),
});

/** Whether this device reaches its backend now, and since when it does not (what presence is judged through). */
export type BackendReach = () => { reached: boolean; since: number | null };

const ALWAYS_REACHED: BackendReach = () => ({ reached: true, since: null });

export class DeviceDirectory implements DevicesPort {
  private readonly devices = new Map<string, Device>();
  private listedAt: number | null = null;
  /** When this device first saw each device's current reason not to take a session (device id → code → when). */
  private readonly reasonsSeen = new Map<string, Map<string, number>>();

  constructor(
    private readonly selfId: string,
    private readonly seal: SealPort,
    private readonly clock: Clock,
    private readonly backend: BackendReach = ALWAYS_REACHED,
  ) {}

  /** Replaces the whole list (after a listDevices). */
  replaceAll(devices: Device[]): void {
    this.devices.clear();
    for (const device of devices) this.devices.set(device.id, device);
    this.listedAt = this.clock();
  }

  /** Reads the whole list from the backend; false (the list kept as it was) when the backend did not answer it. */
  async refresh(backend: Pick<BackendPort, 'listDevices'>): Promise<boolean> {
    const listed = await backend.listDevices();
    if (listed.ok) this.replaceAll(listed.value);
    return listed.ok;
  }

  /** Whether the whole list was read from the backend within the last `ms`. */
  listedWithin(ms: number): boolean {
    return this.listedAt !== null && this.clock() - this.listedAt <= ms;
  }

  /** Applies one `device` push. */
  upsert(device: Device): void {
    this.devices.set(device.id, device);
  }

  get(id: string): Device | undefined {
    return this.devices.get(id);
  }

  /** The device's name, or a short id when unknown. */
  nameOf(id: string): string {
    return this.devices.get(id)?.name ?? id.slice(0, 8);
  }

  /** Whether the device is online, as far as is known now (device-presence.ts). */
  presence(device: Device): Presence {
    return presenceOf(device, this.capabilities(device), { selfId: this.selfId, now: this.clock(), backend: this.backend() });
  }

  /** Whether the device is known to be online now: a recent heartbeat, seen through a backend this device reaches. */
  isOnline(device: Device): boolean {
    return this.presence(device).state === 'online';
  }

  /** When some device's presence changes next by time alone (its heartbeats stop counting), or null. */
  nextPresenceChange(): number | null {
    const times = [...this.devices.values()]
      .filter((d) => d.id !== this.selfId && this.isOnline(d))
      .map((d) => presenceChangesAt(d, this.capabilities(d)))
      .filter((t) => t !== null);
    return times.length === 0 ? null : Math.min(...times);
  }

  /** The device's published capabilities, unsealed; null when absent or unreadable. */
  capabilities(device: Device): DeviceCapabilities | null {
    if (device.sealedCapabilities === null) return null;
    const opened = this.seal.openJson(device.sealedCapabilities, { kind: 'capabilities', deviceId: device.id });
    if (!opened.ok) return null;
    const parsed = CapabilitiesSchema.safeParse(opened.value);
    return parsed.success ? parsed.data : null;
  }

  /** Every device as the UI lists it: online only when known now, else offline or unknown since when. */
  views(): DeviceView[] {
    return [...this.devices.values()].map((device) => {
      const presence = this.presence(device);
      return {
        id: device.id,
        name: device.name,
        status: device.status,
        online: device.status === 'enrolled' && presence.state === 'online',
        presence: presence.state,
        offlineSince: presence.state === 'offline' ? presence.since : null,
        lastSeenAt: device.lastSeenAt,
        isThisDevice: device.id === this.selfId,
      };
    });
  }

  /** The target-side blockers of moving `session` to `targetId` (empty when eligible). */
  targetBlockers(session: SessionToPlace, targetId: string, check: TargetCheck): Blocker[] {
    const device = this.devices.get(targetId) ?? null;
    const presence = device === null ? null : this.presence(device);
    const blockers = check({
      device,
      online: presence?.state === 'online',
      capabilities: device === null ? null : this.capabilities(device),
      requiredProvider: session.provider,
      requiredKeyVersion: Math.max(0, ...this.seal.keyVersions()),
      repos: session.repos,
    });
    return device === null || presence === null ? blockers : blockers.map((b) => offlineWorded(b, device.name, presence));
  }

  /**
   * The agent `targetId` would continue `session` with instead of its own, when it lacks the
   * session's agent but has another (shared/agent-switch.ts), else null.
   */
  continuationFor(session: SessionToPlace, targetId: string): ProviderId | null {
    const device = this.devices.get(targetId);
    const available = (device && this.capabilities(device)?.providers) ?? [];
    return continuationAgent(available, session.provider);
  }

  /**
   * Eligibility of every other device for `session`, each with its first reason when not; an eligible
   * device whose CLI is older than `sourceVersion` (this device's, which wrote the session) is warned,
   * one without the session's agent but with another is offered as "continue with" that agent, and
   * each lists its other real agents, which the person may pick instead (a summary continuation).
   */
  eligibility(session: LocalSession, check: TargetCheck, sourceVersion: string | null = null): EligibilityView[] {
    return [...this.devices.values()]
      .filter((device) => device.id !== this.selfId && device.status !== 'revoked')
      .map((device) => {
        let first = this.targetBlockers(session, device.id, check)[0];
        const continueWith = first?.code === 'target_missing_provider' ? this.continuationFor(session, device.id) : null;
        if (continueWith) first = this.targetBlockers({ ...session, provider: continueWith }, device.id, check)[0];
        const version = this.capabilities(device)?.providerVersions?.[session.provider] ?? null;
        const older =
          first === undefined && continueWith === null && isProviderId(session.provider)
            ? olderCliReason(session.provider, { name: device.name, version }, sourceVersion)
            : null;
        const summary = continueWith && {
          code: 'summary_continuation',
          message: `Continue with ${agentLabel(continueWith)}: a summary continuation (${device.name} has no ${agentLabel(session.provider)}).`,
        };
        return {
          deviceId: device.id,
          name: device.name,
          eligible: first === undefined,
          reason: first === undefined ? null : { code: first.code, message: first.message },
          since: first === undefined ? null : this.reasonSince(device, first),
          checkedAt: this.clock(),
          warning: summary || older,
          continueWith,
          otherAgents: otherAgents(this.capabilities(device)?.providers ?? [], session.provider, continueWith),
        };
      });
  }

  /** Since when `blocker` keeps `device` from taking a session: when it went offline, else when this device first saw it. */
  private reasonSince(device: Device, blocker: Blocker): number | null {
    if (blocker.code === 'target_offline') return this.presence(device).since;
    if (blocker.code === 'target_not_enrolled' && device.revokedAt !== null) return device.revokedAt;
    const seen = this.reasonsSeen.get(device.id) ?? new Map<string, number>();
    this.reasonsSeen.set(device.id, seen);
    for (const code of seen.keys()) if (code !== blocker.code) seen.delete(code);
    if (!seen.has(blocker.code)) seen.set(blocker.code, this.clock());
    return seen.get(blocker.code)!;
  }
}
