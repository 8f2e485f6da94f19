/**
 * Blob bodies in PostgreSQL, so one engine holds everything and every instance serves every blob.
 * A body arrives in chunks of about 1 MiB written under an upload id as they fill (committed without
 * waiting for the WAL flush: the upload's final, synchronous commit flushes the WAL up to itself, and
 * so every chunk written before it). That commit makes the upload the body of its digest, or drops it
 * when the digest is already stored. Reading streams one chunk at a time and checks the digest.
 * Uploads whose instance died mid-body are pruned once untouched for `abandonAfterMs`.
 *
 * Every committed body is queued for collection at once, in its commit: should its record never follow
 * (the instance died between the two), collection finds it with no record and removes it. A removal
 * deletes only bodies no record names and last put (committed, or recorded: store/postgres/blob-records.ts)
 * before its cutoff, and re-checks that on the row it deletes: a body being recorded meanwhile is newer
 * and stays, or was removed first and its record is refused.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { collectionLock } from '../store/postgres/retention.ts';
import { checkedBody, hashedUpload, type BlobStore, type BlobUpload, type RemovalCheck } from './blob-store.ts';

/** Chunks are written once this much has arrived. */
export const BLOB_CHUNK_BYTES = 1024 * 1024;
/** A chunk is also written once this long has passed since the last one (a slow upload keeps its upload row fresh). */
const FLUSH_EVERY_MS = 30_000;

/** Bodies removed in one transaction, in bytes at most (always at least one body). */
const REMOVAL_BYTES = 64 * 1024 * 1024;

/**
 * Deletes the bodies of `$1` that no record names and were last put before `$2`, and their chunks;
 * returns the digests settled: removed, or named by a record.
 */
const REMOVE = `WITH gone AS (
    DELETE FROM blob_bodies b WHERE b.digest = ANY($1::text[]) AND b.put_at < $2
      AND NOT EXISTS (SELECT 1 FROM blobs r WHERE r.digest = b.digest)
    RETURNING b.digest, b.upload_id),
  chunks AS (DELETE FROM blob_chunks c USING gone g WHERE c.upload_id = g.upload_id)
  SELECT digest FROM gone
  UNION SELECT d FROM unnest($1::text[]) d WHERE EXISTS (SELECT 1 FROM blobs r WHERE r.digest = d)`;

/** `sizes` (digest → bytes) in groups of at most `limit` bytes (one body alone when larger). */
function bySize(sizes: Map<string, number>, limit: number): string[][] {
  const groups: string[][] = [];
  let bytes = Infinity;
  for (const [digest, size] of sizes) {
    if (bytes + size > limit) {
      groups.push([]);
      bytes = 0;
    }
    groups.at(-1)!.push(digest);
    bytes += size;
  }
  return groups;
}

export interface PostgresBlobOptions {
  /** The store's pool (synchronous commits). */
  pool: pg.Pool;
  /** A pool committing without waiting for the flush (chunks before the final commit). */
  quick: pg.Pool;
  clock: () => number;
  /** An upload untouched this long is taken as cut off (default 10 minutes). */
  abandonAfterMs?: number;
}

export class PostgresBlobs implements BlobStore {
  constructor(private readonly options: PostgresBlobOptions) {}

