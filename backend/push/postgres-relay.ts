/**
 * Push between backend instances on one PostgreSQL database. Every message an instance publishes is
 * delivered to its own streams at once and appended to the shared push log (in publish order, by one
 * writer, in batches), with a NOTIFY. Each instance LISTENs on its own connection; a notification
 * only wakes it: it reads the log by its gap-aware cursor (push-cursor.ts) and delivers what other
 * instances published. The same read runs after the LISTEN connection comes back (with backoff),
 * and every `pollMs` besides, so nothing committed while it was away is missed. The log keeps
 * `retentionMs` of messages; the catch-up covers an outage that long.
 */
import pg from 'pg';
import { PushCursor } from './push-cursor.ts';
import type { PushHub } from './push-hub.ts';

export const PUSH_CHANNEL = 'baton_push';

export interface PostgresRelayOptions {
  url: string;
  /** Commits without waiting for the WAL flush: a push message need not survive the database crashing. */
  quick: pg.Pool;
  hub: PushHub;
  /** This instance's id in the log (its own messages are not delivered twice). */
  instanceId: string;
  log: (line: string) => void;
  pollMs?: number;
  retentionMs?: number;
  /** Shown in pg_stat_activity for the LISTEN connection. */
  applicationName?: string;
}

interface LogRow {
  id: number;
  origin: string;
  account_id: string;
  message: string;
}

const BATCH = 500;
const READ_LIMIT = 5000;

export class PostgresRelay {
  private cursor!: PushCursor;
  private listener: pg.Client | undefined;
  private queue: { accountId: string; json: string }[] = [];
  private writing = false;
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private stopped = false;
  private backoffMs = 250;
  private timers = new Set<ReturnType<typeof setTimeout>>();
  private detach: (() => void) | undefined;

  constructor(private readonly options: PostgresRelayOptions) {}

  /** Starts at the log's end, listens, and relays the hub's messages; resolves once listening. */
  async start(): Promise<void> {
    const { rows } = await this.options.quick.query<{ last: number }>('SELECT coalesce(max(id), 0)::bigint AS last FROM push_log');
    this.cursor = new PushCursor(rows[0]!.last);
    this.detach = this.options.hub.relayTo((accountId, json) => this.publish(accountId, json));
    await this.listen();
    const poll = setInterval(() => this.read(), this.options.pollMs ?? 1000);
    poll.unref();
    this.timers.add(poll as unknown as ReturnType<typeof setTimeout>);
  }

  /** Whether the LISTEN connection is up. */
  get listening(): boolean {
    return this.listener !== undefined;
  }

  /** Appends a message to the log for the other instances (this one delivered it already). */
  publish(accountId: string, json: string): void {
    this.queue.push({ accountId, json });
    if (!this.writing) void this.write();
  }

  /** Drops log entries older than the retention. */
  async prune(): Promise<void> {
    const retentionMs = this.options.retentionMs ?? 120_000;
    await this.options.quick.query(`DELETE FROM push_log WHERE created_at < now() - make_interval(secs => $1)`, [retentionMs / 1000]);
  }

  /** Stops listening and writing (messages still queued are written first). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.detach?.();
    for (const timer of this.timers) clearTimeout(timer);
    while (this.writing) await new Promise((resolve) => setTimeout(resolve, 5));
    await this.reading;
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  private async write(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, BATCH);
        try {
          await this.options.quick.query(
            `WITH added AS (INSERT INTO push_log (origin, account_id, message)
               SELECT $1, a, m FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(a, m, n) ORDER BY n RETURNING 1)
             SELECT pg_notify($4, $1), (SELECT count(*) FROM added)`,
            [this.options.instanceId, batch.map((b) => b.accountId), batch.map((b) => b.json), PUSH_CHANNEL],
          );
        } catch (error) {
          // The other instances' devices catch up by their own re-read when they reconnect; say it once per batch.
          this.options.log(`backend: could not pass ${batch.length} push messages to other instances: ${(error as Error).message}`);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.url, application_name: this.options.applicationName ?? 'baton-listen' });
    const lost = (why: string) => {
      if (this.listener !== client) return;
      this.listener = undefined;
      client.end().catch(() => undefined);
      if (this.stopped) return;
      this.options.log(`backend: push listener lost (${why}); reconnecting`);
      this.reconnectLater();
    };
    client.on('error', (error) => lost(error.message));
    client.on('end', () => lost('connection ended'));
    client.on('notification', () => this.read());
    await client.connect();
    await client.query(`LISTEN ${PUSH_CHANNEL}`);
    this.listener = client;
    this.backoffMs = 250;
    // Whatever was committed while not listening is read now.
    this.read();
  }

  private reconnectLater(): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.stopped) return;
      this.listen().catch((error: Error) => {
        this.options.log(`backend: push listener cannot reconnect yet: ${error.message}`);
        this.backoffMs = Math.min(5000, this.backoffMs * 2);
        this.reconnectLater();
      });
    }, this.backoffMs);
    this.timers.add(timer);
  }

  /** Reads the log by cursor (one read at a time; a wake-up during a read makes one more). */
  private read(): void {
    if (this.stopped && !this.reading) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = (async () => {
      do {
        this.readAgain = false;
        try {
          await this.readOnce();
        } catch (error) {
          this.options.log(`backend: push log read failed: ${(error as Error).message}`);
        }
      } while (this.readAgain && !this.stopped);
    })().finally(() => (this.reading = undefined));
  }

  private async readOnce(): Promise<void> {
    for (;;) {
      const { after, gaps } = this.cursor.query();
      const { rows } = await this.options.quick.query<LogRow>(
        'SELECT id, origin, account_id, message FROM push_log WHERE id > $1 OR id = ANY($2::bigint[]) ORDER BY id LIMIT $3',
        [after, gaps, READ_LIMIT],
      );
      const now = Date.now();
      for (const r of rows) {
        if (this.cursor.take(r.id, now) && r.origin !== this.options.instanceId) this.options.hub.deliver(r.account_id, r.message);
      }
      this.cursor.settle(now);
      if (rows.length < READ_LIMIT) return;
    }
  }
}
