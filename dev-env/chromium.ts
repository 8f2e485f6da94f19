/**
 * How the tests and benchmarks start Chromium: Debian's (or CHROMIUM_PATH), headless, with nothing
 * of its own reaching the network. The e2e suite (playwright.config.ts) and the two-machine harness
 * (two-hosts/host-browser.ts) both launch it with these.
 */
export const CHROMIUM_LAUNCH = {
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
  ],
};
