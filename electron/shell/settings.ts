/**
 * The shell's settings, kept with electron-store: where the profile lives, the backend addresses
 * the device uses (set from the set-up screen or Devices → Sync backend; none: the profile's own),
 * and the window's bounds.
 */
import { join } from 'node:path';
import Store from 'electron-store';

export interface ShellSettings {
  profileDir: string;
  workspaceRoot: string;
  /** The backend addresses, tried in order; an empty list leaves the profile's. */
  backendUrls: string[];
  windowBounds: { width: number; height: number; x?: number; y?: number };
}

/** Opens the settings store with defaults under `userData` and `home`. */
export function openSettings(userData: string, home: string): Store<ShellSettings> {
  return new Store<ShellSettings>({
    name: 'settings',
    defaults: {
      profileDir: join(userData, 'profile'),
      workspaceRoot: join(home, 'Baton', 'workspaces'),
      backendUrls: [],
      windowBounds: { width: 1280, height: 820 },
    },
  });
}
