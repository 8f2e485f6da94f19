/**
 * The e2e world: a real backend process and two real headless devices (`baton device`, laptop and
 * desktop) over a git sandbox with a bare origin, each device shown in its own browser context.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { expect, test, type Browser, type Locator, type Page } from '@playwright/test';
import { PROJECT_ROOT } from '../../dev-env/process-harness.ts';
import { startTwoDevices, type DeviceHandle, type TwoDevices } from '../../dev-env/two-devices.ts';

export interface DeviceWindow {
  device: DeviceHandle;
  page: Page;
}

export interface World {
  devices: TwoDevices;
  laptop: DeviceWindow;
  desktop: DeviceWindow;
  close(): Promise<void>;
}

/**
 * In a page whose context was granted the notifications permission: records every Notification the
 * page makes (title, body) and keeps it, so a test can read them and click one (noticesOf, clickNotice).
 */
function recordNotifications(): void {
  const Real = window.Notification;
  const made: { title: string; body: string; notification: Notification }[] = [];
  (window as unknown as { __notices: typeof made }).__notices = made;
  window.Notification = new Proxy(Real, {
    construct(target, args: [string, NotificationOptions?]) {
      const notification = new target(...args);
      made.push({ title: args[0], body: args[1]?.body ?? '', notification });
      return notification;
    },
  });
}

/** The desktop notifications a page has raised so far (openWorld with `notifications`). */
export function noticesOf(page: Page): Promise<{ title: string; body: string }[]> {
  return page.evaluate(() =>
    (window as unknown as { __notices: { title: string; body: string }[] }).__notices.map(({ title, body }) => ({ title, body })),
  );
}

/** Clicks the page's `index`th notification, as the desktop does when the user clicks it. */
export async function clickNotice(page: Page, index: number): Promise<void> {
  await page.evaluate((i) => {
    const made = (window as unknown as { __notices: { notification: Notification }[] }).__notices;
    made[i]!.notification.dispatchEvent(new Event('click'));
  }, index);
}

/**
 * Starts the processes and opens each device's UI in its own context; with `notifications`, each
 * context has the permission granted and records the notifications its page raises; with `tls`, the
 * backend serves HTTPS with its own key, which the devices pin.
 */
export async function openWorld(
  browser: Browser,
  env: { desktop?: NodeJS.ProcessEnv; laptop?: NodeJS.ProcessEnv } = {},
  options: { notifications?: boolean; tls?: boolean } = {},
): Promise<World> {
  const devices = await startTwoDevices({
    prefix: 'baton-e2e-',
    tls: options.tls ?? false,
    env: { BATON_DEMO_TURN_MS: '200', BATON_PREPARE_TIMEOUT_MS: '20000' },
    ...(env.laptop ? { laptopEnv: env.laptop } : {}),
    ...(env.desktop ? { desktopEnv: env.desktop } : {}),
  });
  const open = async (device: DeviceHandle): Promise<DeviceWindow> => {
    const context = await browser.newContext(options.notifications ? { permissions: ['notifications'] } : {});
    if (options.notifications) await context.addInitScript(recordNotifications);
    const page = await context.newPage();
    page.on('pageerror', (error) => console.error(`[${device.name} page] ${error.message}`));
    await page.goto(device.process.url);
    return { device, page };
  };
  const laptop = await open(devices.laptop);
  const desktop = await open(devices.desktop);
  return {
    devices,
    laptop,
    desktop,
    async close() {
      keepDeviceLogs(devices);
      await laptop.page.context().close();
      await desktop.page.context().close();
      await devices.cleanup();
    },
  };
}

/**
 * Keeps the devices' own logs (the last 20 kB of each) under test-results/device-logs, named after
 * the spec file, so that a failure can be read afterwards: what each device did and when.
 */
function keepDeviceLogs(devices: TwoDevices): void {
  const dir = join(PROJECT_ROOT, 'test-results', 'device-logs');
  mkdirSync(dir, { recursive: true });
  const spec = basename(test.info().file, '.spec.ts');
  for (const device of [devices.laptop, devices.desktop]) writeFileSync(join(dir, `${spec}-${device.name}.log`), device.process.stderr());
}

