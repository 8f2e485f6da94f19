/**
 * The turn observer, the session half of the one test seam (handoff/test-seam.ts holds the step
 * gate and says what the seam may not change): told of every provider turn that starts or ends on
 * this device with the generation and owner the device knew then, so a test can tell that no turn
 * ran on a device that did not own the session. A shipped device has none; a device built with one
 * runs the same turns in the same order, since the observer may neither throw nor wait. The file of
 * turns a harness device keeps is dev-env/turn-records.ts.
 */

/** One provider turn starting or ending on this device. */
export interface TurnRecord {
  deviceId: string;
  sessionId: string;
  /** `ended` also when the device stopped the provider (moved away, shutting down) mid-turn. */
  event: 'started' | 'ended';
  /** The session generation this device held when the turn started or ended. */
  generation: number;
  /** The owner as this device knew it then. */
  ownerDeviceId: string;
  at: number;
  interrupted?: boolean;
}

/** Told of each provider turn that starts or ends; it must not throw or wait. */
export type TurnObserver = (record: TurnRecord) => void;
