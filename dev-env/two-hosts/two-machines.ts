/**
 * Two machines running Baton the way a person sets it up: host A ("desk") and host B ("laptop") of a
 * host lab (host-lab.ts), each running `npm start` (scripts/start.js, headless: no display, no
 * Electron) with a home of its own, and a git sandbox whose origin both reach (through the shared file
 * system) with a clone on desk. Desk creates the account and so hosts its backend; the laptop joins
 * with an invite. `npm start` on a host runs there, in place: a signal to it reaches the script.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createGitSandbox, type GitSandbox } from '../git-sandbox.ts';
import { PROJECT_ROOT, startScript, type RunningProcess } from '../process-harness.ts';
import { startHostLab, type Host, type HostLab } from './host-lab.ts';

const START = join(PROJECT_ROOT, 'scripts', 'start.js');

/** One machine: its host, its name and home, and its `npm start` once started. */
export interface Machine {
  host: Host;
  name: string;
  /** BATON_HOME: its profile and, when it hosts the backend, the backend's data. */
  home: string;
  /** Its `npm start`, while it runs. */
  process: RunningProcess | null;
  /** The UI address `npm start` printed (with its token). */
  ui(): string;
  /** Runs `npm start` on this machine (with `env` on top, e.g. BATON_INVITE), until it says where its UI is. */
  start(env?: NodeJS.ProcessEnv): Promise<RunningProcess>;
  /** Stops its `npm start` (SIGTERM, as Ctrl+C does), resolving with its exit code. */
  stop(): Promise<number | string | null>;
}

export interface TwoMachines {
  lab: HostLab;
  sandbox: GitSandbox;
  /** The repository's clone on desk (host A), pushed to the origin. */
  repo: string;
  desk: Machine;
  laptop: Machine;
  /** Another machine on `host` (a home of its own), stopped with the others. */
  machineOn(host: Host, name: string): Machine;
  close(): Promise<void>;
}

/** What `npm start` runs with on every machine: headless, the sandbox's git identity, quick demo turns and heartbeats. */
function startEnv(sandbox: GitSandbox, root: string, name: string, home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...sandbox.env,
    BATON_HOME: home,
    BATON_NAME: name,
    // No Electron here: npm start says so and runs the headless device.
    BATON_ELECTRON_PACKAGE: join(root, 'no-electron'),
    BATON_HEARTBEAT_MS: '1000',
    BATON_DEMO_TURN_MS: '200',
    BATON_PREPARE_TIMEOUT_MS: '20000',
  };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  delete env.BATON_BACKEND;
  delete env.BATON_UI_PORT;
  delete env.BATON_INVITE;
  return env;
}

/** Makes the two hosts and the repository; starts nothing on them yet. */
export async function startTwoMachines(prefix = 'baton-two-machines-'): Promise<TwoMachines> {
  const lab = await startHostLab();
  const sandbox = createGitSandbox(prefix);
  const origin = sandbox.makeOrigin('app');
  mkdirSync(join(sandbox.root, 'no-electron'), { recursive: true });
  const repo = sandbox.clone(origin, join(sandbox.root, 'desk-home', 'src', 'app'));
  const machine = (host: Host, name: string): Machine => {
    const home = join(sandbox.root, `${name}-home`);
    const made: Machine = {
      host,
      name,
      home,
      process: null,
      ui: () => /baton: open (\S+) in a browser/.exec(made.process?.stdout() ?? '')?.[1] ?? '',
      async start(env = {}) {
        made.process = await startScript(
          START,
          [],
          'baton: open ',
          { ...startEnv(sandbox, sandbox.root, name, home), ...env },
          120_000,
          host.launcher,
        );
        return made.process;
      },
      async stop() {
        const running = made.process;
        made.process = null;
        return running ? running.stop(15_000) : null;
      },
    };
    return made;
  };
  const machines: Machine[] = [];
  const machineOn = (host: Host, name: string) => {
    const made = machine(host, name);
    machines.push(made);
    return made;
  };
  const desk = machineOn(lab.a, 'desk');
  const laptop = machineOn(lab.b, 'laptop');
  return {
    lab,
    sandbox,
    repo,
    desk,
    laptop,
    machineOn,
    async close() {
      await Promise.all(machines.map((m) => m.stop()));
      await lab.close();
      sandbox.cleanup();
    },
  };
}
