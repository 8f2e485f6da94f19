/** The backend this device hosts for its account, as the runtime sees it (electron/hosting/backend-host.ts behind it). */
import type { HostedBackendView } from '../../shared/device-api.ts';
import type { Result } from '../../shared/errors.ts';

export interface HostingPort {
  /** Its state, port, whether other machines may reach it and at which addresses. */
  view(): HostedBackendView;
  /** Lets other machines reach it (every address of the machine), or only this one; kept across restarts. */
  setShared(shared: boolean): Promise<Result<HostedBackendView>>;
  /** The addresses an invite made now carries: the ones other machines use when it is shared, else its loopback one. */
  inviteAddresses(): string[];
  /** Stops hosting for good (the device now uses a backend elsewhere); its data stays where it is. */
  retire(): Promise<void>;
  /** Calls `listener` when its view changes; returns its unsubscribe. */
  subscribe(listener: () => void): () => void;
}
