import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'shared/**/*.test.ts',
      'dev-env/**/*.test.ts',
      'electron/**/*.test.ts',
      'backend/**/*.test.ts',
      'cli/**/*.test.ts',
      'renderer/**/*.test.{ts,tsx}',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One throwaway PostgreSQL server for the run: the backend tests run against it as well as SQLite.
    globalSetup: ['dev-env/postgres-global-setup.ts'],
  },
});
