/**
 * The renderer runs on the preload's API alone: loaded with a `window.baton` shaped exactly like
 * `typeof api` from electron/preload.ts (carried to a real headless device), the app works, and the
 * page reaches no Node: no require, process, module or Buffer, and the CSP refuses string code and inline scripts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { api } from '../electron/preload.ts';
import { startBaton, type RunningProcess } from '../dev-env/process-harness.ts';
import { EVENT_NAMES } from '../shared/device-api.ts';
import { METHOD_NAMES, subscriptionName } from '../shared/device-bridge.ts';

type PreloadApi = typeof api;

/** Every member of the preload API, checked against its type at compile time. */
const PRELOAD_MEMBERS: (keyof PreloadApi)[] = [...METHOD_NAMES, ...EVENT_NAMES.map(subscriptionName)];

let dir: string;
let backend: RunningProcess;
let device: RunningProcess;

test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'baton-e2e-isolation-'));
  const env = { ...process.env, HOME: dir };
  backend = await startBaton(['backend', '--data', join(dir, 'backend'), '--port', '0'], 'backend: ', env);
  device = await startBaton(
    ['device', '--profile', join(dir, 'profile'), '--backend', backend.url, '--name', 'sandboxed', '--create-account'],
    'ui: ',
    env,
  );
});

test.afterAll(async () => {
  await device?.stop(5000);
  await backend?.stop(5000);
  rmSync(dir, { recursive: true, force: true });
});

test('the renderer works on the preload API alone and reaches no Node or require', async ({ page }) => {
  // Stand in for the preload: a frozen object with exactly the preload's members, bridged to the device.
  await page.addInitScript(
    ({ methods, events }) => {
      const token = new URLSearchParams(location.search).get('token') ?? '';
      const socket = new WebSocket(`ws://${location.host}/api?token=${encodeURIComponent(token)}`);
      const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
      const listeners = new Map<string, Set<(payload: unknown) => void>>();
      const queue: string[] = [];
      const calls: string[] = [];
      let nextId = 0;
      socket.onopen = () => queue.splice(0).forEach((message) => socket.send(message));
      socket.onmessage = (event) => {
        const message = JSON.parse(String(event.data));
        if (message.event) return listeners.get(message.event)?.forEach((listener) => listener(message.payload));
        const waiter = pending.get(message.id);
        pending.delete(message.id);
        if (message.ok) waiter?.resolve(message.result);
        else waiter?.reject(new Error(message.error.message));
      };
      const bridge: Record<string, unknown> = {};
      for (const method of methods) {
        bridge[method] = (input: unknown) =>
          new Promise((resolve, reject) => {
            calls.push(method);
            const id = ++nextId;
            pending.set(id, { resolve, reject });
            const text = JSON.stringify({ id, method, input });
            if (socket.readyState === WebSocket.OPEN) socket.send(text);
            else queue.push(text);
          });
      }
      for (const event of events) {
        bridge[`on${event[0]!.toUpperCase()}${event.slice(1)}`] = (listener: (payload: unknown) => void) => {
          const set = listeners.get(event) ?? new Set();
          set.add(listener);
          listeners.set(event, set);
          return () => set.delete(listener);
        };
      }
      Object.defineProperty(window, 'baton', { value: Object.freeze(bridge), enumerable: true });
      Object.defineProperty(window, '__batonCalls', { value: calls });
    },
    { methods: METHOD_NAMES as string[], events: EVENT_NAMES as string[] },
  );

  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  await page.goto(device.url);
  // The app runs on window.baton: it shows this device and made its calls through the preload's members.
  await expect(page.getByRole('navigation', { name: 'Sessions' })).toBeVisible();
  await expect(page.getByText('sandboxed', { exact: true })).toBeVisible();
  const seen = await page.evaluate(() => ({
    calls: (window as unknown as { __batonCalls: string[] }).__batonCalls,
    members: Object.keys((window as unknown as { baton: object }).baton).sort(),
  }));
  expect(seen.calls).toContain('getStatus');
  expect(seen.members).toEqual([...PRELOAD_MEMBERS].sort());

  // A normal load breaks no CSP rule and logs no error.
  expect(consoleErrors).toEqual([]);

  const reach = await page.evaluate(async () => {
    const scope = globalThis as Record<string, unknown>;
    const violations: string[] = [];
    document.addEventListener('securitypolicyviolation', (event) => violations.push(event.effectiveDirective));
    // Code the page itself would compile from strings or inline markup: the CSP must refuse both.
    (setTimeout as unknown as (code: string, ms: number) => void)('window.__stringTimerRan = true', 0);
    const inline = document.createElement('script');
    inline.textContent = 'window.__inlineRan = true';
    document.head.append(inline);
    await new Promise((resolve) => setTimeout(resolve, 200));
    return {
      require: typeof scope['require'],
      process: typeof scope['process'],
      module: typeof scope['module'],
      Buffer: typeof scope['Buffer'],
      global: typeof scope['global'],
      __dirname: typeof scope['__dirname'],
      stringTimerRan: scope['__stringTimerRan'] === true,
      inlineRan: scope['__inlineRan'] === true,
      violations: [...new Set(violations)].sort(),
    };
  });
  expect(reach).toEqual({
    require: 'undefined',
    process: 'undefined',
    module: 'undefined',
    Buffer: 'undefined',
    global: 'undefined',
    __dirname: 'undefined',
    stringTimerRan: false,
    inlineRan: false,
    violations: ['script-src-elem', 'script-src'].sort(),
  });
});
