/**
 * The push log: every published message gets a position in it before it reaches any stream, so a
 * device's stream carries its place (stream-cursor.ts) and a reconnecting stream is replayed what it
 * missed instead of the device re-reading its state. On PostgreSQL the log is the shared `push_log`
 * table (postgres-relay.ts); with the SQLite data folder (one instance) it is `MemoryPushLog`, a
 * bounded log in memory: a restart starts a new log, and devices then catch up in full, as they
 * would after any gap the log no longer covers.
 */
import { randomBytes } from 'node:crypto';

/** Where a log hands each message once it has its position: this instance's streams (the PushHub). */
export interface LogDelivery {
  deliver(accountId: string, json: string, position?: number): void;
}

/** One logged message. */
export interface LoggedMessage {
  id: number;
  json: string;
}

export interface PushLog {
  /** This log's name (cursors of another log are not used here). */
  readonly logId: string;
  /** Logs a message; the log hands it to the hub's streams with its position (`hub.deliver`). */
  append(accountId: string, json: string): void;
  /** Resolves once every message appended before the call has its position in the log (or could not be logged). */
  written(): Promise<void>;
  /** Every position at or below this has been delivered to this instance's hub (or given up on). */
  floor(): number;
  /**
   * The account's messages after `after` that this instance has delivered to its hub, in order, or
   * `too_old` when the log no longer holds everything after `after`.
   */
  since(accountId: string, after: number): Promise<LoggedMessage[] | 'too_old'>;
  /** Forgets messages older than the log keeps. */
  prune(): Promise<void>;
  stop(): Promise<void>;
}

/** The most messages a replay returns; a device further behind catches up in full. */
export const MAX_REPLAY = 10_000;

interface Entry extends LoggedMessage {
  accountId: string;
  at: number;
}

/** The one-instance log: positions 1, 2, 3… in publish order, the last `capacity` messages of `retentionMs` kept. */
export class MemoryPushLog implements PushLog {
  readonly logId = `m${randomBytes(8).toString('hex')}`;
  private last = 0;
  /** Every position at or below this has been forgotten. */
  private horizon = 0;
  private entries: Entry[] = [];
  private head = 0;

  constructor(
    private readonly hub: LogDelivery,
    private readonly options: { capacity?: number; retentionMs?: number; clock?: () => number } = {},
  ) {}

  append(accountId: string, json: string): void {
    const id = ++this.last;
    this.entries.push({ id, accountId, json, at: (this.options.clock ?? Date.now)() });
    if (this.entries.length - this.head > (this.options.capacity ?? 10_000)) this.forget(this.head + 1);
    this.hub.deliver(accountId, json, id);
  }

  floor(): number {
    return this.last;
  }

  async written(): Promise<void> {}

  async since(accountId: string, after: number): Promise<LoggedMessage[] | 'too_old'> {
    if (after < this.horizon) return 'too_old';
    const found: LoggedMessage[] = [];
    for (let i = this.head; i < this.entries.length; i++) {
      const entry = this.entries[i]!;
      if (entry.id > after && entry.accountId === accountId) found.push({ id: entry.id, json: entry.json });
    }
    return found.length > MAX_REPLAY ? 'too_old' : found;
  }

  async prune(): Promise<void> {
    const cutoff = (this.options.clock ?? Date.now)() - (this.options.retentionMs ?? 120_000);
    let end = this.head;
    while (end < this.entries.length && this.entries[end]!.at < cutoff) end++;
    this.forget(end);
  }

  async stop(): Promise<void> {}

  /** Forgets the entries before index `end`. */
  private forget(end: number): void {
    if (end <= this.head) return;
    this.horizon = this.entries[end - 1]!.id;
    this.head = end;
    if (this.head > 4096 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }
}