/** Opens the world before the file's tests and closes it after them; returns a getter for it. */
export function useWorld(): () => World {
  let world: World | undefined;
  test.beforeAll(async ({ browser }) => {
    test.setTimeout(120_000);
    world = await openWorld(browser);
  });
  test.afterAll(async () => {
    await world?.close();
  });
  return () => {
    if (!world) throw new Error('the e2e world is not open');
    return world;
  };
}

/** The run view's landmarks of one page. */
export function runView(page: Page) {
  const main = page.getByRole('main');
  const ownership = main.getByRole('region', { name: 'Ownership' });
  return {
    main,
    agentMap: main.getByRole('region', { name: 'Agent map' }),
    ownership,
    message: main.getByRole('textbox', { name: 'Message', exact: true }),
    move: ownership.getByRole('button', { name: 'Move', exact: true }),
    cancelMove: ownership.getByRole('button', { name: 'Cancel move' }),
    currentStep: ownership.locator('[aria-current="step"]'),
    blocked: main.getByRole('alert', { name: 'Handoff blocked' }),
    /** The blocked alert once nothing blocks the move any more. */
    readyToMove: main.getByRole('alert', { name: 'Ready to move' }),
    transcript: page.getByRole('log', { name: 'Transcript' }),
    /** The first pending permission request, above the composer. */
    permissionRequest: main.getByRole('region', { name: 'Permission request' }),
  };
}

/** Sends `text` from the run view's message box once it takes input. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  const { message } = runView(page);
  await expect(message).toBeEnabled();
  await message.fill(text);
  await message.press('Enter');
}

/** Opens a session from the Sessions navigation by its title. */
export async function openSession(page: Page, title: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('link', { name: title }).click();
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
}

/** The text an element's aria-describedby points at (the reason shown next to a disabled control). */
export async function description(locator: Locator): Promise<string> {
  const ids = (await locator.getAttribute('aria-describedby')) ?? '';
  const page = locator.page();
  const parts = await Promise.all(
    ids
      .split(/\s+/)
      .filter(Boolean)
      .map((id) => page.locator(`[id="${id}"]`).innerText()),
  );
  return parts.join(' ').trim();
}

/**
 * Records, in the page, when each new state of a move is rendered (the current step's `data-state`),
 * and when the completed move is, next to the backend's commit time of that state (the step's
 * `data-at`, the completion time element's); returns a reader.
 */
