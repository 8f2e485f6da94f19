/**
 * A git:// server on 127.0.0.1 for a folder of bare repositories (a git sandbox's origins): one `git
 * daemon --inetd` per connection, as inetd would run it, fetch and push. A relay (tcp-relay.ts) in front
 * of it puts a device's fetches on the same slow link as its backend calls.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Socket } from 'node:net';

export interface GitDaemon {
  /** `git://127.0.0.1:PORT` (append `/NAME.git`). */
  readonly url: string;
  close(): Promise<void>;
}

/** Serves the bare repositories under `baseDir` (every one of them) with git's own daemon, run with `env`. */
export async function startGitDaemon(baseDir: string, env: NodeJS.ProcessEnv): Promise<GitDaemon> {
  const children = new Set<ChildProcess>();
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    const child = spawn(
      'git',
      ['daemon', '--inetd', '--export-all', '--enable=receive-pack', '--informative-errors', `--base-path=${baseDir}`, baseDir],
      {
        env,
        stdio: ['pipe', 'pipe', 'ignore'],
      },
    );
    children.add(child);
    sockets.add(socket);
    child.once('exit', () => {
      children.delete(child);
      socket.end();
    });
    socket.once('close', () => {
      sockets.delete(socket);
      child.kill();
    });
    socket.on('error', () => socket.destroy());
    child.stdin!.on('error', () => undefined);
    socket.pipe(child.stdin!);
    child.stdout!.pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `git://127.0.0.1:${port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      for (const child of children) child.kill();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
