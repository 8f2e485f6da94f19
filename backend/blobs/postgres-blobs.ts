/**
 * Blob bodies in PostgreSQL, so one engine holds everything and every instance serves every blob.
 * A body arrives in chunks of about 1 MiB written under an upload id as they fill (committed without
 * waiting for the WAL flush: the upload's final, synchronous commit flushes the WAL up to itself, and
 * so every chunk written before it). That commit makes the upload the body of its digest, or drops it
 * when the digest is already stored. Reading streams one chunk at a time and checks the digest.
 * Uploads whose instance died mid-body are pruned once untouched for `abandonAfterMs`.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { checkedBody, hashedUpload, type BlobStore, type BlobUpload } from './blob-store.ts';

/** Chunks are written once this much has arrived. */
export const BLOB_CHUNK_BYTES = 1024 * 1024;
/** A chunk is also written once this long has passed since the last one (a slow upload keeps its upload row fresh). */
const FLUSH_EVERY_MS = 30_000;

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
      async commit(digest, size) {
        const client = await pool.connect();
        let broken: Error | undefined;
        try {
          await client.query('BEGIN');
          if (pendingBytes > 0 || seq === 0) {
            await client.query('INSERT INTO blob_chunks (upload_id, seq, data) VALUES ($1, $2, $3)', [id, seq++, take()]);
          }
          const kept = await client.query(
            'INSERT INTO blob_bodies (digest, upload_id, size, chunks, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (digest) DO NOTHING',
            [digest, id, size, seq, clock()],
          );
          if (kept.rowCount === 0) await dropChunks(client);
          await client.query('DELETE FROM blob_uploads WHERE id = $1', [id]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
          throw error;
        } finally {
          client.release(broken);
        }
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