export async function watchStepper(page: Page): Promise<() => Promise<{ state: string; latencyMs: number }[]>> {
  await page.evaluate(() => {
    const seen: { state: string; latencyMs: number }[] = [];
    (window as unknown as { __stepLatency: typeof seen }).__stepLatency = seen;
    const earlier = document.querySelector('time[data-state="completed"]')?.getAttribute('data-at');
    const record = () => {
      const now = Date.now();
      const step = document.querySelector('[aria-current="step"]');
      // While moving: the current step and its commit time; once completed: the last move's completion time.
      const marks = [
        { state: step?.getAttribute('data-state'), at: step?.getAttribute('data-at') },
        { state: 'completed', at: document.querySelector('time[data-state="completed"]')?.getAttribute('data-at') },
      ];
      for (const { state, at } of marks) {
        if (state && at && at !== earlier && !seen.some((s) => s.state === state)) seen.push({ state, latencyMs: now - Number(at) });
      }
    };
    new MutationObserver(record).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  return () => page.evaluate(() => (window as unknown as { __stepLatency: { state: string; latencyMs: number }[] }).__stepLatency);
}

/** A half-screen window: the smaller size every screenshot is also taken at. */
export const HALF_SCREEN = { width: 820, height: 640 } as const;

/**
 * Saves screenshots of `page` under the test's output folder, in light and in dark, at the page's size
 * and at half-screen size (`NAME.png`, `NAME-dark.png`, `NAME-820x640.png`, `NAME-820x640-dark.png`).
 */
export async function screenshots(page: Page, outputPath: (name: string) => string, name: string): Promise<void> {
  const full = page.viewportSize();
  for (const [size, suffix] of [
    [full, ''],
    [HALF_SCREEN, `-${HALF_SCREEN.width}x${HALF_SCREEN.height}`],
  ] as const) {
    if (size) await page.setViewportSize(size);
    await page.emulateMedia({ colorScheme: 'light' });
    // Back from dark (the second size): let colour transitions (140 ms) settle before the shot.
    if (suffix !== '') await page.waitForTimeout(300);
    await page.screenshot({ path: outputPath(`${name}${suffix}.png`) });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForTimeout(300); // let colour transitions (140 ms) settle before the shot
    await page.screenshot({ path: outputPath(`${name}${suffix}-dark.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  if (full) await page.setViewportSize(full);
}

/**
 * At each window size (half-screen, and the smallest the run view is made for), what watching a move
 * needs is wholly in view: the owner, the generation, the stepper's current step and Cancel move
 * (Move itself is not offered while a move runs).
 */
export async function expectMoveWatchable(page: Page, sizes = [HALF_SCREEN, { width: 720, height: 600 }]): Promise<void> {
  const full = page.viewportSize();
  const view = runView(page);
  const parts = {
    owner: view.ownership.locator('.owner-name'),
    generation: view.ownership.getByText(/^generation \d+$/),
    currentStep: view.currentStep,
    cancelMove: view.cancelMove,
  };
  for (const size of sizes) {
    await page.setViewportSize(size);
    for (const [name, part] of Object.entries(parts)) {
      await expect(part, `${name} at ${size.width}×${size.height}`).toBeInViewport({ ratio: 1 });
    }
  }
  if (full) await page.setViewportSize(full);
}

/** Picks `target` in the Move dialog of `page` and starts the move; the dialog closes (started or blocked). */
export async function startMoveInUi(page: Page, target: string): Promise<void> {
  await runView(page).move.click();
  const dialog = page.getByRole('dialog', { name: 'Move session' });
  await expect(dialog.getByRole('radio', { name: target })).toBeEnabled();
  await dialog.getByRole('radio', { name: target }).check();
  await dialog.getByRole('button', { name: 'Start move' }).click();
  await expect(dialog).toBeHidden();
}

/** Opens `title` on `page` and checks it went on there with `agent` (its label) by summary, at generation 2. */
export async function expectContinuedWith(page: Page, title: string, agent: string): Promise<ReturnType<typeof runView>> {
  await openSession(page, title);
  const view = runView(page);
  await expect(view.ownership).toContainText('generation 2');
  await expect(view.ownership).toContainText('summary-continuation');
  await expect(page.locator('.run-meta')).toContainText(agent);
  return view;
}

/**
 * Starts a session of `provider` (its label) from the "New session" dialog, at permission level
 * `permission` (its label) when given, and waits for the dialog to close.
 */
export async function startSessionInUi(
  page: Page,
  input: { provider: string; workspace: string; title: string; prompt: string; permission?: string },
): Promise<void> {
  await page.getByRole('button', { name: 'New session' }).click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await dialog.getByLabel('Workspace').fill(input.workspace);
  await dialog.getByLabel('Provider').selectOption({ label: input.provider });
  if (input.permission !== undefined) await dialog.getByLabel('Permissions').selectOption({ label: input.permission });
  await dialog.getByLabel('Title').fill(input.title);
  await dialog.getByLabel('Prompt').fill(input.prompt);
  await dialog.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(dialog).toBeHidden();
}

/** Starts a demo-agent session from the "New session" dialog and waits for the dialog to close. */
export async function startDemoSessionInUi(page: Page, input: { workspace: string; title: string; prompt: string }): Promise<void> {
  await startSessionInUi(page, { ...input, provider: 'Demo agent' });
}
