/**
 * A throwaway PostgreSQL server for tests and benches: its own data folder under the temp folder, its
 * own port on 127.0.0.1 and its own socket folder, started from the machine's PostgreSQL binaries
 * (scripts/ensure-postgres.js installs Debian's package where it can). initdb refuses to run as
 * root, so as root the server runs as the `postgres` user. `stop()` shuts it down and removes it all.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export interface PostgresServer {
  /** `postgres://USER@127.0.0.1:PORT/DATABASE` (trust authentication on loopback). */
  url: string;
  port: number;
  dataDir: string;
  /** Creates another database on this server and returns its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

export interface PostgresOptions {
  /** Trade durability for speed (fsync off): fine for tests that never kill the server itself. */
  fast?: boolean;
  prefix?: string;
}

/** The folder holding initdb and postgres: PG_BIN, else the newest /usr/lib/postgresql/N/bin; null when none. */
export function postgresBinDir(): string | null {
  if (process.env.PG_BIN && existsSync(join(process.env.PG_BIN, 'initdb'))) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb')));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? null : join(root, versions[0], 'bin');
}

const isRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0;

/** argv that runs `command` as the server's user (postgres when we are root). */
function asServerUser(command: string, args: string[]): [string, string[]] {
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Waits until the server accepts connections (pg_isready), or fails with the server's own output. */
async function ready(bin: string, port: number, dir: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`postgres exited with ${child.exitCode}:\n${output()}`);
    const probe = spawnSync(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-q']);
    if (probe.status === 0) return;
    if (Date.now() > deadline) throw new Error(`postgres did not accept connections within 30 s:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The postmaster's pid, from its data folder (undefined when it wrote none). */
function serverPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Starts a fresh server; throws with the reason when no PostgreSQL binaries are on this machine. */
export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (bin === null) throw new Error('No PostgreSQL binaries found (set PG_BIN, or run scripts/ensure-postgres.js to install them).');
  const dataDir = mkdtempSync(join(tmpdir(), options.prefix ?? 'baton-pg-'));
  if (isRoot()) {
    const ids = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gids = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    chownSync(dataDir, Number(ids.stdout.trim()), Number(gids.stdout.trim()));
  }
  const user = isRoot() ? 'postgres' : userInfo().username;
  const [initCmd, initArgs] = asServerUser(join(bin, 'initdb'), [
    '-D',
    dataDir,
    '-U',
    user,
    '--auth=trust',
    '-E',
    'UTF8',
    '--locale=C',
    '-N',
  ]);
  const init = spawnSync(initCmd, initArgs, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  const port = await freePort();
  const settings = ['-c', `listen_addresses=127.0.0.1`, '-c', `unix_socket_directories=${dataDir}`, '-c', 'max_connections=200'];
  if (options.fast) settings.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const [cmd, args] = asServerUser(join(bin, 'postgres'), ['-D', dataDir, '-p', String(port), ...settings]);
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (chunk: Buffer) => (log = (log + chunk.toString()).slice(-8000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  await ready(bin, port, dataDir, child, () => log);
  const base = `postgres://${user}@127.0.0.1:${port}`;
  return {
    url: `${base}/postgres`,
    port,
    dataDir,
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a plain database name: ${name}`);
      const made = spawnSync(join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', user, name], { encoding: 'utf8' });
      if (made.status !== 0) throw new Error(`createdb ${name} failed: ${made.stderr}`);
      return `${base}/${name}`;
    },
    async stop() {
      if (child.exitCode === null) {
        // Signal postgres itself: as root the child is runuser, which does not pass signals on.
        const postmaster = serverPid(dataDir);
        const signal = (name: NodeJS.Signals) => {
          try {
            if (postmaster !== undefined) process.kill(postmaster, name);
          } catch {
            // already gone
          }
          child.kill(name);
        };
        const exited = new Promise((resolve) => child.once('exit', resolve));
        signal('SIGINT'); // fast shutdown
        const timer = setTimeout(() => signal('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
