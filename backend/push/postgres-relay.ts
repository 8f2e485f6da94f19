/**
 * Push between backend instances on one PostgreSQL database, through the shared push log. Every
 * message an instance publishes is appended to the log (in publish order, by one writer, in batches)
 * with a NOTIFY, and delivered to its own streams as soon as its position comes back. Each instance
 * LISTENs on its own connection; a notification only wakes it: it reads the log by its gap-aware
 * cursor (push-cursor.ts) and delivers what other instances published. The same read runs after the
 * LISTEN connection comes back (with backoff), and every `pollMs` besides, so nothing committed
 * while it was away is missed. A message is taken by the cursor once (whichever of the writer or the
 * reader gets there first) and delivered, with its position, in log order: one written here while a
 * lower id (another instance's message, committing late) is not read yet waits for it. So every
 * stream gets one account's messages in the order of the log, and the cursor's floor is a true
 * statement about every stream here. The log keeps `retentionMs` of messages; the catch-up, and the
 * replay to a reconnecting device (`since`), cover an outage that long.
 */
import pg from 'pg';
import { prepared } from '../store/postgres/tx.ts';
import { PushCursor } from './push-cursor.ts';
import type { PushHub } from './push-hub.ts';
import { MAX_REPLAY, type LoggedMessage, type PushLog } from './push-log.ts';

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

export class PostgresRelay implements PushLog {
  private cursor!: PushCursor<{ accountId: string; json: string }>;
  private name = '';
  private listener: pg.Client | undefined;
  private queue: { accountId: string; json: string }[] = [];
  private writing = false;
  /** How many messages were appended, and how many of them were written (or failed to be). */
  private appended = 0;
  private done = 0;
  private waiters: { upTo: number; resolve: () => void }[] = [];
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private stopped = false;
  private backoffMs = 250;
  private timers = new Set<ReturnType<typeof setTimeout>>();
  private detach: (() => void) | undefined;

  constructor(private readonly options: PostgresRelayOptions) {}

  /** Starts at the log's end, listens, and logs the hub's messages; resolves once listening. */
  async start(): Promise<void> {
    const { rows } = await this.options.quick.query<{ last: number; log_id: string }>(
      'SELECT coalesce((SELECT max(id) FROM push_log), 0)::bigint AS last, (SELECT log_id FROM push_log_horizon) AS log_id',
    );
    const deliver = (id: number, m: { accountId: string; json: string }) => this.options.hub.deliver(m.accountId, m.json, id);
    this.cursor = new PushCursor(Number(rows[0]!.last), deliver);
    this.name = rows[0]!.log_id;
    this.detach = this.options.hub.attachLog(this);
    await this.listen();
    const poll = setInterval(() => this.read(), this.options.pollMs ?? 1000);
    poll.unref();
    this.timers.add(poll as unknown as ReturnType<typeof setTimeout>);
  }

  /** Whether the LISTEN connection is up. */
  get listening(): boolean {
    return this.listener !== undefined;
  }

  /** The log's name, the same for every instance on the database. */
  get logId(): string {
    return this.name;
  }

  /** Appends a message to the log; it reaches this instance's streams once written, the others' once read. */
  append(accountId: string, json: string): void {
    this.queue.push({ accountId, json });
    this.appended++;
    if (!this.writing) void this.write();
  }

  written(): Promise<void> {
    if (this.done >= this.appended) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ upTo: this.appended, resolve }));
  }

  floor(): number {
    return this.cursor.floor;
  }

  /** The account's messages after `after` delivered here before the call, read in one statement with the log's horizon. */
  async since(accountId: string, after: number): Promise<LoggedMessage[] | 'too_old'> {
    // Every id at or below the floor was delivered, so it was committed before this read.
    const delivered = this.cursor.floor;
    const { rows } = await this.options.quick.query<{ below: string; id: string | null; message: string | null }>(
      `SELECT h.below, p.id, p.message FROM push_log_horizon h LEFT JOIN LATERAL
         (SELECT id, message FROM push_log WHERE account_id = $1 AND id > $2 ORDER BY id LIMIT $3) p ON true`,
      [accountId, after, MAX_REPLAY + 1],
    );
    if (rows.length === 0 || after < Number(rows[0]!.below) || rows.length > MAX_REPLAY) return 'too_old';
    // Later rows reach the stream live, after these (delivered ones meanwhile were held for it).
    return rows.filter((r) => r.id !== null && Number(r.id) <= delivered).map((r) => ({ id: Number(r.id), json: r.message! }));
  }

  /** Drops log entries older than the retention, raising the horizon past them. */
  async prune(): Promise<void> {
    const retentionMs = this.options.retentionMs ?? 120_000;
    await this.options.quick.query(
      `WITH gone AS (DELETE FROM push_log WHERE created_at < now() - make_interval(secs => $1) RETURNING id)
       UPDATE push_log_horizon SET below = greatest(below, (SELECT max(id) FROM gone)) WHERE EXISTS (SELECT 1 FROM gone)`,
      [retentionMs / 1000],
    );
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
        let ids: number[];
        try {
          // Identity values follow the insert's order, so the i-th smallest id is the i-th message.
          const { rows } = await this.options.quick.query<{ ids: string[] }>(
            prepared(
              `WITH added AS (INSERT INTO push_log (origin, account_id, message)
                 SELECT $1, a, m FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(a, m, n) ORDER BY n RETURNING id)
               SELECT pg_notify($4, $1), array(SELECT id FROM added ORDER BY id) AS ids`,
              [this.options.instanceId, batch.map((b) => b.accountId), batch.map((b) => b.json), PUSH_CHANNEL],
            ),
          );
          ids = rows[0]!.ids.map(Number);
        } catch (error) {
          // Unlogged: this instance's streams get them without a position; the other instances' devices catch up in full.
          this.options.log(`backend: could not pass ${batch.length} push messages to other instances: ${(error as Error).message}`);
          for (const { accountId, json } of batch) this.options.hub.deliver(accountId, json);
          this.wrote(batch.length);
          continue;
        }
        const now = Date.now();
        batch.forEach((message, i) => this.cursor.take(ids[i]!, message, now));
        this.wrote(batch.length);
        // A lower id still missing holds these back: read it now rather than wait for its notification.
        if (this.cursor.query().gaps.length > 0) this.read();
      }
    } finally {
      this.writing = false;
    }
  }

  /** Counts `n` more messages written and resolves the waiters they complete. */
  private wrote(n: number): void {
    this.done += n;
    const ready = this.waiters.filter((w) => w.upTo <= this.done);
    this.waiters = this.waiters.filter((w) => w.upTo > this.done);
    for (const waiter of ready) waiter.resolve();
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
    // This instance's own writes were taken as written: its own notification needs a read only to fill gaps.
    client.on('notification', (note) => {
      if (note.payload !== this.options.instanceId || this.cursor.query().gaps.length > 0) this.read();
    });
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
      // This instance's own messages too: the writer may not have had their positions back yet.
      for (const r of rows) this.cursor.take(Number(r.id), { accountId: r.account_id, json: r.message }, now);
      this.cursor.settle(now);
      if (rows.length < READ_LIMIT) return;
    }
  }
}
