/**
 * The desktop shell builds the way `electron-forge package` builds it: Forge's own Vite config
 * generator over forge.config.ts, then Vite (main, preload and the renderer, each where the packaged
 * app has it). The packaged app ships only those bundles (no
 * node_modules), so the main bundle may import nothing but Electron and Node's built-ins, and the
 * sandboxed preload may require nothing but Electron. Then the built main bundle runs under plain
 * Node on a stand-in for Electron's module (dev-env/stand-ins/electron), against a real
 * backend: its window, lock-down and IPC bridge, and a first run through that bridge; then a second
 * app with no backend, whose first run creates the account on a backend it hosts in a child process
 * (the built backend-host.js, through the stand-in's utilityProcess), locks its profile against a
 * third app and stops the backend when it quits; and the built preload runs in a context that offers
 * only `require('electron')`, as a sandboxed preload gets.
 * The built renderer page's CSP meta tag is checked against the shell's header and the headless
 * host's. (The Electron binary cannot be downloaded here, so no real window opens in CI.)
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { createContext, Script } from 'node:vm';
import ViteConfigGenerator from '@electron-forge/plugin-vite/dist/ViteConfig.js';
import type { VitePluginConfig } from '@electron-forge/plugin-vite/dist/Config.js';
import { build, type InlineConfig } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import forgeConfig from '../../forge.config.ts';
import { CONTENT_SECURITY_POLICY, HEADER_ONLY_DIRECTIVES } from '../../shared/content-security-policy.ts';
import type { DeviceApiHandlers, DeviceStatusView } from '../../shared/device-api.ts';
import { EVENT_NAMES } from '../../shared/device-api.ts';
import { METHOD_NAMES, subscriptionName } from '../../shared/device-bridge.ts';
import { createGitSandbox } from '../../dev-env/git-sandbox.ts';
import { PROJECT_ROOT, startBaton, type RunningProcess } from '../../dev-env/process-harness.ts';
import { startWebHost } from '../host/web-host.ts';
import { createBackendClient } from '../sync/backend-client.ts';
import { BackendTrust } from '../sync/backend-trust.ts';
import { eventChannel, methodChannel } from './ipc-channels.ts';

/** Laid out as in the packaged app: <root>/.vite/build/{main,preload}.js, Electron's module beside. */
let root: string;
let outDir: string;

