/**
 * What the owner writes into a session's transcript about answers it refused. Each refusal goes to the
 * device log; the transcript, which every device syncs and shows, gets at most one note per session in
 * each NOTE_INTERVAL_MS: the first refusal after a quiet interval at once, in its own words, and the
 * refusals that follow within the interval as one summary when it ends. So a device that floods a
 * session with answers nobody asked for grows its transcript by a note a minute, not a note an answer.
 */

/** The shortest time between two refusal notes of one session. */
export const REFUSAL_NOTE_INTERVAL_MS = 60_000;

export interface RefusalNotesDeps {
  /** Writes a Baton note into the session's transcript. */
  note(sessionId: string, text: string): void;
  log(message: string): void;
  /** The interval (default REFUSAL_NOTE_INTERVAL_MS). */
  intervalMs?: number;
}

interface Held {
  /** Refusals held for the next summary, by the device that posted them. */
  byDevice: Map<string, number>;
  /** Their reasons, each once, in the order first seen. */
  reasons: Set<string>;
  timer: ReturnType<typeof setTimeout>;
}

export class RefusalNotes {
  /** Sessions inside an interval: what they hold for its summary. */
  private readonly held = new Map<string, Held>();

  constructor(private readonly deps: RefusalNotesDeps) {}

  /** Records that an answer `deviceName` posted to `sessionId` was refused because of `reason` (lower case, no period). */
  refused(sessionId: string, deviceName: string, reason: string): void {
    this.deps.log(`session ${sessionId}: refused an answer from ${deviceName}: ${reason}`);
    const held = this.held.get(sessionId);
    if (held) {
      held.byDevice.set(deviceName, (held.byDevice.get(deviceName) ?? 0) + 1);
      held.reasons.add(reason);
      return;
    }
    this.deps.note(sessionId, `An answer from ${deviceName} was refused: ${reason}.`);
    this.open(sessionId);
  }

  /** Stops the timers; what they held is not written (the device stops). */
  stop(): void {
    for (const held of this.held.values()) clearTimeout(held.timer);
    this.held.clear();
  }

  private open(sessionId: string): void {
    const timer = setTimeout(() => this.close(sessionId), this.deps.intervalMs ?? REFUSAL_NOTE_INTERVAL_MS);
    timer.unref?.();
    this.held.set(sessionId, { byDevice: new Map(), reasons: new Set(), timer });
  }

  /** The interval ended: the summary of what it held, if anything, which opens the next interval. */
  private close(sessionId: string): void {
    const held = this.held.get(sessionId);
    this.held.delete(sessionId);
    if (!held || held.byDevice.size === 0) return;
    const count = [...held.byDevice.values()].reduce((a, b) => a + b, 0);
    const from = [...held.byDevice.keys()].join(', ');
    const what = count === 1 ? `1 more answer from ${from} was refused` : `${count} more answers from ${from} were refused`;
    const why = [...held.reasons].slice(0, 3).join('; ');
    const more = held.reasons.size > 3 ? ` (and ${held.reasons.size - 3} other reasons; the device log has each)` : '';
    this.deps.note(sessionId, `${what}: ${why}${more}.`);
    this.open(sessionId);
  }
}
