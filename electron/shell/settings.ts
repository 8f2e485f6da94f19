/** The shell's settings, kept with electron-store: where the profile lives and the window's bounds. */
import { join } from 'node:path';
import Store from 'electron-store';

export interface ShellSettings {
  profileDir: string;
  workspaceRoot: string;
  windowBounds: { width: number; height: number; x?: number; y?: number };
}

/** Opens the settings store with defaults under `userData` and `home`. */
export function openSettings(userData: string, home: string): Store<ShellSettings> {
  return new Store<ShellSettings>({
    name: 'settings',
    defaults: {
      profileDir: join(userData, 'profile'),
      workspaceRoot: join(home, 'Baton', 'workspaces'),
      windowBounds: { width: 1280, height: 820 },
    },
  });
}
