/** The account's devices, the invite being shown, and the device actions. */
import { create } from 'zustand';
import type { ActionResult, DeviceView } from '../../shared/device-api.ts';
import { api, errorMessage } from '../api/device-api.ts';

interface DevicesState {
  devices: DeviceView[];
  loaded: boolean;
  invite: { invite: string; expiresAt: number } | null;
  busy: boolean;
  error: string | null;
  notice: string | null;
  load(): Promise<void>;
  createInvite(): Promise<void>;
  revoke(deviceId: string): Promise<void>;
  rotateKeys(): Promise<void>;
  setDevices(devices: DeviceView[]): void;
}

export const useDevicesStore = create<DevicesState>()((set) => {
  /** Runs one device action, reporting its refusal or its notice. */
  async function act(run: () => Promise<ActionResult & { keyVersion?: number }>, success: (keyVersion?: number) => string): Promise<void> {
    set({ busy: true, error: null, notice: null });
    try {
      const result = await run();
      set(result.ok ? { busy: false, notice: success(result.keyVersion) } : { busy: false, error: result.message });
    } catch (error) {
      set({ busy: false, error: errorMessage(error) });
    }
  }
  return {
    devices: [],
    loaded: false,
    invite: null,
    busy: false,
    error: null,
    notice: null,
    load: async () => {
      try {
        set({ devices: await api.listDevices({}), loaded: true });
      } catch (error) {
        set({ error: errorMessage(error), loaded: true });
      }
    },
    createInvite: async () => {
      set({ busy: true, error: null, notice: null });
      try {
        set({ invite: await api.createInvite({}), busy: false });
      } catch (error) {
        set({ busy: false, error: errorMessage(error) });
      }
    },
    revoke: (deviceId) => act(() => api.revokeDevice({ deviceId }), () => 'Device revoked. Its requests are refused from now on.'),
    rotateKeys: () => act(() => api.rotateKeys({}), (v) => `Keys rotated${v === undefined ? '' : ` to version ${v}`}. New checkpoints use the new key.`),
    setDevices: (devices) => set({ devices, loaded: true }),
  };
});
