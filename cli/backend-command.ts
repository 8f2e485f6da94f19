/**
 * `baton backend`: runs the sync backend on a data folder (SQLite) or a PostgreSQL database until
 * SIGTERM; `baton backend backup` copies a data folder's store.
 */
import { startBackend } from '../backend/backend.ts';
import { DEFAULT_MAX_BLOB_MIB } from '../backend/limits.ts';
import { DEFAULT_KEEP_COMPLETED } from '../backend/retention.ts';
import { backupDataFolder } from '../backend/store/backup.ts';
import { openStorage, type StorageChoice } from '../backend/storage.ts';
import { plainHttpWarning, reloadOnHangUp, TLS_USAGE, tlsChoice, tlsIdentity } from './backend-tls.ts';
import { parseFlags, portFlag, required, untilStopped, UsageError, type Command } from './command.ts';

/** The environment variable that names the database when --database is not given. */
export const DATABASE_ENV = 'BATON_DATABASE_URL';

export const command: Command = {
  summary: 'run the sync backend, or back up its data folder',
  usage: [
    'Usage: baton backend --data DIR [--host 127.0.0.1] [--port N] [TLS] [--max-blob-mib N] [--keep-checkpoints N] [--init]',
    '       baton backend --database postgres://USER:PASSWORD@HOST:PORT/DB [--host 127.0.0.1] [--port N] [TLS] [--max-blob-mib N]',
    '                     [--keep-checkpoints N]',
    '       baton backend backup --data DIR --to FILE',
    '',
    'Runs the sync backend: the embedded SQLite store and blobs in DIR, or everything in a PostgreSQL',
    `database (--database, or ${DATABASE_ENV} when neither --data nor --database is given), which several`,
    'instances may share: start each with the same database behind one load balancer. Migrations run',
    'at start under a lock. Prints `backend: http://HOST:PORT` once listening (https with TLS, after a',
    '`backend key: sha256:…` line: the fingerprint devices pin); --port 0 (the default) picks a free port.',
    'SIGTERM stops it cleanly. GET /healthz says the store kind and whether it answers. TLS is one of',
    '--tls-cert/--tls-key, --tls self-signed or --tls proxy (below); plain HTTP beyond 127.0.0.1 warns.',
    'It refuses to start, with one line and exit code 1, when the database fails its integrity check,',
    'or when DIR held a store (it is marked) whose database is gone: restore a backup, or pass --init',
    'to begin an empty store there. An empty folder starts a fresh store.',
    '',
    '`backup` writes a consistent copy of DIR (database, nonces and blobs) to FILE, a tar archive, while',
    'the backend keeps running. Restore: mkdir NEW && tar -xf FILE -C NEW && baton backend --data NEW',
    '',
    'Options:',
    '  --data DIR     data folder (created if missing)',
    '  --database URL PostgreSQL connection string (back it up with pg_dump or pg_basebackup)',
    '  --host HOST    address to listen on (default 127.0.0.1)',
    '  --port N       port to listen on (default 0: a free port)',
    ...TLS_USAGE,
    `  --max-blob-mib N  largest sealed checkpoint accepted, in MiB (default ${DEFAULT_MAX_BLOB_MIB}); /healthz`,
    '                 publishes it and devices refuse a move whose checkpoint would not fit',
    `  --keep-checkpoints N  keep the checkpoints of each session's newest N completed moves (default ${DEFAULT_KEEP_COMPLETED}; 0-1000),`,
    '                 besides those of moves in progress; the rest are collected (give every instance the same N)',
    '  --init         start an empty store in a folder whose database is gone',
    '  --to FILE      (backup) the archive to write; replaced only once complete',
  ].join('\n'),
  async run(argv) {
    if (argv[0] === 'backup') return backup(argv.slice(1));
    const { values } = parseFlags(argv, {
      data: { type: 'string' },
      database: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      'max-blob-mib': { type: 'string' },
      'keep-checkpoints': { type: 'string' },
      init: { type: 'boolean' },
      tls: { type: 'string' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
    });
    const choice = storageChoice(values);
    const tls = tlsChoice(values);
    const host = typeof values.host === 'string' ? values.host : '127.0.0.1';
    const port = portFlag(values.port, 0);
    const maxBlobMib = maxBlobMibFlag(values['max-blob-mib']);
    const keepCompleted = keepCheckpointsFlag(values['keep-checkpoints']);
    const storage = await openStorage(choice);
    if (!storage.ok) {
      console.error(`baton backend: ${storage.message}`);
      return 1;
    }
    const identity = await tlsIdentity(tls, storage.value, host);
    if (!identity.ok) {
      console.error(`baton backend: ${identity.message}`);
      await storage.value.close();
      return 1;
    }
    const backend = await startBackend({
      host,
      port,
      storage: storage.value,
      limits: { maxBlobBytes: maxBlobMib * 1024 * 1024 },
      retention: { keepCompleted },
      ...(identity.value ? { tls: identity.value } : {}),
    });
    // Last line of defence: a stray failure is noted on one line and the backend keeps serving.
    process.on('uncaughtException', (error) => console.error(`baton backend: unexpected failure: ${error.message}`));
    const stopped = untilStopped();
    const stopReloading = reloadOnHangUp(tls, backend, (line) => console.error(line));
    const warning = plainHttpWarning(tls, host);
    if (warning) console.error(warning);
    if (backend.fingerprint) console.log(`backend key: ${backend.fingerprint}`);
    console.log(`backend: ${backend.url}`);
    await stopped;
    stopReloading();
    await backend.close();
    return 0;
  },
};

/** Parses --max-blob-mib: a whole number of MiB from 1 to 1,048,576 (1 TiB). */
function maxBlobMibFlag(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_BLOB_MIB;
  const mib = Number(value);
  if (!Number.isInteger(mib) || mib < 1 || mib > 1024 * 1024)
    throw new UsageError(`--max-blob-mib must be a whole number of MiB from 1 to 1048576, got ${String(value)}`);
  return mib;
}

/** Parses --keep-checkpoints: a whole number of completed moves per session, from 0 to 1000. */
function keepCheckpointsFlag(value: unknown): number {
  if (value === undefined) return DEFAULT_KEEP_COMPLETED;
  const keep = Number(value);
  if (!/^\d+$/.test(String(value)) || keep > 1000)
    throw new UsageError(`--keep-checkpoints must be a whole number from 0 to 1000, got ${String(value)}`);
  return keep;
}

/** --data DIR or --database URL (or the environment's URL when neither is given); both is a usage error. */
function storageChoice(values: Record<string, string | boolean | undefined>): StorageChoice {
  const data = typeof values.data === 'string' ? values.data : undefined;
  const database = typeof values.database === 'string' ? values.database : undefined;
  if (data !== undefined && database !== undefined) throw new UsageError('give --data DIR or --database URL, not both');
  if (data !== undefined) return { dataDir: required(values, 'data'), init: values.init === true };
  const url = database ?? process.env[DATABASE_ENV];
  if (url === undefined || url === '') throw new UsageError(`--data is required (or --database URL, or ${DATABASE_ENV})`);
  if (!/^postgres(ql)?:\/\//.test(url)) throw new UsageError('--database takes a postgres:// or postgresql:// URL');
  if (values.init === true) throw new UsageError('--init is for a data folder; a database is migrated as it is');
  return { database: url };
}

async function backup(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, { data: { type: 'string' }, to: { type: 'string' }, database: { type: 'string' } });
  if (values.database !== undefined) {
    throw new UsageError('back up a PostgreSQL database with its own tools: pg_dump (or pg_basebackup); see the README');
  }
  const made = await backupDataFolder(required(values, 'data'), required(values, 'to'));
  if (!made.ok) {
    console.error(`baton backend backup: ${made.message}`);
    return 1;
  }
  const { file, blobs, bytes } = made.value;
  console.log(`backup: ${file} (${blobs} blobs, ${(bytes / (1024 * 1024)).toFixed(1)} MiB)`);
  return 0;
}
