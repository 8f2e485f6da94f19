// Before the e2e suite: make sure a Chromium is there for Playwright (it never downloads its own).
// Uses CHROMIUM_PATH or /usr/bin/chromium; as root on Debian/Ubuntu it installs Debian's `chromium`
// package, saying so; otherwise it stops with the exact command to run.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const path = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

function run(command, args) {
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  return result.status === 0;
}

if (!existsSync(path)) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = existsSync('/usr/bin/apt-get');
  if (isRoot && hasApt && !process.env.CHROMIUM_PATH) {
    console.log("baton: the e2e tests need Chromium; installing Debian's chromium package (apt-get install chromium)…");
    if (!run('apt-get', ['update', '-qq']) || !run('apt-get', ['install', '-y', '-qq', 'chromium'])) {
      console.error('baton: installing chromium failed; install it yourself and run the tests again.');
      process.exit(1);
    }
  } else {
    console.error(
      `baton: the e2e tests need Chromium at ${path}. Install it (Debian/Ubuntu: sudo apt-get install chromium) or set CHROMIUM_PATH.`,
    );
    process.exit(1);
  }
}
