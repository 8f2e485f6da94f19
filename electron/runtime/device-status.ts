/**
 * This device's status as the UI shows it: who it is, the backend addresses it uses and whether it
 * reaches them, and where the account's backend runs (the one it hosts, or the device hosting it). A
 * change of addresses (from the UI), of reachability or of the hosted backend is sent as `statusChanged`.
 */
import type { BackendHomeView, DeviceStatusView } from '../../shared/device-api.ts';
import { fail, ok, type Result } from '../../shared/errors.ts';
import type { MoveSettings } from '../../shared/carry.ts';
import type { BackendLinkPort } from '../ports/backend.ts';
import type { HostingPort } from '../ports/hosting.ts';
import type { MoveSettingsPort } from '../ports/settings.ts';
import type { DeviceEvents } from './device-events.ts';

/** Where the backend runs when this device hosts none: the device that does (kept in the profile), or none. */
export interface BackendHomeRecord {
  get(): { deviceId: string; name: string } | null;
  /** Forgets it (the device was pointed at a backend elsewhere). */
  forget(): void;
}

/** The status of an enrolled device that does not change while it runs (revocation is read from the link). */
export type DeviceIdentity = Omit<DeviceStatusView, 'moveSettings'> & { deviceId: string; deviceName: string; accountId: string };

export class DeviceStatus {
  constructor(
    readonly identity: DeviceIdentity,
    private readonly link: BackendLinkPort,
    private readonly events: Pick<DeviceEvents, 'emit'>,
    private readonly settings: MoveSettingsPort,
    private home: { hosting: HostingPort | null; host: BackendHomeRecord | null } = { hosting: null, host: null },
  ) {}

  /** The device's status now: who it is, its backend addresses, whether it reaches them, the keys it accepts, whether it was revoked. */
  view(): DeviceStatusView {
    return {
      ...this.identity,
      backendUrls: this.link.addresses(),
      reachability: this.link.reachability(),
      backendKey: this.link.key(),
      backendHome: this.backendHome(),
      revokedAt: this.link.revokedAt(),
      moveSettings: this.settings.get(),
    };
  }

  /** Where the account's backend runs: on this device, on another device of the account, or elsewhere. */
  private backendHome(): BackendHomeView {
    if (this.home.hosting) return { where: 'this-device', hosted: this.home.hosting.view() };
    const host = this.home.host?.get() ?? null;
    return host ? { where: 'device', deviceId: host.deviceId, deviceName: host.name } : { where: 'elsewhere' };
  }

  /** Lets other machines reach the backend this device hosts, or only this one; refused when it hosts none. */
  async shareBackend(shared: boolean): Promise<Result<DeviceStatusView>> {
    const { hosting } = this.home;
    if (!hosting)
      return fail('not_hosting', 'The sync backend does not run on this device: ask on the device it runs on, or whoever runs it.');
    const changed = await hosting.setShared(shared);
    const status = this.view();
    this.events.emit('statusChanged', status);
    return changed.ok ? ok(status) : changed;
  }

  /** Keeps `next` as this device's move settings (in the profile), tells the UI and answers with the status. */
  setMoveSettings(next: MoveSettings): DeviceStatusView {
    this.settings.set(next);
    const status = this.view();
    this.events.emit('statusChanged', status);
    return status;
  }

  /** Accepts the backend keys `pins` from now on (kept in the profile) and tells the UI; resolves to the status with them. */
  pinBackendKeys(pins: readonly string[]): DeviceStatusView {
    this.link.setPins(pins);
    const status = this.view();
    this.events.emit('statusChanged', status);
    return status;
  }

  /** Whether the backend refused this device as revoked. */
  revoked(): boolean {
    return this.link.revokedAt() !== null;
  }

  /**
   * Tries `urls` first (health and a signed call); when one works, uses them from now on (kept in the
   * profile), tells the UI and resolves to the status with them. Otherwise nothing changes and the
   * answer says why, and which addresses stay in use.
   */
  async setBackendUrls(urls: readonly string[]): Promise<Result<DeviceStatusView>> {
    const tried = await this.link.probe(urls);
    if (!tried.ok) {
      const kept = this.link.addresses().join(', ');
      return fail(tried.code, `${tried.message} Nothing was changed: this device still uses ${kept}.`);
    }
    const before = this.link.addresses();
    this.link.setAddresses(urls);
    // Pointed at a backend elsewhere: this device hosts it no more, and one that shares no address with the old was moved.
    if (this.home.hosting) {
      await this.home.hosting.retire();
      this.home = { ...this.home, hosting: null };
    } else if (!urls.some((url) => before.includes(url))) this.home.host?.forget();
    const status = this.view();
    this.events.emit('statusChanged', status);
    return ok(status);
  }

  /** Tells the UI the status whenever reachability or the hosted backend changes; returns the function that stops it. */
  watch(): () => void {
    const tell = () => this.events.emit('statusChanged', this.view());
    const stops = [this.link.subscribe(tell), this.home.hosting?.subscribe(tell) ?? (() => undefined)];
    return () => stops.forEach((stop) => stop());
  }
}
