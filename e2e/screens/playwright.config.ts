/**
 * `npm run screenshots`: the screens of e2e/screens/*.screens.ts saved as images (e2e/support/screens.ts),
 * with the e2e suite's Chromium and world; not part of `npm run test:e2e`.
 */
import { defineConfig } from '@playwright/test';
import e2e from '../../playwright.config.ts';

export default defineConfig({
  ...e2e,
  testDir: '.',
  testMatch: '**/*.screens.ts',
  outputDir: '../../test-results/screens-run',
});
