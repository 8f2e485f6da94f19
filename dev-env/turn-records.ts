/**
 * The turns a harness device reports (its turn observer, electron/runtime/sessions/turn-observer.ts),
 * kept in a file of one JSON line per provider turn that starts or ends, and read back. The fault
 * matrix checks them against the backend's record of who owned the session when.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { TurnObserver, TurnRecord } from '../electron/runtime/sessions/turn-observer.ts';

/**
 * An observer that appends each record to `path` as one line, synchronously, so a device killed
 * right after a turn started has written it. A failed write is reported to `log` and dropped.
 */
export function turnFile(path: string, log: (message: string) => void): TurnObserver {
  return (record) => {
    try {
      appendFileSync(path, `${JSON.stringify(record)}\n`);
    } catch (error) {
      log(`turn file ${path} not written: ${(error as Error).message}`);
    }
  };
}

/** Every turn recorded in `path` (none when it does not exist). */
export function readTurns(path: string): TurnRecord[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as TurnRecord);
}
