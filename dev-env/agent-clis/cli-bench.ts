/**
 * What a real-CLI provider test needs around an AgentCliLab: "devices" (throwaway homes plus a clone
 * of one bare origin), sessions stopped after each test, and a turn that waits for the agent.
 *
 *   const bench = useCliBench();                          // in a test file: started and closed by its hooks
 *   const { home, workspace } = await bench.device('laptop');
 *   const claude = bench.track(new ClaudeCodeSession({ env: home.env }));
 *   await bench.turn(claude, 'write file a.txt with hi', workspace);   // start, then wait until idle
 *   bench.texts(claude)                                   // ['user: …', 'tool: …', 'assistant: …']
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { ContinuationInput, ProviderSession } from '../../shared/provider.ts';
import { waitForIdle } from '../../electron/providers/wait-idle.ts';
import { createGitSandbox, type GitSandbox } from '../git-sandbox.ts';
import type { ModelApi, RecordedRequest } from '../scripted-model-server/server.ts';
import { AgentCliLab, type AgentCliLabOptions } from './agent-cli-lab.ts';
import type { AgentHome } from './agent-homes.ts';

export interface BenchDevice {
  home: AgentHome;
  /** A clone of the bench's origin (a real git repository with a bare "origin" remote). */
  workspace: string;
}

/** A continuation input for tests that resume a moved session (what the summary path would render). */
export const SAMPLE_CONTINUATION: ContinuationInput = {
  sessionTitle: 'Plan the release',
  sourceDeviceName: 'laptop',
  packet: { goal: 'Plan the release', acceptanceCriteria: 'notes.txt', currentState: 'started', nextAction: 'write more' },
  verifiedFacts: [],
  driftWarnings: [],
  transcriptTail: [],
};

/**
 * A bench for the calling test file: started before its tests, sessions stopped after each, closed
 * after all — failing the file if a CLI tried to reach anything but the scripted model API.
 */
export function useCliBench(options: AgentCliLabOptions = {}): CliBench {
  const bench = new CliBench();
  beforeAll(() => bench.start(options));
  afterEach(() => bench.stopSessions());
  afterAll(async () => {
    const stray = bench.strayTraffic();
    await bench.close();
    if (stray.length > 0) throw new Error(`a CLI tried to reach something other than the scripted model API: ${stray.join(', ')}`);
  });
  return bench;
}

export class CliBench {
  private readonly sessions: ProviderSession[] = [];
  private clones = 0;
  private started: { lab: AgentCliLab; git: GitSandbox; origin: string } | null = null;

  /** Starts a lab and makes the origin repository. */
  async start(options: AgentCliLabOptions = {}): Promise<void> {
    const lab = await AgentCliLab.start(options);
    const git = createGitSandbox('baton-cli-bench-');
    this.started = { lab, git, origin: git.makeOrigin('app') };
  }

  private get parts(): { lab: AgentCliLab; git: GitSandbox; origin: string } {
    if (this.started === null) throw new Error('the bench is not started (useCliBench starts it in beforeAll)');
    return this.started;
  }

  get lab(): AgentCliLab {
    return this.parts.lab;
  }

  /**
   * A device's homes and a fresh clone of the origin; `under` puts the clone below that folder
   * (relative to the bench's temp root, e.g. a path over 200 characters).
   */
  async device(name: string, under = ''): Promise<BenchDevice> {
    const { lab, git, origin } = this.parts;
    const parent = join(git.root, under);
    mkdirSync(parent, { recursive: true });
    return { home: await lab.home(name), workspace: git.clone(origin, join(parent, `${name}-${++this.clones}`)) };
  }

  /** Stops `session` at the next stopSessions(); returns it. */
  track<T extends ProviderSession>(session: T): T {
    this.sessions.push(session);
    return session;
  }

  /** Starts the session in `workspace` with `text` (or sends `text`), then waits until the turn has ended. */
  async turn(session: ProviderSession, text: string, workspace?: string): Promise<void> {
    const sent = workspace === undefined ? await session.send(text) : await session.start(workspace, text);
    if (!sent.ok) throw new Error(`the turn "${text}" was refused: ${sent.code} ${sent.message}`);
    if (!(await waitForIdle(session, 30_000))) throw new Error(`the turn "${text}" did not end within 30 s`);
  }

  /** The session's transcript as "role: text" lines. */
  texts(session: ProviderSession): string[] {
    return session.snapshot().transcript.map((entry) => `${entry.role}: ${entry.text}`);
  }

  /** The newest model call of `api` the scripted server received. */
  lastRequest(api: ModelApi): RecordedRequest | undefined {
    return this.lab.server.requests.filter((request) => request.api === api).at(-1);
  }

  /** Resolves once the server has received a model call whose newest user text starts with `prefix`. */
  async requested(prefix: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.lab.server.requests.some((r) => r.lastUserText?.startsWith(prefix) === true)) {
      if (Date.now() > deadline) throw new Error(`no model call for "${prefix}" within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Names looked up and requests off the model routes so far (none is expected from the CLIs). */
  strayTraffic(): string[] {
    const { lab } = this.parts;
    const offRoute = lab.server.requests.filter((r) => r.api === 'other').map((r) => `${r.method} ${r.path}`);
    return [...lab.dnsQueries.map((name) => `DNS ${name}`), ...offRoute];
  }

  /** Stops every tracked session (call in afterEach). */
  async stopSessions(): Promise<void> {
    for (const session of this.sessions.splice(0)) await session.stop();
  }

  /** Stops the sessions, the lab and removes the repositories (call in afterAll). */
  async close(): Promise<void> {
    await this.stopSessions();
    await this.started?.lab.close();
    this.started?.git.cleanup();
    this.started = null;
  }
}
