// postinstall: fetch Electron's binary where that is possible, and never fail the install where it is not.
// Electron's own install script is denied in package.json (allowScripts) because a failed download
// would fail `npm install`; this runs it instead, bounded, and explains the fallback when it fails.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

function main() {
  if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) return;
  let installer;
  try {
    installer = require.resolve('electron/install.js');
  } catch {
    return; // electron is not installed (production install without dev dependencies)
  }
  const result = spawnSync(process.execPath, [installer], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 180_000 });
  const pathFile = installer.replace(/install\.js$/, 'path.txt');
  if (result.status === 0 && existsSync(pathFile)) return;
  console.log('baton: the Electron binary could not be downloaded here; `npm start` will run the headless device instead.');
}

main();
