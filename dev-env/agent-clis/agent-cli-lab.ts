/**
 * The lab the real-CLI tests run in: one scripted model server, the installed `claude`, `codex`,
 * `copilot` and `qwen` (cli-cache.ts) behind a `bin/` folder of their own, a loopback-only network
 * namespace they run in where the machine allows it (as root, or in a user namespace of a normal
 * user's own; `isolation` says which, or why none), and throwaway homes per "device". Start one per
 * test file:
 *
 *   const lab = await AgentCliLab.start();
 *   const laptop = await lab.home('laptop');           // HOME, CLAUDE_CONFIG_DIR, CODEX_HOME, env
 *   new ClaudeCodeSession({ env: laptop.env, permission: 'workspace' })   // finds lab.binDir's claude
 *   lab.server.requests                                // what the CLIs sent
 *   await lab.close();
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptedModelServer, type ScriptedModelServer } from '../scripted-model-server/server.ts';
import { makeAgentHome, type AgentHome } from './agent-homes.ts';
import { AGENT_CLIS, agentCliPath, type AgentCli } from './cli-cache.ts';
import { startLoopbackNetns, type LoopbackNetns, type NetnsMadeBy } from './loopback-netns.ts';

/**
 * Where the CLIs run: inside a loopback-only namespace (made by root, or in a normal user's own user
 * namespace), or (said why) on the machine's network, where nothing keeps them off other hosts.
 */
export type Isolation = { kind: 'netns'; madeBy: NetnsMadeBy; pid: number; dnsLogging: boolean } | { kind: 'none'; reason: string };

export interface AgentCliLabOptions {
  /** Delay between the chunks of a "slow" reply (default 250 ms). */
  slowChunkMs?: number;
  /** Chunks in a "slow" reply (default 40). */
  slowChunks?: number;
}

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

let warned = false;

export class AgentCliLab {
  private readonly homes: AgentHome[] = [];

  private constructor(
    /** The lab's temp folder (the server's socket, the namespace's resolv.conf, `bin/`). */
    readonly root: string,
    readonly server: ScriptedModelServer,
    /** Holds `claude`, `codex`, `copilot` and `qwen`: wrappers that enter the namespace, or links to the installed CLIs. */
    readonly binDir: string,
    readonly isolation: Isolation,
    private readonly netns: LoopbackNetns | null,
  ) {}

  /** Starts the server and the namespace and readies `bin/`; says on stderr when there is no namespace. */
  static async start(options: AgentCliLabOptions = {}): Promise<AgentCliLab> {
    const clis = Object.fromEntries(AGENT_CLIS.map((cli) => [cli, agentCliPath(cli)])) as Record<AgentCli, string>;
    const root = await mkdtemp(join(tmpdir(), 'baton-agent-lab-'));
    const socketPath = join(root, 'model.sock');
    const server = await startScriptedModelServer({ ...options, socketPath });
    const netns = await startLoopbackNetns(server.port, socketPath, root);
    const binDir = join(root, 'bin');
    await mkdir(binDir);
    for (const cli of AGENT_CLIS) {
      if (netns.ok) await netns.value.writeWrapper(join(binDir, cli), clis[cli]);
      else await symlink(clis[cli], join(binDir, cli));
    }
    if (!netns.ok && !warned) {
      warned = true;
      console.warn(
        `[agent-cli-lab] the real CLIs run on this machine's own network, unisolated (no loopback-only namespace here: ${netns.message})`,
      );
    }
    const isolation: Isolation = netns.ok
      ? { kind: 'netns', madeBy: netns.value.madeBy, pid: netns.value.pid, dnsLogging: netns.value.dnsLogging }
      : { kind: 'none', reason: netns.message };
    return new AgentCliLab(root, server, binDir, isolation, netns.ok ? netns.value : null);
  }

  /** Every name a CLI asked DNS for inside the namespace (empty without one). */
  get dnsQueries(): readonly string[] {
    return this.netns?.dnsQueries ?? [];
  }

  /** A new device's throwaway homes and the env to run the CLIs with; removed at close. */
  async home(name: string): Promise<AgentHome> {
    const made = await makeAgentHome(name, this.server.url, this.binDir);
    this.homes.push(made);
    return made;
  }

  /** Runs `command` where the CLIs run (inside the namespace when there is one) and collects its output. */
  run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string }): Promise<CommandResult> {
    const argv = this.netns === null ? [command, ...args] : [...this.netns.enter(options.cwd), command, ...args];
    return new Promise((resolve) => {
      const child = spawn(argv[0] ?? command, argv.slice(1), { cwd: options.cwd, env: options.env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.on('error', (error) => resolve({ code: null, signal: null, stdout, stderr: `${stderr}${error.message}` }));
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
      child.stdin.end(options.stdin ?? '');
    });
  }

  /** Ends the namespace and the server and removes every home and the lab folder. */
  async close(): Promise<void> {
    await this.netns?.close();
    await this.server.close();
    for (const home of this.homes.splice(0)) await rm(home.root, { recursive: true, force: true });
    await rm(this.root, { recursive: true, force: true });
  }
}
