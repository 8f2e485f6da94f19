/**
 * Where the installed project keeps what the commands serve: the project root (this package) and
 * the built renderer. A command that serves the UI builds the renderer on its first start when it
 * is missing (a plain `npm install` does not build it), saying so, so the address it prints shows
 * the UI rather than "Not found".
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder of this package (where package.json and bin/ are). */
export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Where the built renderer lives (served by the web host). */
export const RENDERER_DIR = join(PROJECT_ROOT, 'dist', 'renderer');

/** Whether the renderer has been built into `dir`. */
export function rendererBuilt(dir = RENDERER_DIR): boolean {
  return existsSync(join(dir, 'index.html'));
}

/**
 * Builds the renderer into `dir` when it is missing there, telling the user on stderr as `command`;
 * true when the renderer is there afterwards. The build is Vite's (about a second), once per install.
 */
export function ensureRendererBuilt(command: string, dir = RENDERER_DIR): boolean {
  if (rendererBuilt(dir)) return true;
  console.error(`${command}: building the user interface once (first start after install)…`);
  const vite = join(PROJECT_ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const built = spawnSync(
    process.execPath,
    [vite, 'build', '--config', 'vite.renderer.config.ts', '--outDir', dir, '--emptyOutDir', '--logLevel', 'warn'],
    {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 2, 2],
    },
  );
  if (built.status === 0 && rendererBuilt(dir)) return true;
  console.error(
    `${command}: the user interface did not build, so the address serves the device API only. Run \`npm run build:renderer\` to see why.`,
  );
  return false;
}
