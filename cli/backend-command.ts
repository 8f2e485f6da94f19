/** `baton backend`: runs the sync backend on a data folder until SIGTERM; `baton backend backup` copies its store. */
import { startBackend } from '../backend/backend.ts';
import { DEFAULT_MAX_BLOB_MIB } from '../backend/limits.ts';
import { backupDataFolder } from '../backend/store/backup.ts';
import { openDataFolder } from '../backend/store/data-folder.ts';
import { parseFlags, portFlag, required, untilStopped, UsageError, type Command } from './command.ts';

export const command: Command = {
  summary: 'run the sync backend, or back up its data folder',
  usage: [
    'Usage: baton backend --data DIR [--host 127.0.0.1] [--port N] [--max-blob-mib N] [--init]',
    '       baton backend backup --data DIR --to FILE',
    '',
    'Runs the sync backend (SQLite store and blobs in DIR). Prints `backend: http://HOST:PORT` once',
    'listening; --port 0 (the default) picks a free port. SIGTERM stops it cleanly.',
    'It refuses to start, with one line and exit code 1, when the database fails its integrity check,',
    'or when DIR held a store (it is marked) whose database is gone: restore a backup, or pass --init',
    'to begin an empty store there. An empty folder starts a fresh store.',
    '',
    '`backup` writes a consistent copy of DIR (database, nonces and blobs) to FILE, a tar archive, while',
    'the backend keeps running. Restore: mkdir NEW && tar -xf FILE -C NEW && baton backend --data NEW',
    '',
    'Options:',
    '  --data DIR     data folder (created if missing)',
    '  --host HOST    address to listen on (default 127.0.0.1)',
    '  --port N       port to listen on (default 0: a free port)',
    `  --max-blob-mib N  largest sealed checkpoint accepted, in MiB (default ${DEFAULT_MAX_BLOB_MIB}); /healthz`,
    '                 publishes it and devices refuse a move whose checkpoint would not fit',
    '  --init         start an empty store in a folder whose database is gone',
    '  --to FILE      (backup) the archive to write; replaced only once complete',
  ].join('\n'),
  async run(argv) {
    if (argv[0] === 'backup') return backup(argv.slice(1));
    const { values } = parseFlags(argv, {
      data: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      'max-blob-mib': { type: 'string' },
      init: { type: 'boolean' },
    });
    const dataDir = required(values, 'data');
    const host = typeof values.host === 'string' ? values.host : '127.0.0.1';
    const port = portFlag(values.port, 0);
    const maxBlobMib = maxBlobMibFlag(values['max-blob-mib']);
    const store = openDataFolder(dataDir, { init: values.init === true });
    if (!store.ok) {
      console.error(`baton backend: ${store.message}`);
      return 1;
    }
    const backend = await startBackend({ dataDir, host, port, store: store.value, limits: { maxBlobBytes: maxBlobMib * 1024 * 1024 } });
    // Last line of defence: a stray failure is noted on one line and the backend keeps serving.
    process.on('uncaughtException', (error) => console.error(`baton backend: unexpected failure: ${error.message}`));
    const stopped = untilStopped();
    console.log(`backend: ${backend.url}`);
    await stopped;
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

async function backup(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, { data: { type: 'string' }, to: { type: 'string' } });
  const made = await backupDataFolder(required(values, 'data'), required(values, 'to'));
  if (!made.ok) {
    console.error(`baton backend backup: ${made.message}`);
    return 1;
  }
  const { file, blobs, bytes } = made.value;
  console.log(`backup: ${file} (${blobs} blobs, ${(bytes / (1024 * 1024)).toFixed(1)} MiB)`);
  return 0;
}
