/** Playwright e2e: Debian's Chromium, headless, one worker; output (screenshots, traces) under test-results/. */
import { defineConfig } from '@playwright/test';
import { CHROMIUM_LAUNCH } from './dev-env/chromium.ts';

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results',
  workers: 1,
  fullyParallel: false,
  timeout: 180_000,
  expect: { timeout: 30_000 },
  reporter: [['list']],
  use: {
    headless: true,
    viewport: { width: 1360, height: 860 },
    trace: 'retain-on-failure',
    launchOptions: CHROMIUM_LAUNCH,
  },
});
