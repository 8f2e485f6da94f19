/**
 * The turn log (HandoffConfig.testTurnLog, tests only): one JSON line per provider turn that starts
 * or ends on this device, with the session's owner and generation as this device knew them then.
 * The fault matrix (dev-env/fault-matrix/) reads the logs of both devices after killing, pausing or
 * cutting off one of them, and checks every turn against the backend's record of who owned the
 * session when: no turn may run on a device that does not own the session.
 */
import { appendFileSync } from 'node:fs';

/** One line of the turn log. */
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

export type TurnLog = (record: TurnRecord) => void;

/**
 * A turn log that appends each record to `path` as one line, synchronously, so a device killed
 * right after a turn started has logged it. A failed write is reported to `log` and dropped.
 */
export function turnLogFile(path: string, log: (message: string) => void): TurnLog {
  return (record) => {
    try {
      appendFileSync(path, `${JSON.stringify(record)}\n`);
    } catch (error) {
      log(`turn log ${path} not written: ${(error as Error).message}`);
    }
  };
}
