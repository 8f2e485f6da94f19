/**
 * This device's status as the UI shows it: who it is, the backend addresses it uses and whether it
 * reaches them. A change of addresses (from the UI) or of reachability is sent as `statusChanged`.
 */
import type { DeviceStatusView } from '../../shared/device-api.ts';
import { fail, ok, type Result } from '../../shared/errors.ts';
import type { BackendLinkPort } from '../ports/backend.ts';
import type { DeviceEvents } from './device-events.ts';

/** The status of an enrolled device that does not change while it runs (revocation is read from the link). */
export type DeviceIdentity = DeviceStatusView & { deviceId: string; deviceName: string; accountId: string };

export class DeviceStatus {
  constructor(
    readonly identity: DeviceIdentity,
    private readonly link: BackendLinkPort,
    private readonly events: Pick<DeviceEvents, 'emit'>,
  ) {}

  /** The device's status now: who it is, its backend addresses, whether it reaches them, the keys it accepts, whether it was revoked. */
  view(): DeviceStatusView {
    return {
      ...this.identity,
      backendUrls: this.link.addresses(),
      reachability: this.link.reachability(),
      backendKey: this.link.key(),
      revokedAt: this.link.revokedAt(),
    };
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
    this.link.setAddresses(urls);
    const status = this.view();
    this.events.emit('statusChanged', status);
    return ok(status);
  }

  /** Tells the UI the status whenever reachability changes; returns the function that stops it. */
  watch(): () => void {
    return this.link.subscribe(() => this.events.emit('statusChanged', this.view()));
  }
}
