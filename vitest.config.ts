import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: [
            'shared/**/*.test.ts',
            'dev-env/**/*.test.ts',
            'electron/**/*.test.ts',
            'backend/**/*.test.ts',
            'cli/**/*.test.ts',
            'renderer/**/*.test.ts',
          ],
          // One throwaway PostgreSQL server for the run: the backend tests run against it as well as SQLite.
          globalSetup: ['dev-env/postgres-global-setup.ts'],
        },
      },
      {
        // The renderer's component tests: a DOM (happy-dom) and a fake device behind window.baton.
        extends: true,
        test: {
          name: 'renderer-dom',
          include: ['renderer/**/*.test.tsx'],
          environment: 'happy-dom',
          setupFiles: ['renderer/test-support/dom-setup.ts'],
        },
      },
    ],
  },
});
