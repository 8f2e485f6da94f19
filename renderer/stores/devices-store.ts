/** The account's devices, the invite being shown, and the device actions. */
import { create } from 'zustand';
import type { DeviceView } from '../../shared/device-api.ts';
import type { Result } from '../../shared/errors.ts';
import { api, errorMessage } from '../api/device-api.ts';

interface DevicesState {
  devices: DeviceView[];
  loaded: boolean;
  /** The invite shown; `usedBy` once a device joined with it. */
  invite: { invite: string; inviteId: string; expiresAt: number; usedBy?: string } | null;
  busy: boolean;
  error: string | null;
  notice: string | null;
  load(): Promise<void>;
  createInvite(): Promise<void>;
  revoke(deviceId: string): Promise<void>;
  rotateKeys(): Promise<void>;
  setDevices(devices: DeviceView[]): void;
  /** A device joined with invite `inviteId` (this device approved it). */
  inviteUsed(inviteId: string, deviceName: string): void;
}

export const useDevicesStore = create<DevicesState>()((set) => {
  /** Runs one device action, reporting its refusal or its notice. */
  async function act<T>(run: () => Promise<Result<T>>, success: (value: T) => string): Promise<void> {
    set({ busy: true, error: null, notice: null });
    try {
      const result = await run();
      set(result.ok ? { busy: false, notice: success(result.value) } : { busy: false, error: result.message });
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
        const made = await api.createInvite({});
        set(made.ok ? { invite: made.value, busy: false } : { busy: false, error: made.message });
      } catch (error) {
        set({ busy: false, error: errorMessage(error) });
      }
    },
    revoke: (deviceId) =>
      act(
        () => api.revokeDevice({ deviceId }),
        () => 'Device revoked. Its requests are refused from now on.',
      ),
    rotateKeys: () =>
      act(
        () => api.rotateKeys({}),
        ({ keyVersion }) => `Keys rotated to version ${keyVersion}. New checkpoints use the new key.`,
      ),
    setDevices: (devices) => set({ devices, loaded: true }),
    inviteUsed: (inviteId, deviceName) =>
      set((state) => (state.invite?.inviteId === inviteId ? { invite: { ...state.invite, usedBy: deviceName } } : {})),
  };
});
