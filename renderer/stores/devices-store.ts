/** The account's devices, the invite being shown, and the device actions. */
import { create } from 'zustand';
import type { DeviceView } from '../../shared/device-api.ts';
import type { Result } from '../../shared/errors.ts';
import { api } from '../api/device-api.ts';
import { failureOf, plainMessage } from '../model/error-words.ts';

interface DevicesState {
  devices: DeviceView[];
  loaded: boolean;
  /**
   * The invite made last, with the devices the account had then (a new one is whoever used it);
   * `thisMachineOnly`: its backend addresses are all loopback ones.
   */
  invite: { invite: string; expiresAt: number; thisMachineOnly: boolean; knownDeviceIds: string[] } | null;
  busy: boolean;
  error: string | null;
  notice: string | null;
  load(): Promise<void>;
  createInvite(): Promise<void>;
  revoke(deviceId: string): Promise<void>;
  /** Rotates the account keys; what came of it is the caller's to say (beside its button), not the screen's notice. */
  rotateKeys(): Promise<{ ok: true; keyVersion: number } | { ok: false; message: string }>;
  setDevices(devices: DeviceView[]): void;
}

export const useDevicesStore = create<DevicesState>()((set, get) => {
  /** Runs one device action, reporting its refusal or its notice. */
  async function act<T>(run: () => Promise<Result<T>>, success: (value: T) => string): Promise<void> {
    set({ busy: true, error: null, notice: null });
    try {
      const result = await run();
      set(result.ok ? { busy: false, notice: success(result.value) } : { busy: false, error: plainMessage(result) });
    } catch (error) {
      set({ busy: false, error: plainMessage(failureOf(error)) });
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
        set({ error: plainMessage(failureOf(error)), loaded: true });
      }
    },
    createInvite: async () => {
      set({ busy: true, error: null, notice: null });
      try {
        const made = await api.createInvite({});
        const knownDeviceIds = get().devices.map((device) => device.id);
        set(made.ok ? { invite: { ...made.value, knownDeviceIds }, busy: false } : { busy: false, error: plainMessage(made) });
      } catch (error) {
        set({ busy: false, error: plainMessage(failureOf(error)) });
      }
    },
    revoke: (deviceId) =>
      act(
        () => api.revokeDevice({ deviceId }),
        () =>
          'Device revoked. Its requests are refused from now on, and the account keys were renewed: it cannot open what is sealed from now on.',
      ),
    rotateKeys: async () => {
      set({ busy: true, error: null, notice: null });
      try {
        const rotated = await api.rotateKeys({});
        return rotated.ok ? { ok: true, keyVersion: rotated.value.keyVersion } : { ok: false, message: plainMessage(rotated) };
      } catch (error) {
        return { ok: false, message: plainMessage(failureOf(error)) };
      } finally {
        set({ busy: false });
      }
    },
    setDevices: (devices) => set({ devices, loaded: true }),
  };
});
