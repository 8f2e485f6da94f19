/**
 * The stand-in `claude` and `codex` executables for tests, and a sandbox that puts them first on
 * PATH with their own CLAUDE_CONFIG_DIR, CODEX_HOME, HOME and invocation log.
 */
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** The folder holding the stand-in `claude` and `codex` executables. */
export const STAND_IN_BIN = join(import.meta.dirname, 'bin');

export interface Invocation {
  tool: 'claude' | 'codex';
  argv: string[];
  cwd: string;
  env: Record<string, string | null>;
  at: string;
}

export interface StandInSandbox {
  /** PATH with the stand-ins first, plus CLAUDE_CONFIG_DIR, CODEX_HOME, a blank HOME and BATON_STANDIN_LOG. */
  env: NodeJS.ProcessEnv;
  root: string;
  logPath: string;
  /** Every stand-in invocation so far, oldest first. */
  invocations(): Promise<Invocation[]>;
  /** Removes the sandbox's folders. */
  cleanup(): Promise<void>;
}

/** Makes a fresh sandbox; `name` tells two devices' sandboxes apart in one test. */
export async function standInSandbox(name = 'device', extraEnv: NodeJS.ProcessEnv = {}): Promise<StandInSandbox> {
  const root = await mkdtemp(join(tmpdir(), `baton-standin-${name}-`));
  const logPath = join(root, 'invocations.jsonl');
  const env: NodeJS.ProcessEnv = {
    PATH: [STAND_IN_BIN, process.env.PATH ?? ''].join(delimiter),
    HOME: join(root, 'home'),
    CLAUDE_CONFIG_DIR: join(root, 'claude'),
    CODEX_HOME: join(root, 'codex'),
    BATON_STANDIN_LOG: logPath,
    ...extraEnv,
  };
  return {
    env,
    root,
    logPath,
    async invocations() {
      const text = await readFile(logPath, 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Invocation);
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

export interface StandInDevice {
  sandbox: StandInSandbox;
  /** An empty workspace folder (resolved through symlinks). */
  workspace: string;
  /** Removes the sandbox and the workspace. */
  cleanup(): Promise<void>;
}

/** A sandbox plus an empty workspace: one "device" of a provider round-trip test. */
export async function standInDevice(name: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<StandInDevice> {
  const sandbox = await standInSandbox(name, extraEnv);
  const workspace = await realpath(await mkdtemp(join(tmpdir(), `baton-ws-${name}-`)));
  return {
    sandbox,
    workspace,
    async cleanup() {
      await sandbox.cleanup();
      await rm(workspace, { recursive: true, force: true });
    },
  };
}

/** Devices and sessions made for one test, all torn down by `cleanup()` (call it in afterEach). */
export class StandInLab {
  private readonly cleanups: (() => Promise<void>)[] = [];

  /** A new stand-in device, removed at cleanup. */
  async device(name: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<StandInDevice> {
    const made = await standInDevice(name, extraEnv);
    this.cleanups.push(() => made.cleanup());
    return made;
  }

  /** Stops `session` at cleanup (before its device is removed); returns it. */
  track<T extends { stop(): Promise<void> }>(session: T): T {
    this.cleanups.push(() => session.stop());
    return session;
  }

  /** Runs every cleanup, newest first. */
  async cleanup(): Promise<void> {
    for (const cleanup of this.cleanups.splice(0).reverse()) await cleanup();
  }
}

/** The folder holding the hostile `claude` and `codex` (hostile/): each does what its message names, against the device. */
export const HOSTILE_BIN = join(import.meta.dirname, 'hostile');
