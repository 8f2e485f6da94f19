/**
 * What `baton demo` runs, composed from the product's own parts in this one process: an embedded
 * backend, a sample repository with a bare origin (made with the product's git runner), and two
 * enrolled devices — "laptop" creates the account, "desktop" joins with the laptop's invite —
 * each serving its UI on 127.0.0.1, with a demo-agent session on the laptop.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBackend } from '../backend/backend.ts';
import type { DeviceApiHandlers, SessionView } from '../shared/device-api.ts';
import type { Result } from '../shared/errors.ts';
import { fileSecretStore } from '../electron/crypto/secret-store.ts';
import { createGitRunner, gitFailureText, type GitRunner } from '../electron/git/git-runner.ts';
import { startWebHost, type WebHost } from '../electron/host/web-host.ts';
import { createEnrollingDevice, DEFAULT_RUNTIME_TIMING, type EnrollingDevice } from '../electron/runtime/enrolling-device.ts';

export interface DemoWorld {
  backendUrl: string;
  laptopUrl: string;
  desktopUrl: string;
  /** The laptop's clone (the session's workspace) and its bare origin. */
  repo: string;
  origin: string;
  session: SessionView;
  /** Stops both devices, their hosts and the backend (the caller removes `root`). */
  stop(): Promise<void>;
}

export interface DemoWorldOptions {
  /** An empty folder that holds everything the demo makes. */
  root: string;
  rendererDir: string;
  log(message: string): void;
}

/** The demo's git identity, used only where the user has none configured (commits need one). */
const DEMO_IDENTITY = {
  GIT_AUTHOR_NAME: 'Baton Demo',
  GIT_AUTHOR_EMAIL: 'demo@baton.invalid',
  GIT_COMMITTER_NAME: 'Baton Demo',
  GIT_COMMITTER_EMAIL: 'demo@baton.invalid',
};

async function git(run: GitRunner, cwd: string, args: string[]): Promise<void> {
  const result = await run(args, { cwd });
  if (result.code !== 0) throw new Error(`git ${args[0]} failed: ${gitFailureText(result)}`);
}

/** A bare origin and a clone on main with a small parser and its (flaky) test, pushed. */
async function sampleRepository(root: string, run: GitRunner): Promise<{ repo: string; origin: string }> {
  const origin = join(root, 'origins', 'app.git');
  const repo = join(root, 'laptop-ws', 'app');
  mkdirSync(origin, { recursive: true });
  mkdirSync(repo, { recursive: true });
  await git(run, origin, ['init', '-q', '--bare', '-b', 'main']);
  await git(run, repo, ['init', '-q', '-b', 'main']);
  await git(run, repo, ['remote', 'add', 'origin', origin]);
  const files: [string, string, string][] = [
    ['README.md', '# app\n\nA sample repository for the Baton demo.\n', 'Start the app'],
    ['src/parser.ts', 'export function parse(input: string): string[] {\n  return input.split(",");\n}\n', 'Add the parser'],
    ['test/parser.test.ts', 'import { parse } from "../src/parser";\n// flaky: fix me\n', 'Add a parser test'],
  ];
  for (const [file, content, message] of files) {
    mkdirSync(join(repo, file, '..'), { recursive: true });
    writeFileSync(join(repo, file), content);
    await git(run, repo, ['add', '--', file]);
    await git(run, repo, ['commit', '-q', '-m', message]);
  }
  await git(run, repo, ['push', '-q', '-u', 'origin', 'main']);
  return { repo, origin };
}

/** The value of a successful step, or an error naming the step and why it was refused. */
function valueOf<T>(step: string, result: Result<T>): T {
  if (!result.ok) throw new Error(`${step} failed: ${result.code}: ${result.message}`);
  return result.value;
}

/** Waits until `check` returns a value, polling every 200 ms for at most `ms`. */
async function poll<T>(what: string, check: () => Promise<T | undefined>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`the demo timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Starts the backend, the sample repository, both devices and the laptop's session. */
export async function startDemoWorld(options: DemoWorldOptions): Promise<DemoWorld> {
  const { root, log } = options;
  for (const [key, value] of Object.entries(DEMO_IDENTITY)) process.env[key] ??= value;
  const run = createGitRunner();
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch((error: Error) => log(`stopping: ${error.message}`));
  };
  try {
    const backend = await startBackend({ dataDir: join(root, 'backend-data'), host: '127.0.0.1', port: 0 });
    stops.push(() => backend.close());
    const { repo, origin } = await sampleRepository(root, run);

    const device = async (name: string): Promise<{ device: EnrollingDevice; host: WebHost; api: () => DeviceApiHandlers }> => {
      const workspaceRoot = join(root, `${name}-ws`);
      mkdirSync(workspaceRoot, { recursive: true });
      const made = createEnrollingDevice({
        profileDir: join(root, `${name}-profile`),
        secretStore: fileSecretStore,
        runtime: {
          workspaceRoot,
          heartbeatMs: 2_000,
          config: DEFAULT_RUNTIME_TIMING.config,
          providers: { demo: { turnMs: 1_500 } },
          log: (message) => log(`[${name}] ${message}`),
        },
      });
      await made.start();
      stops.push(() => made.stop());
      const host = await startWebHost({
        port: 0,
        rendererDir: options.rendererDir,
        handlers: () => made.handlers(),
        subscribe: (l) => made.subscribe(l),
      });
      stops.push(() => host.close());
      return { device: made, host, api: () => made.handlers() };
    };

    const laptop = await device('laptop');
    valueOf('creating the account', await laptop.api().createAccount({ backendUrls: [backend.url], deviceName: 'laptop' }));
    const { invite } = valueOf('making an invite', await laptop.api().createInvite({}));
    const desktop = await device('desktop');
    valueOf('joining the account', await desktop.api().joinAccount({ invite, deviceName: 'desktop' }));

    const session = valueOf(
      'starting the session',
      await laptop.api().startSession({
        workspace: repo,
        provider: 'demo',
        prompt: 'Find out why the parser test is flaky',
        title: 'Fix the flaky parser test',
      }),
    );
    await poll(
      'the first demo turn',
      async () => {
        const detail = await laptop.api().getSession({ sessionId: session.id });
        return detail?.transcript.some((e) => e.role === 'assistant') ? true : undefined;
      },
      30_000,
    );
    await poll(
      'the desktop to be eligible',
      async () => {
        const list = await laptop.api().moveEligibility({ sessionId: session.id });
        return list.some((e) => e.name === 'desktop' && e.eligible) ? true : undefined;
      },
      30_000,
    ).catch((error: Error) => log(error.message));
    return { backendUrl: backend.url, laptopUrl: laptop.host.url, desktopUrl: desktop.host.url, repo, origin, session, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
