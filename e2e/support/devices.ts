/**
 * The e2e world: a real backend process and two real headless devices (`baton device`, laptop and
 * desktop) over a git sandbox with a bare origin, each device shown in its own browser context.
 */
import { expect, test, type Browser, type Locator, type Page } from '@playwright/test';
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

/** Starts the processes and opens each device's UI in its own context. */
export async function openWorld(browser: Browser, env: { desktop?: NodeJS.ProcessEnv; laptop?: NodeJS.ProcessEnv } = {}): Promise<World> {
  const devices = await startTwoDevices({
    prefix: 'baton-e2e-',
    env: { BATON_DEMO_TURN_MS: '200', BATON_PREPARE_TIMEOUT_MS: '20000' },
    ...(env.laptop ? { laptopEnv: env.laptop } : {}),
    ...(env.desktop ? { desktopEnv: env.desktop } : {}),
  });
  const open = async (device: DeviceHandle): Promise<DeviceWindow> => {
    const context = await browser.newContext();
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
      await laptop.page.context().close();
      await desktop.page.context().close();
      await devices.cleanup();
    },
  };
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
  };
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
 * Records, in the page, when each new current step of the ownership stepper is rendered, and when the
 * completed move is, next to the backend's commit time of that state (the `data-at` of its time
 * element); returns a reader.
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
        { state: step?.getAttribute('data-state'), at: step?.querySelector('time')?.getAttribute('data-at') },
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

/** Saves a screenshot of `page` under the test's output folder in light and in dark (`NAME.png`, `NAME-dark.png`). */
export async function screenshots(page: Page, outputPath: (name: string) => string, name: string): Promise<void> {
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: outputPath(`${name}.png`) });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForTimeout(300); // let colour transitions (140 ms) settle before the shot
  await page.screenshot({ path: outputPath(`${name}-dark.png`) });
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Starts a session of `provider` (its label) from the "New session" dialog and waits for the dialog to close. */
export async function startSessionInUi(
  page: Page,
  input: { provider: string; workspace: string; title: string; prompt: string },
): Promise<void> {
  await page.getByRole('button', { name: 'New session' }).click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await dialog.getByLabel('Workspace').fill(input.workspace);
  await dialog.getByLabel('Provider').selectOption({ label: input.provider });
  await dialog.getByLabel('Title').fill(input.title);
  await dialog.getByLabel('Prompt').fill(input.prompt);
  await dialog.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(dialog).toBeHidden();
}

/** Starts a demo-agent session from the "New session" dialog and waits for the dialog to close. */
export async function startDemoSessionInUi(page: Page, input: { workspace: string; title: string; prompt: string }): Promise<void> {
  await startSessionInUi(page, { ...input, provider: 'Demo agent' });
}