/** The module specifiers a bundle loads at run time (static imports, and require calls outside strings). */
function importsOf(code: string): string[] {
  const found = new Set<string>();
  for (const match of code.matchAll(/(?:^|[;\n}])\s*import\s*(?:[\w$*{}\s,]+from\s*)?["']([^"']+)["']/g)) found.add(match[1]!);
  for (const match of code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) found.add(match[1]!);
  for (const match of code.matchAll(/(?<![`"'\\])\brequire\(\s*["']([^"']+)["']\s*\)/g)) found.add(match[1]!);
  return [...found].sort();
}

const NODE = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'baton-shell-build-'));
  outDir = join(root, '.vite', 'build');
  const plugin = forgeConfig.plugins?.find((p) => (p as { name?: string }).name === 'vite') as unknown as
    { config: VitePluginConfig } | undefined;
  if (!plugin) throw new Error('forge.config.ts has no Vite plugin');
  const generator = new ViteConfigGenerator(plugin.config, PROJECT_ROOT, true);
  const configs: InlineConfig[] = await generator.getBuildConfigs();
  for (const config of configs) {
    await build({ ...config, logLevel: 'error', build: { ...config.build, outDir, emptyOutDir: false, watch: null } });
  }
  for (const config of await generator.getRendererConfig()) {
    const rendererOut = join(root, '.vite', 'renderer', 'main_window');
    await build({ ...config, logLevel: 'error', build: { ...config.build, outDir: rendererOut, emptyOutDir: true, watch: null } });
  }
}, 120_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('the desktop shell as Forge builds it', () => {
  it('has a main bundle that imports only Electron and Node built-ins', () => {
    const main = readFileSync(join(outDir, 'main.js'), 'utf8');
    const imports = importsOf(main);
    expect(imports).toContain('electron');
    expect(imports.filter((name) => name !== 'electron' && !NODE.has(name))).toEqual([]);
    // The renderer name Forge defines is baked in (the window loads main_window/index.html).
    expect(main).toContain('main_window');
  });

  it('has a hosted-backend bundle beside main that imports only Node built-ins and the native SQLite module', () => {
    const host = readFileSync(join(outDir, 'backend-host.js'), 'utf8');
    expect(importsOf(host).filter((name) => !NODE.has(name))).toEqual(['better-sqlite3']);
    expect(host).toContain('parentPort');
  });

  it('has a sandbox-safe preload: one CommonJS file that requires only electron', () => {
    const preload = readFileSync(join(outDir, 'preload.js'), 'utf8');
    expect(importsOf(preload)).toEqual(['electron']);
    expect(preload).not.toMatch(/^\s*import\s/m);
    expect(preload).toContain('contextBridge');
  });
});

/** Whether a backend answers its health at `url`, accepting only the key `pin`. */
async function backendAnswers(url: string, pin: string): Promise<boolean> {
  const signer = { deviceId: 'probe', sign: () => new Uint8Array(64) };
  return (await createBackendClient({ baseUrl: url, signer, trust: new BackendTrust([pin]), attempts: 1, timeoutMs: 3000 }).call('health'))
    .ok;
}

/** A policy as directive name → its sources, sorted: two policies are the same when these are equal. */
function directives(policy: string): Record<string, string[]> {
  const parsed = policy
    .split(';')
    .map((part) => part.trim().split(/\s+/))
    .filter((words) => words[0] !== '')
    .map(([name, ...sources]) => [name!.toLowerCase(), sources.sort()] as const);
  return Object.fromEntries(parsed);
}

/** The built main process on the stand-in Electron, driven one JSON line at a time. */
class StandInApp {
  private readonly answers: string[] = [];
  private readonly waiting: ((line: string) => void)[] = [];
  stderr = '';

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('standin: ')) return;
      const waiter = this.waiting.shift();
      if (waiter) waiter(line.slice(9));
      else this.answers.push(line.slice(9));
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
  }

  next(): Promise<string> {
    const ready = this.answers.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer from the app; its stderr:\n${this.stderr}`)), 20_000);
      this.waiting.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
    });
  }

  async ask<T>(command: Record<string, unknown>): Promise<T> {
    this.child.stdin.write(`${JSON.stringify(command)}\n`);
    return JSON.parse(await this.next()) as T;
  }
}

