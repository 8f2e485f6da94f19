/**
 * bench:retention — checkpoint collection on a store of 100,000 bodies (`BENCH_BODIES`), of which 90%
 * no handoff holds any more, on a SQLite data folder and on PostgreSQL (`BENCH_STORES`, default both).
 * Ours: one pass of the backend's collector (service/collector.ts): records in batches, each its own
 * transaction, then the bodies, each checked against the records as it goes. Baseline, same run, an
 * identical store: a plain delete of the same rows and bodies in batches of the same size (files
 * unlinked; PostgreSQL chunks and bodies deleted), with no queue, lock or check. Also measured: the
 * longest the event loop was held while ours ran, and a data folder's first-pass sweep of its files.
 */
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pg from 'pg';
import { startPostgres, type PostgresServer } from '../dev-env/postgres-server.ts';
import { DEFAULT_LIMITS } from '../backend/limits.ts';
import { DEFAULT_RETENTION } from '../backend/retention.ts';
import { Collector } from '../backend/service/collector.ts';
import { openStorage } from '../backend/storage.ts';

const BODIES = Number(process.env.BENCH_BODIES ?? 100_000);
const STORES = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',');
const BATCH = DEFAULT_RETENTION.batchSize;
const ACCOUNT = 'account_bench_retention';
const OLD = 1_000;
const scratch = join(process.cwd(), '.bench-tmp', 'retention');

interface Row {
  store: string;
  collected: number;
  ours_ms: number;
  baseline_ms: number;
  ours_us_per_body: number;
  baseline_us_per_body: number;
  max_stall_ms: number;
  baseline_max_stall_ms: number;
  sweep_ms: number | null;
  ratio: number;
}

/** `count` digests. */
function digests(count: number): string[] {
  return Array.from({ length: count }, (_, i) => createHash('sha256').update(`body ${i}`).digest('hex'));
}

/** A data folder holding `all` as 256-byte files with their records, each held by a handoff. */
function fillFolder(dataDir: string, all: string[]): void {
  const blobs = join(dataDir, 'blobs');
  mkdirSync(blobs, { recursive: true });
  const bytes = randomBytes(256);
  for (const digest of all) writeFileSync(join(blobs, digest), bytes);
  const db = new Database(join(dataDir, 'baton.sqlite'));
  const put = db.prepare('INSERT INTO blobs (account_id, digest, size, created_at, named, holds) VALUES (?, ?, 256, ?, 1, ?)');
  db.transaction(() => all.forEach((digest) => put.run(ACCOUNT, digest, OLD, 1)))();
  db.close();
}

/** Every handoff but each tenth lets its body go (as moves beyond the newest N, or cancelled ones, do). */
const RELEASE =
  'UPDATE blobs SET holds = 0 WHERE digest NOT IN (SELECT digest FROM blobs ORDER BY digest LIMIT (SELECT count(*) / 10 FROM blobs))';

/** A database holding `all` as one-chunk bodies with their records, each held by a handoff, then 90% released. */
async function fillDatabase(url: string, all: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `WITH d AS (SELECT digest, ord FROM unnest($1::text[]) WITH ORDINALITY AS t(digest, ord)),
         bodies AS (INSERT INTO blob_bodies (digest, upload_id, size, chunks, created_at, put_at) SELECT digest, 'u' || ord, 256, 1, $2, $2 FROM d),
         chunks AS (INSERT INTO blob_chunks (upload_id, seq, data) SELECT 'u' || ord, 0, $3 FROM d)
       INSERT INTO blobs (account_id, digest, size, created_at, named, holds) SELECT $4, digest, 256, $2, 1, 1 FROM d`,
      [all, OLD, randomBytes(256), ACCOUNT],
    );
    await client.query(RELEASE);
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
}

interface Timed {
  ms: number;
  collected: number;
  /** The longest the event loop was held meanwhile (on a loaded machine, being descheduled counts too). */
  stallMs: number;
}

/** Runs `work` (which says how many it collected) from a clean page cache, timed, with the longest event-loop delay seen meanwhile. */
async function timed(work: () => Promise<number>): Promise<Timed> {
  // The fill left 100,000 files' dirty pages: written out first, so no run pays for them in its fsyncs.
  execFileSync('sync');
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const started = performance.now();
  const collected = await work();
  const ms = performance.now() - started;
  delay.disable();
  return { ms, collected, stallMs: delay.max / 1e6 };
}

/** Ours: one collector pass. */
const collectOnce = (collector: Collector) => timed(async () => (await collector.collect()).records);

