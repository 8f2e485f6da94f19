/**
 * The account's devices as this device knows them (from the backend list and `device` pushes),
 * their unsealed capabilities, and the eligibility of each for a session, with the reason when not.
 */
import { z } from 'zod';
import type { Device } from '../../shared/api/devices.ts';
import type { DeviceView, EligibilityView } from '../../shared/device-api.ts';
import { agentLabel, continuationAgent } from '../../shared/agent-switch.ts';
import { isProviderId, type ProviderId } from '../../shared/provider.ts';
import type { Blocker } from '../../shared/readiness.ts';
import { olderCliReason } from '../../shared/cli-version.ts';
import { TARGET_OFFLINE_AFTER_MS } from '../git/target-checks.ts';
import type { LocalSession } from '../local-state/local-state.ts';
import type { Clock } from '../ports/clock.ts';
import type { BackendPort } from '../ports/backend.ts';
import type { DeviceCapabilities, DevicesPort, SessionToPlace, TargetCheck } from '../ports/devices.ts';
import type { SealPort } from '../ports/seal.ts';

const CapabilitiesSchema = z.object({
  providers: z.array(z.string()),
  git: z.boolean(),
  remotes: z.array(z.string()),
  keyVersions: z.array(z.number()),
  providerVersions: z.record(z.string(), z.string()).optional(),
});

export class DeviceDirectory implements DevicesPort {
  private readonly devices = new Map<string, Device>();
  private listedAt: number | null = null;

  constructor(
    private readonly selfId: string,
    private readonly seal: SealPort,
    private readonly clock: Clock,
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

  /** Whether the device sent a heartbeat within the last 15 s (git/target-checks.ts TARGET_OFFLINE_AFTER_MS). */
  isOnline(device: Device): boolean {
    if (device.id === this.selfId) return true;
    return device.lastSeenAt !== null && this.clock() - device.lastSeenAt <= TARGET_OFFLINE_AFTER_MS;
  }

  /** The device's published capabilities, unsealed; null when absent or unreadable. */
  capabilities(device: Device): DeviceCapabilities | null {
    if (device.sealedCapabilities === null) return null;
    const opened = this.seal.openJson(device.sealedCapabilities, { kind: 'capabilities', deviceId: device.id });
    if (!opened.ok) return null;
    const parsed = CapabilitiesSchema.safeParse(opened.value);
    return parsed.success ? parsed.data : null;
  }

  /** Every device as the UI lists it. */
  views(): DeviceView[] {
    return [...this.devices.values()].map((device) => ({
      id: device.id,
      name: device.name,
      status: device.status,
      online: device.status === 'enrolled' && this.isOnline(device),
      lastSeenAt: device.lastSeenAt,
      isThisDevice: device.id === this.selfId,
    }));
  }

  /** The target-side blockers of moving `session` to `targetId` (empty when eligible). */
  targetBlockers(session: SessionToPlace, targetId: string, check: TargetCheck): Blocker[] {
    const device = this.devices.get(targetId) ?? null;
    return check({
      device,
      online: device !== null && this.isOnline(device),
      capabilities: device === null ? null : this.capabilities(device),
      requiredProvider: session.provider,
      requiredKeyVersion: Math.max(0, ...this.seal.keyVersions()),
      repos: session.repos,
    });
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
   * and one without the session's agent but with another is offered as "continue with" that agent.
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
          warning: summary || older,
          continueWith,
        };
      });
  }
}
