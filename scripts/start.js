// `npm start`: the Electron app where Electron can run; otherwise it says why, plainly, and runs the
// headless device instead (`baton device`, the renderer built if needed). Either hosts the account's
// sync backend itself when it creates the account with none configured, and a device that joins with
// an invite uses the invite's addresses and hosts none.
//
// Headless environment knobs:
//   BATON_HOME      where the profile and the data of a backend it hosts live (default ~/.baton)
//   BATON_BACKEND   a backend run elsewhere, to use instead of hosting one: one URL, or several
//                   instances of one backend separated by commas (tried in order)
//   BATON_INVITE    join the account of this invite (first start only; otherwise the set-up screen asks)
//   BATON_NAME      this device's name (default: the host name)
//   BATON_UI_PORT   the UI port on 127.0.0.1 (default: the one kept in the profile, else a free one)
//   BATON_ELECTRON_PACKAGE  where Electron's npm package is (default node_modules/electron)
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where Electron's npm package is (tests point this elsewhere to check the fallback). */
const electronPackage = process.env.BATON_ELECTRON_PACKAGE ?? join(root, 'node_modules', 'electron');
const children = [];

/** Why Electron cannot run here, or null when it can. */
function whyNoElectron() {
  const pathFile = join(electronPackage, 'path.txt');
  if (!existsSync(pathFile)) return 'the Electron binary was not downloaded on this machine (node_modules/electron/path.txt is missing)';
  const binary = join(electronPackage, 'dist', readFileSync(pathFile, 'utf8').trim());
  if (!existsSync(binary)) return `the Electron binary is missing (${binary})`;
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY)
    return 'there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set)';
  return null;
}

function run(command, args, options = {}) {
  const child = spawn(command, args, { cwd: root, stdio: 'inherit', ...options });
  children.push(child);
  return child;
}

function exited(child) {
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

/** Runs `baton <args>` and resolves with the first stdout line starting with `prefix`, echoing everything. */
function runBaton(args, prefix) {
  const child = run(process.execPath, [join(root, 'bin', 'baton.js'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      buffered += chunk.toString();
      const line = buffered.split('\n').find((l) => l.startsWith(prefix));
      if (line) resolve({ child, value: line.slice(prefix.length).trim() });
    });
    // It said why on stderr (a profile already in use, a refused invite…).
    child.once('exit', (code) => reject(new Error(`baton ${args[0]} stopped (exit code ${code}) before it was ready`)));
  });
}

function readProfile(profileDir) {
  try {
    return JSON.parse(readFileSync(join(profileDir, 'profile.json'), 'utf8'));
  } catch {
    return null;
  }
}

/** The newest modification time of the files under `dir`. */
function newestUnder(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

async function ensureRenderer() {
  const built = join(root, 'dist', 'renderer', 'index.html');
  const sources = Math.max(newestUnder(join(root, 'renderer')), newestUnder(join(root, 'shared')));
  if (existsSync(built) && statSync(built).mtimeMs >= sources) return;
  console.log('baton: building the renderer…');
  const code = await exited(
    run(process.execPath, [
      join(root, 'node_modules', 'vite', 'bin', 'vite.js'),
      'build',
      '--config',
      'vite.renderer.config.ts',
      '--logLevel',
      'warn',
    ]),
  );
  if (code !== 0) throw new Error('the renderer build failed');
}

async function headless() {
  const home = process.env.BATON_HOME ?? join(homedir(), '.baton');
  const profileDir = join(home, 'profile');
  const profile = readProfile(profileDir);
  await ensureRenderer();
  // The device hosts the backend (data in BATON_HOME/backend) unless given one or joining; it keeps its UI port.
  const args = ['device', '--profile', profileDir, '--backend-data', join(home, 'backend'), '--name', process.env.BATON_NAME ?? hostname()];
  // `baton device` checks the list and says in words what is wrong with it.
  if (process.env.BATON_BACKEND) args.push('--backend', process.env.BATON_BACKEND);
  if (process.env.BATON_UI_PORT) args.push('--port', process.env.BATON_UI_PORT);
  // A new profile gets the set-up screen (create an account or join), unless an invite is given.
  if (profile?.status !== 'enrolled' && profile?.status !== 'pending' && process.env.BATON_INVITE)
    args.push('--join', process.env.BATON_INVITE);
  const { child, value } = await runBaton(args, 'ui: ');
  console.log(`\nbaton: open ${value} in a browser (profile ${profileDir}). Ctrl+C stops it.`);
  return exited(child);
}

function stopAll(signal) {
  for (const child of children) if (child.exitCode === null) child.kill(signal);
}
process.on('SIGINT', () => stopAll('SIGTERM'));
process.on('SIGTERM', () => stopAll('SIGTERM'));

async function main() {
  const why = whyNoElectron();
  if (why === null)
    return exited(run(process.execPath, [join(root, 'node_modules', '@electron-forge', 'cli', 'dist', 'electron-forge.js'), 'start']));
  console.log(`baton: not starting the desktop app because ${why}.`);
  console.log('baton: running the headless device instead: the same app, served to your browser on 127.0.0.1.\n');
  return headless();
}

main().then(
  (code) => {
    stopAll('SIGTERM');
    process.exitCode = code;
  },
  (error) => {
    console.error(`baton: ${error.message}`);
    stopAll('SIGTERM');
    process.exitCode = 1;
  },
);