  /** Receives a body in chunks under a fresh upload id. */
  begin(): BlobUpload {
    const { pool, quick, clock } = this.options;
    const id = randomBytes(12).toString('hex');
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let seq = 0;
    let lastFlush = clock();
    let started = false;
    const take = () => {
      const data = Buffer.concat(pending);
      pending = [];
      pendingBytes = 0;
      lastFlush = clock();
      return data;
    };
    const flush = async () => {
      const data = take();
      if (!started) {
        started = true;
        await quick.query('INSERT INTO blob_uploads (id, touched_at) VALUES ($1, $2)', [id, clock()]);
      }
      await quick.query(
        'WITH chunk AS (INSERT INTO blob_chunks (upload_id, seq, data) VALUES ($1, $2, $3)) UPDATE blob_uploads SET touched_at = $4 WHERE id = $1',
        [id, seq++, data, clock()],
      );
    };
    const dropChunks = (sql: Pick<pg.Pool, 'query'>) => sql.query('DELETE FROM blob_chunks WHERE upload_id = $1', [id]);
    return hashedUpload({
      write(chunk) {
        pending.push(chunk);
        pendingBytes += chunk.length;
        return pendingBytes >= BLOB_CHUNK_BYTES || clock() - lastFlush >= FLUSH_EVERY_MS ? flush() : undefined;
      },
      async commit(digest, size, record) {
        const client = await pool.connect();
        let broken: Error | undefined;
        try {
          await client.query('BEGIN');
          if (pendingBytes > 0 || seq === 0) {
            await client.query('INSERT INTO blob_chunks (upload_id, seq, data) VALUES ($1, $2, $3)', [id, seq++, take()]);
          }
          // The body stored before stands, made fresh; else this upload's chunks become it. Queued either way.
          const kept = await client.query<{ upload_id: string }>(
            `WITH kept AS (
               INSERT INTO blob_bodies (digest, upload_id, size, chunks, created_at, put_at) VALUES ($1, $2, $3, $4, $5, $5)
               ON CONFLICT (digest) DO UPDATE SET put_at = greatest(blob_bodies.put_at, excluded.put_at) RETURNING upload_id),
             queued AS (INSERT INTO blob_garbage (digest, due_at) VALUES ($1, $5) ON CONFLICT (digest) DO NOTHING)
             SELECT upload_id FROM kept`,
            [digest, id, size, seq, clock()],
          );
          if (kept.rows[0]?.upload_id !== id) await dropChunks(client);
          await client.query('DELETE FROM blob_uploads WHERE id = $1', [id]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
          throw error;
        } finally {
          client.release(broken);
        }
        // Its chunks are a stored body now, or gone: a failure recording it leaves them to collection.
        started = false;
        await record?.();
      },
      async discard() {
        pending = [];
        pendingBytes = 0;
        if (!started) return;
        await dropChunks(quick);
        await quick.query('DELETE FROM blob_uploads WHERE id = $1', [id]);
      },
    });
  }

  /** Streams the body of `digest` one chunk at a time, checked against the digest; undefined when none is stored. */
  async open(digest: string): Promise<Readable | undefined> {
    const { pool } = this.options;
    const found = await pool.query<{ upload_id: string; chunks: number }>('SELECT upload_id, chunks FROM blob_bodies WHERE digest = $1', [
      digest,
    ]);
    const body = found.rows[0];
    if (!body) return undefined;
    let next = 0;
    const chunks = new Readable({
      highWaterMark: 1,
      read() {
        if (next >= body.chunks) return void this.push(null);
        const seq = next++;
        pool.query<{ data: Buffer }>('SELECT data FROM blob_chunks WHERE upload_id = $1 AND seq = $2', [body.upload_id, seq]).then(
          (result) => {
            const chunk = result.rows[0];
            if (chunk) this.push(chunk.data);
            else this.destroy(new Error(`chunk ${seq} of the stored blob ${digest} is missing`));
          },
          (error: Error) => this.destroy(error),
        );
      },
    });
    return checkedBody(chunks, digest);
  }

  /**
   * Removes the bodies among `digests` that no record names and were last put before `putBefore`, with
   * their chunks: up to REMOVAL_BYTES of bodies per transaction, each under the collection lock.
   */
  async remove(digests: string[], check: Pick<RemovalCheck, 'putBefore'>): Promise<string[] | 'busy'> {
    const { pool } = this.options;
    const sizes = await pool.query<{ digest: string; size: number }>(
      'SELECT digest, size FROM blob_bodies WHERE digest = ANY($1::text[])',
      [digests],
    );
    const stored = new Map(sizes.rows.map((r) => [r.digest, r.size]));
    const settled = digests.filter((digest) => !stored.has(digest));
    for (const group of bySize(stored, REMOVAL_BYTES)) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        if (!(await collectionLock(client))) {
          await client.query('ROLLBACK');
          return settled.length > 0 ? settled : 'busy';
        }
        const done = await client.query<{ digest: string }>(REMOVE, [group, check.putBefore]);
        await client.query('COMMIT');
        settled.push(...done.rows.map((r) => r.digest));
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
        throw error;
      } finally {
        client.release(broken);
      }
    }
    return settled;
  }

  /** None: every upload queues itself in its commit. */
  async *stored(): AsyncIterable<string[]> {}

  /** Drops uploads untouched for `abandonAfterMs` (their instance died or the client left mid-body). */
  async prune(now: number): Promise<void> {
    const cutoff = now - (this.options.abandonAfterMs ?? 10 * 60_000);
    await this.options.pool.query(
      `WITH gone AS (DELETE FROM blob_uploads WHERE touched_at < $1 RETURNING id)
       DELETE FROM blob_chunks WHERE upload_id IN (SELECT id FROM gone)`,
      [cutoff],
    );
  }
}
