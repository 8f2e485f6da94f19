/** `baton backend`: runs the sync backend on a data folder until SIGTERM. */
import { startBackend } from '../backend/backend.ts';
import { parseFlags, portFlag, required, untilStopped, type Command } from './command.ts';

export const command: Command = {
  summary: 'run the sync backend',
  usage: [
    'Usage: baton backend --data DIR [--host 127.0.0.1] [--port N]',
    '',
    'Runs the sync backend (SQLite store and blobs in DIR). Prints `backend: http://HOST:PORT` once',
    'listening; --port 0 (the default) picks a free port. SIGTERM stops it cleanly.',
    '',
    'Options:',
    '  --data DIR     data folder (created if missing)',
    '  --host HOST    address to listen on (default 127.0.0.1)',
    '  --port N       port to listen on (default 0: a free port)',
  ].join('\n'),
  async run(argv) {
    const { values } = parseFlags(argv, { data: { type: 'string' }, host: { type: 'string' }, port: { type: 'string' } });
    const dataDir = required(values, 'data');
    const host = typeof values.host === 'string' ? values.host : '127.0.0.1';
    const backend = await startBackend({ dataDir, host, port: portFlag(values.port, 0) });
    // Last line of defence: a stray failure is noted on one line and the backend keeps serving.
    process.on('uncaughtException', (error) => console.error(`baton backend: unexpected failure: ${error.message}`));
    const stopped = untilStopped();
    console.log(`backend: ${backend.url}`);
    await stopped;
    await backend.close();
    return 0;
  },
};
