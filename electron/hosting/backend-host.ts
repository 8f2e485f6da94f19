/**
 * The backend this device hosts for its account, from the device's side: started (through an engine:
 * hosting-engine.ts) before the device's runtime and stopped after it, on the port it keeps, over
 * HTTPS with the key its data folder keeps, which this device pins. It listens on this machine only
 * until the person lets other machines reach it (Devices); then on every address of the machine, and
 * invites carry the addresses other machines use (network-addresses.ts). The choice and the port are
 * kept in the profile (`hosting`), so the next start serves the same way at the same address.
 */
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import type { HostedBackendView } from '../../shared/device-api.ts';
import { fail, ok, type Result } from '../../shared/errors.ts';
import type { HostingRequest } from '../../shared/hosting.ts';
import type { HostingRecord } from '../enrollment/profile.ts';
import type { HostingPort } from '../ports/hosting.ts';
import type { HostingEngine } from './hosting-engine.ts';
import { hostedInviteUrls, networkBackendUrls, reachableAddresses } from './network-addresses.ts';

export interface BackendHostOptions {
  engine: HostingEngine;
  /** Where its data is, its port and whether other machines may reach it. */
  record: HostingRecord;
  /** Told of every change to the record (a new port, sharing on or off; null once retired), for the profile to keep. */
  keep(record: HostingRecord | null): void;
  /** The machine's interfaces (default: os.networkInterfaces()). */
  interfaces?: () => NodeJS.Dict<NetworkInterfaceInfo[]>;
  log(message: string): void;
}

/** This device's own address of a backend it hosts on `port`. */
export function ownBackendUrl(port: number): string {
  return `https://127.0.0.1:${port}`;
}

export class BackendHost implements HostingPort {
  private record: HostingRecord;
  private state: HostedBackendView['state'] = 'starting';
  private error: string | null = null;
  private fingerprint: string | null = null;
  private retired = false;
  private readonly listeners = new Set<() => void>();
  /** One start, share or stop at a time, in the order asked. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: BackendHostOptions) {
    this.record = { ...options.record };
  }

  /** The record as kept now. */
  kept(): HostingRecord {
    return { ...this.record };
  }

  /** This device's address of it (loopback, whatever it listens on). */
  ownUrl(): string {
    return ownBackendUrl(this.record.port);
  }

  /** Starts it as recorded; resolves to this device's address of it and its key to pin, or why it did not start. */
  start(): Promise<Result<{ url: string; pin: string }>> {
    return this.serialized(async () => {
      const started = await this.run();
      return started.ok ? ok({ url: this.ownUrl(), pin: started.value }) : started;
    });
  }

  view(): HostedBackendView {
    return {
      state: this.state,
      port: this.record.port,
      shared: this.record.shared,
      addresses: this.record.shared ? this.networkUrls() : [],
      error: this.error,
    };
  }

  setShared(shared: boolean): Promise<Result<HostedBackendView>> {
    return this.serialized(async () => {
      if (this.retired) return fail('not_hosting', 'This device no longer hosts the sync backend.');
      if (this.record.shared === shared && this.state === 'running') return ok(this.view());
      const before = this.record;
      this.record = { ...before, shared };
      await this.options.engine.stop();
      const started = await this.run();
      if (started.ok) {
        this.options.log(
          shared
            ? `other machines may reach the sync backend on port ${this.record.port}`
            : 'the sync backend listens on this machine only',
        );
        return ok(this.view());
      }
      // Serve as before, and say why the change did not happen.
      this.record = before;
      await this.run();
      return fail(started.code, started.message);
    });
  }

  inviteAddresses(): string[] {
    return hostedInviteUrls(this.record.port, this.record.shared, this.interfaces());
  }

  retire(): Promise<void> {
    return this.serialized(async () => {
      if (this.retired) return;
      this.retired = true;
      await this.options.engine.stop();
      this.options.keep(null);
      this.options.log(`this device no longer hosts the sync backend; its data stays in ${this.record.dataDir}`);
      this.changed();
    });
  }

  /** Stops it (the device is stopping); the record stays, so the next start serves it again. */
  stop(): Promise<void> {
    return this.serialized(() => this.options.engine.stop());
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts the engine on the record; keeps a port the engine had to change; resolves to the key's fingerprint. */
  private async run(): Promise<Result<string>> {
    this.state = 'starting';
    this.error = null;
    this.changed();
    const request: HostingRequest = {
      dataDir: this.record.dataDir,
      port: this.record.port,
      // Once other machines were told the port, it stays; before, a taken one gives way to a free one.
      portFixed: this.record.shared,
      shared: this.record.shared,
      names: this.addresses(),
    };
    const started = await this.options.engine.start(request);
    if (!started.ok) {
      this.state = 'failed';
      this.error = started.message;
      this.options.log(`the sync backend on this device did not start: ${started.message}`);
      this.changed();
      return started;
    }
    if (started.value.port !== this.record.port) {
      this.options.log(`port ${this.record.port} is in use; the sync backend on this device moved to port ${started.value.port}`);
      this.record = { ...this.record, port: started.value.port };
    }
    this.options.keep(this.kept());
    this.fingerprint = started.value.fingerprint;
    this.state = 'running';
    this.changed();
    return ok(this.fingerprint);
  }

  private interfaces(): NodeJS.Dict<NetworkInterfaceInfo[]> {
    return (this.options.interfaces ?? networkInterfaces)();
  }

  private addresses(): string[] {
    return reachableAddresses(this.interfaces()).map((a) => a.address);
  }

  private networkUrls(): string[] {
    return networkBackendUrls(this.record.port, this.interfaces());
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
