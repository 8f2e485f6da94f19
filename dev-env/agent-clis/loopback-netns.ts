/**
 * A loopback-only network namespace for the real CLIs: inside it the only interface is `lo`, the one
 * listener is a relay to the scripted model server (same URL as outside), and DNS goes to a logger
 * that answers NXDOMAIN. Nothing else is reachable. Commands enter it through wrapper executables
 * (`nsenter` into the namespace's net and mount namespaces, then exec the real binary, same pid).
 *
 * As root the namespace is made directly (`unshare -n`). A normal user makes it inside a user
 * namespace of its own that maps the user to itself (`unshare --map-current-user --keep-caps -n`):
 * the relay keeps the capabilities it needs there (`lo` up, port 53), and the commands that enter it
 * run as that same user with none — not as a mapped root, which the CLIs would take for real root.
 * Needs util-linux's `unshare`/`nsenter` (2.38 or later for a normal user) and iproute2's `ip`;
 * where the namespace cannot be made, `startLoopbackNetns` says why and the caller runs without one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fail, ok, type Result } from '../../shared/errors.ts';
import { findOnPath } from '../../electron/providers/detect.ts';

const RELAY = join(import.meta.dirname, 'netns-relay.mjs');
const SBIN_PATH = `${process.env.PATH ?? ''}:/usr/sbin:/sbin:/usr/bin:/bin`;

/** Who made the namespace: root itself, or a normal user inside a user namespace of its own. */
export type NetnsMadeBy = 'root' | 'user-namespace';

export interface LoopbackNetns {
  madeBy: NetnsMadeBy;
  /** The namespace's first process (the relay); wrappers enter the namespace through it. */
  pid: number;
  /** True when the namespace's resolv.conf points at the relay's DNS logger. */
  dnsLogging: boolean;
  /** Every name a process in the namespace asked DNS for, oldest first (a live array). */
  dnsQueries: string[];
  /** The argv prefix that runs a command inside the namespace in `cwd` (nsenter … --). */
  enter(cwd: string): string[];
  /** Writes an executable at `path` that runs `target` (absolute) inside the namespace, in the caller's cwd. */
  writeWrapper(path: string, target: string): Promise<void>;
  /** Ends the namespace (its relay); wrappers stop working. */
  close(): Promise<void>;
}

/** Why a namespace cannot be made here, or null when it can. */
async function missing(): Promise<string | null> {
  if (process.platform !== 'linux') return `network namespaces are Linux only (this is ${process.platform})`;
  for (const tool of ['unshare', 'nsenter', 'ip', 'mount']) {
    if ((await findOnPath(tool, { PATH: SBIN_PATH })) === null) return `${tool} is not installed`;
  }
  return null;
}

/** Resolves when the relay reports ready, or with why it did not. */
function whenReady(child: ChildProcess, dnsQueries: string[]): Promise<Result<{ dnsLogging: boolean }, 'unavailable'>> {
  return new Promise((resolve) => {
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => resolve(fail('unavailable', 'the namespace relay did not start in 10 s')), 10_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(fail('unavailable', `the namespace could not be made (exit ${code}): ${stderr.trim()}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const event = JSON.parse(line) as { ready?: boolean; dnsLogging?: boolean; dns?: string };
      if (typeof event.dns === 'string') dnsQueries.push(event.dns);
      if (event.ready === true) {
        clearTimeout(timer);
        resolve(ok({ dnsLogging: event.dnsLogging === true }));
      }
    });
  });
}

/**
 * Starts a loopback-only namespace whose relay forwards 127.0.0.1:`port` to the Unix socket
 * `socketPath`; `dir` holds its resolv.conf. Fails with the reason when this machine cannot.
 */
export async function startLoopbackNetns(port: number, socketPath: string, dir: string): Promise<Result<LoopbackNetns, 'unavailable'>> {
  const why = await missing();
  if (why !== null) return fail('unavailable', why);
  const resolv = join(dir, 'resolv.conf');
  await writeFile(resolv, 'nameserver 127.0.0.1\n');
  const script = 'ip link set lo up && { mount --bind "$1" /etc/resolv.conf || true; } && shift && exec "$@"';
  const madeBy: NetnsMadeBy = process.getuid?.() === 0 ? 'root' : 'user-namespace';
  const ownUser = madeBy === 'root' ? [] : ['--map-current-user', '--keep-caps'];
  const args = [...ownUser, '--net', '--mount', '--propagation', 'private', '--', '/bin/sh', '-c', script, 'sh', resolv];
  const child = spawn('unshare', [...args, process.execPath, RELAY, String(port), socketPath], {
    env: { ...process.env, PATH: SBIN_PATH },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const dnsQueries: string[] = [];
  const ready = await whenReady(child, dnsQueries);
  if (!ready.ok || child.pid === undefined) {
    child.kill('SIGKILL');
    if (ready.ok) return fail('unavailable', 'unshare did not start');
    return madeBy === 'root' ? ready : fail('unavailable', `not root, and no user namespace of its own: ${ready.message}`);
  }
  const pid = child.pid;
  const netInode = await readlink(`/proc/${pid}/ns/net`);
  const nsenter = (await findOnPath('nsenter', { PATH: SBIN_PATH })) ?? 'nsenter';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // nsenter's own --wd opens the folder before it enters the mount namespace, which leaves the cwd
  // "(unreachable)" inside it (Codex then fails with ENOENT): change folder once inside instead.
  const enter = (cwd: string): string[] => [
    nsenter,
    '--target',
    String(pid),
    // A normal user enters the user namespace too (as itself: its credentials are the mapped ones).
    ...(madeBy === 'root' ? [] : ['--user', '--preserve-credentials']),
    '--net',
    '--mount',
    '--',
    '/bin/sh',
    '-c',
    'cd "$1" && shift && exec "$@"',
    'sh',
    cwd,
  ];
  return ok({
    madeBy,
    pid,
    dnsLogging: ready.value.dnsLogging,
    dnsQueries,
    enter,
    async writeWrapper(path, target) {
      const [command, ...args] = enter('"$(pwd -P)"');
      const quoted = args.map((arg) => (arg.startsWith('"') || /^[\w/.=-]+$/.test(arg) ? arg : `'${arg}'`));
      const line = `exec ${command} ${quoted.join(' ')} '${target}' "$@"`;
      // Run from inside the namespace already (a command the lab started there): exec it as it is. A
      // normal user could not enter it again from there, and root need not.
      const inside = `[ "$(readlink /proc/self/ns/net)" = '${netInode}' ] && exec '${target}' "$@"`;
      const header = `# ${target}, run inside the loopback-only network namespace of process ${pid}.`;
      await writeFile(path, `#!/bin/sh\n${header}\n${inside}\n${line}\n`);
      await chmod(path, 0o755);
    },
    async close() {
      child.stdin?.end();
      child.kill('SIGTERM');
      await exited;
    },
  });
}