describe('the built main process on a stand-in Electron', () => {
  let backend: RunningProcess;
  let app: StandInApp;
  const home = () => join(root, 'home');

  beforeAll(async () => {
    backend = await startBaton(['backend', '--data', join(root, 'backend'), '--port', '0'], 'backend: ');
    mkdirSync(join(root, 'node_modules'), { recursive: true });
    symlinkSync(join(PROJECT_ROOT, 'dev-env', 'stand-ins', 'electron'), join(root, 'node_modules', 'electron'), 'dir');
    const child = spawn(process.execPath, [join(outDir, 'main.js')], { cwd: root, env: { ...process.env, BATON_STANDIN_HOME: home() } });
    app = new StandInApp(child);
    expect(await app.next()).toBe('ready');
  }, 60_000);

  afterAll(async () => {
    if (app && app.child.exitCode === null) app.child.kill('SIGKILL');
    await backend?.stop();
  });

  it('opens one locked-down window on the packaged renderer, with the preload beside main', async () => {
    type Report = {
      sandbox: boolean;
      singleInstance: boolean;
      csp: string[];
      permissionAnswers: boolean[];
      handlers: string[];
      appEvents: string[];
      windows: { options: { webPreferences: Record<string, unknown> }; url: string }[];
    };
    const report = await app.ask<Report>({ op: 'report' });
    expect(report).toMatchObject({ sandbox: true, singleInstance: true, permissionAnswers: [false, false] });
    expect(report.windows).toHaveLength(1);
    expect(report.windows[0]!.url).toBe(pathToFileURL(join(root, '.vite', 'renderer', 'main_window', 'index.html')).href);
    expect(report.windows[0]!.options.webPreferences).toMatchObject({
      preload: join(outDir, 'preload.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    });
    expect(report.csp).toHaveLength(1);
    expect(report.csp[0]).toContain("default-src 'none'");
    expect(report.csp[0]).toContain("script-src 'self'");
    expect(report.csp[0]).not.toContain('unsafe');
    expect(report.handlers).toEqual(METHOD_NAMES.map(methodChannel).sort());
    expect(report.appEvents).toEqual(
      expect.arrayContaining(['web-contents-created', 'before-quit', 'window-all-closed', 'second-instance']),
    );
  });

  it("gives the built renderer page one CSP: its meta tag, the shell's header and the headless host's header agree", async () => {
    const rendererDir = join(root, '.vite', 'renderer', 'main_window');
    const page = readFileSync(join(rendererDir, 'index.html'), 'utf8');
    const metas = [...page.matchAll(/<meta http-equiv="Content-Security-Policy" content="([^"]*)"/g)].map((m) => m[1]!);
    expect(metas).toHaveLength(1);
    const meta = metas[0]!.replaceAll('&#39;', "'");
    const [shellHeader] = (await app.ask<{ csp: string[] }>({ op: 'report' })).csp;
    const host = await startWebHost({ port: 0, rendererDir, handlers: () => ({}) as DeviceApiHandlers, subscribe: () => () => undefined });
    try {
      const answer = await fetch(host.url, { headers: { Host: `127.0.0.1:${host.port}` } });
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain(metas[0]);
      const hostHeader = answer.headers.get('content-security-policy') ?? '';
      expect(directives(shellHeader!)).toEqual(directives(CONTENT_SECURITY_POLICY));
      expect(directives(hostHeader)).toEqual(directives(shellHeader!));
      // A meta tag cannot carry frame-ancestors (browsers ignore it there, and log so): the rest is the same.
      const headerOnly = Object.entries(directives(shellHeader!)).filter(([name]) => HEADER_ONLY_DIRECTIVES.includes(name));
      expect(headerOnly.map(([name]) => name)).toEqual(['frame-ancestors']);
      expect({ ...directives(meta), ...Object.fromEntries(headerOnly) }).toEqual(directives(shellHeader!));
      expect(Object.keys(directives(meta))).not.toContain('frame-ancestors');
    } finally {
      await host.close();
    }
  });

  it('refuses every navigation of the window, by both of its guards', async () => {
    expect(await app.ask<boolean[]>({ op: 'navigate', url: 'https://example.com/' })).toEqual([true, true]);
  });

  it('answers the device API only to its own window, and runs a first run through it with keys kept by safeStorage', async () => {
    const status = (sender: string) => app.ask({ op: 'invoke', channel: methodChannel('getStatus'), input: {}, sender });
    expect(await status('stranger')).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await status('window')).toMatchObject({ ok: true, result: { enrolled: false, deviceName: hostname() } });
    const refused = await app.ask({
      op: 'invoke',
      channel: methodChannel('createAccount'),
      input: { backendUrls: ['not a url'], deviceName: 'x' },
      sender: 'window',
    });
    expect(refused).toMatchObject({ ok: false, error: { code: 'validation_failed' } });

    const created = await app.ask({
      op: 'invoke',
      channel: methodChannel('createAccount'),
      input: { backendUrls: [backend.url, 'http://127.0.0.1:9'], deviceName: 'desktop app' },
      sender: 'window',
    });
    expect(created).toMatchObject({
      ok: true,
      result: { ok: true, value: { enrolled: true, deviceName: 'desktop app', backendUrls: [backend.url, 'http://127.0.0.1:9'] } },
    });
    // The app keeps the addresses in its settings, so the next start uses them.
    const settings = JSON.parse(readFileSync(join(home(), 'userData', 'settings.json'), 'utf8')) as { backendUrls?: string[] };
    expect(settings.backendUrls).toEqual([backend.url, 'http://127.0.0.1:9']);
    const providers = await app.ask<{ ok: boolean; result: { id: string }[] }>({
      op: 'invoke',
      channel: methodChannel('listProviders'),
      input: {},
      sender: 'window',
    });
    expect(providers.result.map((p) => p.id)).toContain('demo');
    // Device secrets went through safeStorage (files ending .safe), none in the clear.
    const profileFiles = readdirSync(join(home(), 'userData', 'profile'));
    expect(profileFiles.some((name) => name.endsWith('.safe'))).toBe(true);
  }, 30_000);

  it('raises a desktop notification for a blocked move, naming the session and the device; a click shows the window on its run view', async () => {
    const box = createGitSandbox('baton-shell-notice-');
    try {
      const repo = box.clone(box.makeOrigin('app'), 'app');
      const invoke = <T>(method: Parameters<typeof methodChannel>[0], input: unknown) =>
        app.ask<{ ok: boolean; result: T }>({ op: 'invoke', channel: methodChannel(method), input, sender: 'window' });
      const started = await invoke<{ ok: true; value: { id: string } }>('startSession', {
        workspace: repo,
        provider: 'demo',
        prompt: 'Look around',
        title: 'Tidy the parser',
      });
      const sessionId = started.result.value.id;
      box.writeFile(repo, 'draft.txt', 'not committed');
      const moved = await invoke<{ ok: boolean; code?: string }>('startMove', { sessionId, targetDeviceId: 'laptop-device-id' });
      expect(moved.result).toMatchObject({ ok: false, code: 'blocked' });
      const shown = await app.ask<{ title: string; body: string }[]>({ op: 'notifications' });
      expect(shown).toHaveLength(1);
      expect(shown[0]!.title).toBe('Move blocked');
      expect(shown[0]!.body).toContain('“Tidy the parser”');
      expect(shown[0]!.body).toContain('desktop app');
      type Clicked = { shown: boolean; focused: boolean; messages: { channel: string; payload: unknown }[] };
      const clicked = await app.ask<Clicked>({ op: 'clickNotification', index: 0 });
      expect(clicked).toMatchObject({ shown: true, focused: true });
      expect(clicked.messages.filter((m) => m.channel === eventChannel('noticeClicked'))).toEqual([
        { channel: eventChannel('noticeClicked'), payload: { sessionId } },
      ]);
    } finally {
      box.cleanup();
    }
  }, 30_000);

  it('quits cleanly', async () => {
    const exited = new Promise<number | null>((resolve) => app.child.once('exit', (code) => resolve(code)));
    app.child.stdin.write(`${JSON.stringify({ op: 'quit' })}\n`);
    expect(await exited).toBe(0);
  });
});

describe("the built main process hosting the account's backend", () => {
  let app: StandInApp;
  const home = () => join(root, 'hosting-home');
  const invoke = <T>(method: Parameters<typeof methodChannel>[0], input: unknown) =>
    app.ask<{ ok: boolean; result: T }>({ op: 'invoke', channel: methodChannel(method), input, sender: 'window' });
  const start = () =>
    new StandInApp(spawn(process.execPath, [join(outDir, 'main.js')], { cwd: root, env: { ...process.env, BATON_STANDIN_HOME: home() } }));
  let url = '';
  let pin = '';

  beforeAll(async () => {
    mkdirSync(join(root, 'node_modules'), { recursive: true });
    // The packaged app carries the native SQLite module beside its bundles (forge.config.ts).
    if (!existsSync(join(root, 'node_modules', 'better-sqlite3')))
      symlinkSync(join(PROJECT_ROOT, 'node_modules', 'better-sqlite3'), join(root, 'node_modules', 'better-sqlite3'), 'dir');
    if (!existsSync(join(root, 'node_modules', 'electron')))
      symlinkSync(join(PROJECT_ROOT, 'dev-env', 'stand-ins', 'electron'), join(root, 'node_modules', 'electron'), 'dir');
    app = start();
    expect(await app.next()).toBe('ready');
  }, 60_000);

  afterAll(() => {
    if (app && app.child.exitCode === null) app.child.kill('SIGKILL');
  });

  it('creates an account with no backend given on one it runs in a child process, its data in userData, its key pinned', async () => {
    type Created = { ok: true; value: DeviceStatusView };
    const created = await invoke<Created>('createAccount', { deviceName: 'desk' });
    expect(created.result).toMatchObject({
      ok: true,
      value: { enrolled: true, deviceName: 'desk', backendHome: { where: 'this-device', hosted: { state: 'running', shared: false } } },
    });
    url = created.result.value.backendUrls[0]!;
    pin = created.result.value.backendKey!.pinned[0]!;
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(existsSync(join(home(), 'userData', 'backend', 'tls-key.pem'))).toBe(true);
    const settings = JSON.parse(readFileSync(join(home(), 'userData', 'settings.json'), 'utf8')) as { backendUrls?: string[] };
    expect(settings.backendUrls).toEqual([url]);
    const children = await app.ask<{ modulePath: string; serviceName: string; exited: boolean }[]>({ op: 'utilityProcesses' });
    expect(children).toEqual([
      { modulePath: join(outDir, 'backend-host.js'), serviceName: 'Baton sync backend', pid: expect.any(Number), exited: false },
    ]);
    expect(await backendAnswers(url, pin)).toBe(true);
  }, 60_000);

  it('refuses a second app on the same device profile, naming the one that runs', async () => {
    const second = start();
    const exited = new Promise<number | null>((resolve) => second.child.once('exit', (code) => resolve(code)));
    const box = JSON.parse(await second.next()) as { errorBox: { title: string; content: string } };
    expect(box.errorBox.title).toBe('Baton is already running on this device profile');
    expect(box.errorBox.content).toContain(`is already in use by the desktop app (process ${app.child.pid}`);
    expect(await exited).toBe(0);
  });

  it('stops the backend and its process when it quits', async () => {
    const exited = new Promise<number | null>((resolve) => app.child.once('exit', (code) => resolve(code)));
    app.child.stdin.write(`${JSON.stringify({ op: 'quit' })}\n`);
    expect(await exited).toBe(0);
    expect(await backendAnswers(url, pin)).toBe(false);
  }, 30_000);
});

describe('the built preload in a sandbox-like context', () => {
  it('exposes exactly the device API as window.baton over ipcRenderer, needing nothing but require("electron")', async () => {
    const exposed = new Map<string, Record<string, (...args: unknown[]) => unknown>>();
    const invoked: [string, unknown][] = [];
    const listening = new Map<string, (event: unknown, payload: unknown) => void>();
    const electron = {
      contextBridge: { exposeInMainWorld: (name: string, api: Record<string, (...args: unknown[]) => unknown>) => exposed.set(name, api) },
      ipcRenderer: {
        invoke: async (channel: string, input: unknown) => {
          invoked.push([channel, input]);
          return channel.endsWith(':getStatus')
            ? { ok: true, result: { enrolled: false } }
            : { ok: false, error: { code: 'forbidden', message: 'no' } };
        },
        on: (channel: string, relay: (event: unknown, payload: unknown) => void) => listening.set(channel, relay),
        removeListener: (channel: string) => listening.delete(channel),
      },
    };
    const sandbox = createContext({
      require: (name: string) => {
        if (name !== 'electron') throw new Error(`the sandbox has no ${name}`);
        return electron;
      },
    });
    new Script(readFileSync(join(outDir, 'preload.js'), 'utf8'), { filename: 'preload.js' }).runInContext(sandbox);

    const api = exposed.get('baton')!;
    expect(Object.keys(api).sort()).toEqual([...METHOD_NAMES, ...EVENT_NAMES.map(subscriptionName)].sort());
    expect(await api.getStatus!({})).toEqual({ enrolled: false });
    await expect(api.listSessions!({})).rejects.toThrow(/no/);
    expect(invoked).toEqual([
      [methodChannel('getStatus'), {}],
      [methodChannel('listSessions'), {}],
    ]);

    const seen: unknown[] = [];
    const stop = api.onStatusChanged!((payload: unknown) => seen.push(payload)) as () => void;
    listening.get(eventChannel('statusChanged'))!({}, { enrolled: true });
    stop();
    expect(seen).toEqual([{ enrolled: true }]);
    expect(listening.has(eventChannel('statusChanged'))).toBe(false);
  });
});
