/**
 * Two machines on one network, made of network namespaces: host A and host B, each with its own
 * loopback and its own address on a veth pair that joins them (A at 10.10.0.1, B at 10.10.0.2, a
 * /24), and nothing else — no route out, no other interface. A process started on a host sees only
 * that host's network: its 127.0.0.1 is its own, and the other host is reachable at its address
 * alone. The file system is shared, as it would not be between two machines; the tests keep each
 * host's files in folders of its own.
 *
 * Root makes the namespaces directly (`unshare --net`); a normal user makes them inside a user
 * namespace of its own that maps the user to itself (`unshare --map-current-user --keep-caps --net`),
 * where a namespace may make another and a veth pair between them, and processes enter it as that
 * same user (`nsenter --user --preserve-credentials`). Either way the namespaces live as long as their
 * first processes (hold-hosts.sh), which end when the lab is closed or the test process dies. Needs
 * util-linux's `unshare`/`nsenter` (2.38 or later for a normal user) and iproute2's `ip`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { findOnPath } from '../../electron/providers/detect.ts';

const HOLDER = join(import.meta.dirname, 'hold-hosts.sh');
const SBIN_PATH = `${process.env.PATH ?? ''}:/usr/sbin:/sbin:/usr/bin:/bin`;
const SUBNET = '10.10.0';

/** One of the two machines. */
export interface Host {
  name: 'A' | 'B';
  /** Its address on the network the two share. */
  address: string;
  /** The first process of its namespace (processes enter the namespace through it). */
  pid: number;
  /** The argv prefix that runs a command on this host, in place (signals reach the command). */
  launcher: string[];
  /** Writes an executable at `path` that runs `target` (absolute) on this host with the arguments it is given. */
  writeWrapper(path: string, target: string): Promise<void>;
}

export interface HostLab {
  /** How the hosts were made: by root, or by a normal user inside a user namespace of its own. */
  madeBy: 'root' | 'user-namespace';
  a: Host;
  b: Host;
  /** Ends both namespaces (stop what runs on them first). */
  close(): Promise<void>;
}

/** Why the hosts cannot be made on this machine, or null when they can. */
export async function whyNoHostLab(): Promise<string | null> {
  if (process.platform !== 'linux') return `network namespaces are Linux only (this is ${process.platform})`;
  for (const tool of ['unshare', 'nsenter', 'ip']) {
    if ((await findOnPath(tool, { PATH: SBIN_PATH })) === null) return `${tool} is not installed`;
  }
  return null;
}

/** Resolves with the two pids once the holder says ready; rejects with its stderr when it exits first. */
function whenReady(child: ChildProcess): Promise<[number, number]> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => reject(new Error('the two hosts were not made within 10 s')), 10_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the two hosts could not be made (exit ${code}): ${stderr.trim()}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /^ready (\d+) (\d+)$/.exec(line);
      if (!match) return;
      clearTimeout(timer);
      resolve([Number(match[1]), Number(match[2])]);
    });
  });
}

/** Makes host A and host B joined by a veth pair; throws with why when this machine cannot. */
export async function startHostLab(): Promise<HostLab> {
  const why = await whyNoHostLab();
  if (why !== null) throw new Error(`cannot make two hosts here: ${why}`);
  const madeBy = process.getuid?.() === 0 ? 'root' : 'user-namespace';
  const ownUser = madeBy === 'root' ? [] : ['--map-current-user', '--keep-caps'];
  const holder = spawn('unshare', [...ownUser, '--net', '--', '/bin/sh', HOLDER, SUBNET], {
    env: { ...process.env, PATH: SBIN_PATH },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let pids: [number, number];
  try {
    pids = await whenReady(holder);
  } catch (error) {
    holder.kill('SIGKILL');
    throw error;
  }
  const nsenter = (await findOnPath('nsenter', { PATH: SBIN_PATH })) ?? 'nsenter';
  const host = (name: 'A' | 'B', pid: number, address: string): Host => {
    // A normal user enters the user namespace too, as itself (its credentials are the mapped ones).
    const launcher = [nsenter, '--target', String(pid), ...(madeBy === 'root' ? [] : ['--user', '--preserve-credentials']), '--net', '--'];
    return {
      name,
      address,
      pid,
      launcher,
      async writeWrapper(path, target) {
        const quoted = [...launcher, target].map((arg) => `'${arg}'`).join(' ');
        await writeFile(path, `#!/bin/sh\n# ${target}, run on host ${name} (${address}).\nexec ${quoted} "$@"\n`);
        await chmod(path, 0o755);
      },
    };
  };
  const exited = new Promise<void>((resolve) => holder.once('exit', () => resolve()));
  return {
    madeBy,
    a: host('A', pids[0], `${SUBNET}.1`),
    b: host('B', pids[1], `${SUBNET}.2`),
    async close() {
      holder.stdin?.end();
      const killer = setTimeout(() => holder.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    },
  };
}
