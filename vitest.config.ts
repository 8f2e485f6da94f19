import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

const testsIn = (folder: string) => `${folder}/**/*.test.ts`;

/** Every unit test run under Node: what `npm run test:unit` (and so `npm test`) runs, with the component tests below. */
const ALL = ['shared', 'dev-env', 'electron', 'backend', 'cli', 'renderer'].map(testsIn);

/**
 * The areas `npm run test:<area>` runs one of (it sets BATON_TEST_AREA). A test file in none of
 * these three is the device's (electron/ but for the folders below, cli/, dev-env/, shared/), so
 * every unit test belongs to exactly one area.
 */
const AREAS = {
  /** The sync backend on SQLite and PostgreSQL, and `baton backend`. */
  backend: [testsIn('backend'), 'cli/backend-command.test.ts', 'cli/backend-tls.test.ts', 'dev-env/postgres-server.test.ts'],
  /** A Move between devices: the coordinator and its steps, checkpoint packets, the fault matrix's checks. */
  handoff: [testsIn('electron/handoff'), testsIn('electron/packet'), testsIn('dev-env/fault-matrix')],
  /** The UI (with its component tests, below), and the two hosts that show it: the Electron shell and the headless web host. */
  renderer: [testsIn('renderer'), testsIn('electron/shell'), testsIn('electron/host')],
};
/** The areas whose tests use the run's throwaway PostgreSQL server (the others need no PostgreSQL). */
const ON_POSTGRES = new Set<string | undefined>([undefined, 'backend', 'handoff']);

/** The Node test files of `area` (all of them when none is named). */
function selected(area: string | undefined): { include: string[]; exclude: string[] } {
  if (area === undefined || area === 'device') {
    const others = area === 'device' ? Object.values(AREAS).flat() : [];
    return { include: ALL, exclude: [...configDefaults.exclude, ...others] };
  }
  if (!Object.hasOwn(AREAS, area)) throw new Error(`BATON_TEST_AREA=${area} is not one of backend, device, handoff, renderer`);
  return { include: AREAS[area as keyof typeof AREAS], exclude: configDefaults.exclude };
}

const area = process.env.BATON_TEST_AREA || undefined;

const node: TestProjectInlineConfiguration = {
  extends: true,
  test: {
    name: 'node',
    ...selected(area),
    // One throwaway PostgreSQL server for the run: the backend tests run against it as well as SQLite.
    globalSetup: ON_POSTGRES.has(area) ? ['dev-env/postgres-global-setup.ts'] : [],
  },
};

const rendererDom: TestProjectInlineConfiguration = {
  // The renderer's component tests: a DOM (happy-dom) and a fake device behind window.baton.
  extends: true,
  test: {
    name: 'renderer-dom',
    include: ['renderer/**/*.test.tsx'],
    environment: 'happy-dom',
    setupFiles: ['renderer/test-support/dom-setup.ts'],
  },
};

export default defineConfig({
  test: {
    // Generous, because a test's time is never its assertion: many tests start baton processes, and on a
    // two-core machine shared with other work (CI may be one) a process start takes several seconds.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two files at a time even on two cores: most tests wait on git, CLIs and sockets rather than
    // compute, so this halves the suite's time (the handoff area: 329 s of tests in 175 s).
    maxWorkers: 2,
    projects: area === undefined || area === 'renderer' ? [node, rendererDom] : [node],
  },
});
