/**
 * Where one device's push stream is in the push log, carried as the SSE id of every event it is sent
 * (`LOG:FLOOR` or `LOG:FLOOR.ID.ID…`) and handed back as `Last-Event-ID` when the stream reconnects,
 * to this instance or another on the same database. FLOOR: every message of the account at or
 * below it was sent to the device (or was before its full catch-up); the IDs above it were sent as
 * well (a message committed late into a gap of the log arrives after higher ones). LOG names the log,
 * so a cursor from another log (a restarted SQLite backend, another database) is not trusted.
 */

/** A parsed `Last-Event-ID`. */
export interface StreamPosition {
  logId: string;
  floor: number;
  seen: number[];
}

const CURSOR = /^([A-Za-z0-9-]{1,64}):(\d{1,15})((?:\.\d{1,15}){0,256})$/;

/** Reads a `Last-Event-ID` header; undefined for none, or one that is not a cursor of ours. */
export function parseStreamPosition(text: string | string[] | undefined): StreamPosition | undefined {
  if (typeof text !== 'string' || text.length > 4096) return undefined;
  const match = CURSOR.exec(text);
  if (!match) return undefined;
  const seen = match[3] ? match[3].slice(1).split('.').map(Number) : [];
  return { logId: match[1]!, floor: Number(match[2]), seen };
}

/** The positions one stream has sent; admits each position once. */
export class StreamCursor {
  private floorId: number;
  private readonly seen = new Set<number>();

  constructor(floor: number, seen: readonly number[] = []) {
    this.floorId = floor;
    for (const id of seen) if (id > floor) this.seen.add(id);
  }

  get floor(): number {
    return this.floorId;
  }

  /** True (and recorded) when `id` was not sent yet; false for one already sent. */
  admit(id: number): boolean {
    if (id <= this.floorId || this.seen.has(id)) return false;
    this.seen.add(id);
    return true;
  }

  /** Raises the floor to `floor` (the instance's: everything at or below it has reached this stream). */
  raise(floor: number): void {
    if (floor <= this.floorId) return;
    this.floorId = floor;
    for (const id of this.seen) if (id <= floor) this.seen.delete(id);
  }

  /** The SSE id text for log `logId`. */
  format(logId: string): string {
    const above = [...this.seen].sort((x, y) => x - y);
    return `${logId}:${this.floorId}${above.map((id) => `.${id}`).join('')}`;
  }
}
