/** This device's enrollment and the page's connection to it. */
import { create } from 'zustand';
import type { BackendKeyProbe } from '../../shared/backend-keys.ts';
import type { DeviceStatusView } from '../../shared/device-api.ts';
import type { MoveSettings } from '../../shared/carry.ts';
import type { CodedMessage, Result } from '../../shared/errors.ts';
import { errorMessage, failureOf } from '../model/error-words.ts';
import { api } from '../api/device-api.ts';
import type { ConnectionState } from '../api/websocket-client.ts';

interface StatusState {
  status: DeviceStatusView | null;
  connection: ConnectionState;
  busy: boolean;
  error: string | null;
  load(): Promise<void>;
  /**
   * Each enrollment call resolves to its refusal (code and message), or null once done. `backendUrls`:
   * a backend run elsewhere (null: this device hosts it); `backendPins`: the keys first contact found
   * there and the person confirmed (none: a public CA's certificate, or http).
   */
  createAccount(backendUrls: string[] | null, deviceName: string, backendPins?: string[]): Promise<CodedMessage | null>;
  /** First contact with each address: the key it presents and whether the system trusts it (null: the device did not answer). */
  checkBackendKeys(backendUrls: string[]): Promise<BackendKeyProbe[] | null>;
  /** Accepts these backend keys from now on (the re-pin). */
  pinBackendKeys(backendPins: string[]): Promise<CodedMessage | null>;
  /** `backendUrls`: addresses to use instead of the invite's (none: the invite's). */
  joinAccount(invite: string, deviceName: string, backendUrls?: string[]): Promise<CodedMessage | null>;
  /** Points this device at other backend addresses (kept in its profile). */
  setBackendUrls(backendUrls: string[]): Promise<CodedMessage | null>;
  /** Lets other machines reach the backend this device hosts, or only this one. */
  shareBackend(shared: boolean): Promise<CodedMessage | null>;
  /** Sets this device's move settings: Carry my changes by default, and how much it carries (kept in its profile). */
  setMoveSettings(moveSettings: MoveSettings): Promise<CodedMessage | null>;
  setStatus(status: DeviceStatusView): void;
  setConnection(connection: ConnectionState): void;
}

export const useStatusStore = create<StatusState>()((set) => {
  /** Runs one enrollment call, keeping busy and error in step. */
  async function enroll(run: () => Promise<Result<DeviceStatusView>>): Promise<CodedMessage | null> {
    set({ busy: true, error: null });
    try {
      const enrolled = await run();
      set(enrolled.ok ? { status: enrolled.value, busy: false } : { busy: false, error: enrolled.message });
      return enrolled.ok ? null : { code: enrolled.code, message: enrolled.message };
    } catch (error) {
      set({ busy: false, error: errorMessage(error) });
      return failureOf(error);
    }
  }
  return {
    status: null,
    connection: 'connecting',
    busy: false,
    error: null,
    load: async () => {
      try {
        set({ status: await api.getStatus({}), error: null });
      } catch (error) {
        set({ error: errorMessage(error) });
      }
    },
    createAccount: (backendUrls, deviceName, backendPins) =>
      enroll(() =>
        api.createAccount(
          backendUrls === null
            ? { deviceName }
            : backendPins && backendPins.length > 0
              ? { backendUrls, deviceName, backendPins }
              : { backendUrls, deviceName },
        ),
      ),
    checkBackendKeys: async (backendUrls) => {
      set({ busy: true, error: null });
      try {
        const probes = await api.checkBackendKeys({ backendUrls });
        set({ busy: false });
        return probes;
      } catch (error) {
        set({ busy: false, error: errorMessage(error) });
        return null;
      }
    },
    pinBackendKeys: (backendPins) => enroll(() => api.pinBackendKeys({ backendPins })),
    joinAccount: (invite, deviceName, backendUrls) =>
      enroll(() => api.joinAccount(backendUrls && backendUrls.length > 0 ? { invite, deviceName, backendUrls } : { invite, deviceName })),
    setBackendUrls: (backendUrls) => enroll(() => api.setBackendUrls({ backendUrls })),
    shareBackend: (shared) => enroll(() => api.shareBackend({ shared })),
    setMoveSettings: (moveSettings) => enroll(() => api.setMoveSettings({ moveSettings })),
    setStatus: (status) => set({ status }),
    setConnection: (connection) => set({ connection }),
  };
});
