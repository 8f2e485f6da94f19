/** This device's own settings for moves, as its parts read them (kept in the device's profile: runtime/compose.ts). */
import type { MoveSettings } from '../../shared/carry.ts';

export interface MoveSettingsPort {
  /** The settings now. */
  get(): MoveSettings;
  /** Keeps `next` (in the profile) and answers with it. */
  set(next: MoveSettings): MoveSettings;
}

/** The most carried work this device sends, in bytes. */
export function carryLimitBytes(settings: Pick<MoveSettingsPort, 'get'>): number {
  return settings.get().carryLimitMiB * 1024 * 1024;
}