/** The baseline on a data folder: the same rows deleted and files unlinked in batches, one transaction each. */
async function plainDeleteFolder(dataDir: string): Promise<Timed> {
  const db = new Database(join(dataDir, 'baton.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  const pick = db.prepare('SELECT rowid, digest FROM blobs WHERE holds = 0 LIMIT ?');
  const drop = db.prepare('DELETE FROM blobs WHERE rowid = ?');
  const result = await timed(async () => {
    let collected = 0;
    for (;;) {
      const batch = db.transaction(() => {
        const rows = pick.all(BATCH) as { rowid: number; digest: string }[];
        for (const r of rows) drop.run(r.rowid);
        return rows;
      })();
      await Promise.all(batch.map((r) => rm(join(dataDir, 'blobs', r.digest), { force: true })));
      collected += batch.length;
      if (batch.length < BATCH) return collected;
    }
  });
  db.close();
  return result;
}

/** The baseline on PostgreSQL: the same records, bodies and chunks deleted in batches, one transaction each. */
async function plainDeleteDatabase(url: string): Promise<Timed> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await timed(async () => {
      let collected = 0;
      for (;;) {
        const done = await client.query<{ n: number }>(
          `WITH gone AS (DELETE FROM blobs WHERE (account_id, digest) IN (SELECT account_id, digest FROM blobs WHERE holds = 0 LIMIT $1) RETURNING digest),
           bodies AS (DELETE FROM blob_bodies b USING gone g WHERE b.digest = g.digest RETURNING b.upload_id),
           chunks AS (DELETE FROM blob_chunks c USING bodies b WHERE c.upload_id = b.upload_id)
         SELECT count(*)::int AS n FROM gone`,
          [BATCH],
        );
        collected += done.rows[0]!.n;
        if (done.rows[0]!.n < BATCH) return collected;
      }
    });
  } finally {
    await client.end();
  }
}

async function benchFolder(all: string[]): Promise<Row> {
  const [ours, baseline] = ['ours', 'baseline'].map((name) => join(scratch, name));
  for (const dir of [ours!, baseline!]) {
    rmSync(dir, { recursive: true, force: true });
    const opened = await openStorage({ dataDir: dir });
    if (!opened.ok) throw new Error(opened.message);
    await opened.value.close();
    fillFolder(dir, all);
  }
  const storage = await openStorage({ dataDir: ours! });
  if (!storage.ok) throw new Error(storage.message);
  // A process's first pass also sweeps its files for any a crash left with no record: timed on its own, with all still held.
  const collector = new Collector(
    {
      store: storage.value.store,
      blobs: storage.value.blobs,
      clock: Date.now,
      log: console.error,
      postWindowMs: DEFAULT_LIMITS.postWindowMs,
    },
    DEFAULT_RETENTION,
  );
  const sweepStart = performance.now();
  await collector.collect();
  const sweepMs = performance.now() - sweepStart;
  for (const dir of [ours!, baseline!]) {
    const db = new Database(join(dir, 'baton.sqlite'));
    db.exec(RELEASE);
    db.close();
  }
  const run = await collectOnce(collector);
  await storage.value.close();
  const plain = await plainDeleteFolder(baseline!);
  return row('sqlite', run, plain, sweepMs);
}

async function benchDatabase(server: PostgresServer, all: string[]): Promise<Row> {
  const [ours, baseline] = await Promise.all([server.createDatabase('retention_ours'), server.createDatabase('retention_baseline')]);
  for (const url of [ours, baseline]) {
    const opened = await openStorage({ database: url });
    if (!opened.ok) throw new Error(opened.message);
    await opened.value.close();
    await fillDatabase(url, all);
  }
  const storage = await openStorage({ database: ours });
  if (!storage.ok) throw new Error(storage.message);
  const run = await collectOnce(
    new Collector(
      {
        store: storage.value.store,
        blobs: storage.value.blobs,
        clock: Date.now,
        log: console.error,
        postWindowMs: DEFAULT_LIMITS.postWindowMs,
      },
      DEFAULT_RETENTION,
    ),
  );
  await storage.value.close();
  return row('postgres', run, await plainDeleteDatabase(baseline), null);
}

function row(store: string, ours: Timed, plain: Timed, sweepMs: number | null): Row {
  if (ours.collected !== plain.collected) throw new Error(`${store}: collected ${ours.collected} records, the baseline ${plain.collected}`);
  return {
    store,
    collected: ours.collected,
    ours_ms: Math.round(ours.ms),
    baseline_ms: Math.round(plain.ms),
    ours_us_per_body: Math.round((ours.ms * 1000) / ours.collected),
    baseline_us_per_body: Math.round((plain.ms * 1000) / plain.collected),
    max_stall_ms: Math.round(ours.stallMs * 10) / 10,
    baseline_max_stall_ms: Math.round(plain.stallMs * 10) / 10,
    sweep_ms: sweepMs === null ? null : Math.round(sweepMs),
    ratio: Math.round((ours.ms / plain.ms) * 100) / 100,
  };
}

const all = digests(BODIES);
const rows: Row[] = [];
let server: PostgresServer | undefined;
try {
  if (STORES.includes('sqlite')) rows.push(await benchFolder(all));
  if (STORES.includes('postgres')) {
    server = await startPostgres({ prefix: 'baton-bench-retention-' });
    rows.push(await benchDatabase(server, all));
  }
} finally {
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
}

console.log(
  `checkpoint collection on a store of ${BODIES} bodies, ${BODIES - Math.ceil(BODIES / 10)} of them no longer held (batches of ${BATCH})`,
);
console.table(rows);
const worst = rows.reduce((a, b) => (b.ratio > a.ratio ? b : a));
console.log(
  JSON.stringify({
    bench: 'retention',
    ratio: worst.ratio,
    bodies: BODIES,
    ...Object.fromEntries(
      rows.flatMap((r) =>
        Object.entries(r)
          .filter(([k]) => k !== 'store')
          .map(([k, v]) => [`${r.store}_${k}`, v]),
      ),
    ),
  }),
);
