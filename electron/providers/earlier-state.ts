/**
 * Whether a provider session file already on this device is an earlier state of the one an import
 * brings: its entries (non-blank lines) the first entries of the incoming file, in order. Both CLIs
 * only ever append to a session's file (`claude --resume`, `codex exec resume`: checked against the
 * real binaries), so a file that is not a prefix went on somewhere else — continued here in the
 * terminal while the session was away — or is another session under the same id: an import must
 * not replace it. The two files are read side by side, a line of each at a time, never whole.
 */
import type { LineHandler } from '../io/line-reader.ts';

/** A file's lines, each handed to `each` in order (forEachLine, forEachTextLine); resolves with their count. */
export type LineSource = (each: LineHandler) => Promise<number>;

/** Whether two lines are the same entry (each adapter knows what an import may rewrite in one). */
export type SameEntry = (mine: string, theirs: string) => boolean;

const STOP = Symbol('stop');
const isBlank = (line: string) => line.charCodeAt(0) !== 0x7b && line.trim() === '';

/**
 * True when every entry of `existing` is, in order, the same entry (by `same`) as the incoming
 * file's at that place. A failure to read `existing` (damaged, a line over the limit) counts as
 * not earlier; one reading `incoming` rejects.
 */
export async function isEarlierState(existing: LineSource, incoming: LineSource, same: SameEntry): Promise<boolean> {
  const theirs = pullLines(incoming);
  let earlier = true;
  try {
    await existing(async (line) => {
      if (isBlank(line)) return;
      const next = await theirs.next();
      if (next === null || !same(line, next)) {
        earlier = false;
        throw STOP;
      }
    });
  } catch (error) {
    if (error !== STOP && theirs.failed(error)) throw error;
    earlier = false;
  } finally {
    theirs.stop();
  }
  return earlier;
}

/** `source`'s non-blank lines taken one at a time: `next` resolves with the next one, null at the end. */
function pullLines(source: LineSource): { next(): Promise<string | null>; stop(): void; failed(error: unknown): boolean } {
  let offered: string | null | undefined; // undefined: nothing waiting
  let resume: (() => void) | null = null;
  let waiting: { resolve(line: string | null): void; reject(error: unknown): void } | null = null;
  let failure: { error: unknown } | null = null;
  let stopped = false;
  let started = false;
  const offer = (line: string | null) => {
    if (waiting) {
      const taker = waiting;
      waiting = null;
      taker.resolve(line);
    } else offered = line;
  };
  const start = () => {
    started = true;
    source((line) => {
      if (stopped) throw STOP;
      if (isBlank(line)) return;
      return new Promise<void>((go) => {
        resume = go;
        offer(line);
      });
    }).then(
      () => offer(null),
      (error: unknown) => {
        if (error === STOP) return;
        failure = { error };
        waiting?.reject(error);
        waiting = null;
      },
    );
  };
  return {
    next() {
      if (!started) start();
      const go = resume;
      resume = null;
      go?.();
      if (failure) return Promise.reject(failure.error);
      if (offered !== undefined) {
        const line = offered;
        offered = undefined;
        return Promise.resolve(line);
      }
      return new Promise((resolve, reject) => (waiting = { resolve, reject }));
    },
    stop() {
      stopped = true;
      const go = resume;
      resume = null;
      go?.();
    },
    failed: (error) => failure !== null && failure.error === error,
  };
}

/** A line as JSON without its top-level `without` fields, re-serialized: two lines that differ only there give the same; null when not an object. */
export function entryWithout(line: string, without: readonly string[]): string | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const entry = { ...(value as Record<string, unknown>) };
  for (const key of without) delete entry[key];
  return JSON.stringify(entry);
}
