/** Caps on blob uploads in progress at once, per device and per account. */

/** Counts uploads in progress; a device or account at its cap gets no slot until one is given back. */
export class UploadSlots {
  private readonly devices = new Map<string, number>();
  private readonly accounts = new Map<string, number>();

  constructor(
    readonly perDevice: number,
    readonly perAccount: number,
  ) {}

  /** Takes a slot for an upload by `deviceId` of `accountId`; undefined when either is at its cap. The returned function gives it back (once). */
  take(accountId: string, deviceId: string): (() => void) | undefined {
    if ((this.devices.get(deviceId) ?? 0) >= this.perDevice || (this.accounts.get(accountId) ?? 0) >= this.perAccount) return undefined;
    bump(this.devices, deviceId, 1);
    bump(this.accounts, accountId, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      bump(this.devices, deviceId, -1);
      bump(this.accounts, accountId, -1);
    };
  }
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next > 0) counts.set(key, next);
  else counts.delete(key);
}
