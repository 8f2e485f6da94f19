/**
 * Where an account's sync backend runs, as Devices says it on every device: on this device (the
 * backend it hosts, and whether other machines may reach it), on another device of the account, or
 * elsewhere (a backend run on its own).
 */

/** The backend this device hosts for its account (Devices shows it and its state). */
export interface HostedBackendView {
  /** `failed`: it could not start (`error` says why); it is tried again at the next start. */
  state: 'starting' | 'running' | 'failed';
  /** The port it listens on (the same at every start: other machines rely on it). */
  port: number;
  /** Whether other machines may reach it, or only this one. */
  shared: boolean;
  /** The addresses other machines reach it at (`https://ADDRESS:PORT`), most likely first; none when the machine has none. */
  addresses: string[];
  /** Why it is not running, in words (failed only). */
  error: string | null;
}

/** Where the account's sync backend runs, as Devices says it on every device. */
export type BackendHomeView =
  | { where: 'this-device'; hosted: HostedBackendView }
  /** Hosted by another device of the account (its name as this device last knew it). */
  | { where: 'device'; deviceId: string; deviceName: string }
  /** A backend run on its own (a server): its addresses say where. */
  | { where: 'elsewhere' };
