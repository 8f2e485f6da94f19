/**
 * Where the backend keeps everything, chosen at start: the embedded SQLite data folder (store,
 * nonces and blob files in one folder, one instance), or a PostgreSQL database that several
 * instances share (records, nonces, idempotency answers, blob bodies and the push log between them).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ok, type Result } from '../shared/errors.ts';
import { BlobFiles } from './blobs/blob-files.ts';
import type { BlobStore } from './blobs/blob-store.ts';
import { PostgresBlobs } from './blobs/postgres-blobs.ts';
import { PostgresRelay } from './push/postgres-relay.ts';
import type { PushHub } from './push/push-hub.ts';
import { MemoryPushLog, type PushLog } from './push/push-log.ts';
import { openDataFolder, type DataFolderCode } from './store/data-folder.ts';
import { openPostgresStore, type PostgresStoreCode } from './store/postgres/postgres-store.ts';
import type { Store } from './store/store.ts';
import { keepKeyInDatabase, keepKeyInFolder } from './tls/kept-key.ts';

export type StorageChoice = { dataDir: string; init?: boolean } | { database: string };

export interface Storage {
  readonly store: Store;
  readonly blobs: BlobStore;
  /**
   * Gives the hub its push log: on PostgreSQL the table shared with the other instances on the
   * database; for the data folder (one instance) a bounded log in memory.
   */
  linkPush(hub: PushHub, log: (line: string) => void): Promise<PushLog>;
  /** The private key `--tls self-signed` serves with: the one kept here, or `make()`'s, kept from now on (tls/kept-key.ts). */
  keepTlsKey(make: () => string): Promise<string>;
  close(): Promise<void>;
}

export interface StorageOptions {
  clock?: () => number;
  log?: (line: string) => void;
  /** PostgreSQL: request connections per instance (default 20). */
  poolSize?: number;
}

/** Opens the chosen storage, or refuses with one line (a corrupt or missing store, an unreachable database). */
export async function openStorage(
  choice: StorageChoice,
  options: StorageOptions = {},
): Promise<Result<Storage, DataFolderCode | PostgresStoreCode>> {
  const clock = options.clock ?? Date.now;
  if ('dataDir' in choice) {
    const opened = openDataFolder(choice.dataDir, { init: choice.init, clock });
    if (!opened.ok) return opened;
    const store = opened.value;
    return ok({
      store,
      blobs: new BlobFiles(join(choice.dataDir, 'blobs')),
      async linkPush(hub) {
        const pushLog = new MemoryPushLog(hub, { clock });
        hub.attachLog(pushLog);
        return pushLog;
      },
      keepTlsKey: async (make) => keepKeyInFolder(choice.dataDir, make),
      close: async () => store.close(),
    });
  }
  const instanceId = randomBytes(6).toString('hex');
  const applicationName = `baton-backend ${instanceId}`;
  const opened = await openPostgresStore(choice.database, { clock, log: options.log, poolSize: options.poolSize, applicationName });
  if (!opened.ok) return opened;
  const store = opened.value;
  return ok({
    store,
    blobs: new PostgresBlobs({ pool: store.pool, quick: store.quick, clock }),
    async linkPush(hub, log) {
      const relay = new PostgresRelay({
        url: choice.database,
        quick: store.quick,
        hub,
        instanceId,
        log,
        applicationName: `baton-listen ${instanceId}`,
      });
      await relay.start();
      return relay;
    },
    keepTlsKey: (make) => keepKeyInDatabase(store.pool, make, clock()),
    close: async () => store.close(),
  });
}
