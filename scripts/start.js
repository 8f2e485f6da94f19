/* global fetch, AbortSignal */
// `npm start`: the Electron app where Electron can run; otherwise it says why, plainly, and runs the
// headless device instead (renderer built if needed, a local backend started when none is configured).
//
// Headless environment knobs:
//   BATON_HOME      where the default profile and local backend data live (default ~/.baton)
//   BATON_BACKEND   the backend address(es) to use instead of the local one (http://127.0.0.1:8787):
//                   one URL, or several instances of one backend separated by commas (tried in order)
//   BATON_INVITE    join the account of this invite (first start only; otherwise the set-up screen asks)
//   BATON_NAME      this device's name (default: the host name)
//   BATON_UI_PORT   the UI port on 127.0.0.1 (default 0: a free port)
//   BATON_ELECTRON_PACKAGE  where Electron's npm package is (default node_modules/electron)
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where Electron's npm package is (tests point this elsewhere to check the fallback). */
const electronPackage = process.env.BATON_ELECTRON_PACKAGE ?? join(root, 'node_modules', 'electron');
const LOCAL_BACKEND_PORT = 8787;
const LOCAL_BACKEND = `http://127.0.0.1:${LOCAL_BACKEND_PORT}`;
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
    child.once('exit', (code) => reject(new Error(`baton ${args[0]} exited (${code}) before it was ready`)));
  });
}

async function backendAnswers(url) {
  try {
    return (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) })).ok;
  } catch {
    return false;
  }
}

/** The addresses a profile keeps, as `--backend` takes them (a profile written before lists has one). */
function profileBackend(profile) {
  if (Array.isArray(profile?.backendUrls)) return profile.backendUrls.join(',');
  return profile?.backendUrl;
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
  // `baton device` checks the list and says in words what is wrong with it.
  const backendUrl = process.env.BATON_BACKEND || profileBackend(profile) || LOCAL_BACKEND;
  await ensureRenderer();
  if (backendUrl === LOCAL_BACKEND && !(await backendAnswers(LOCAL_BACKEND))) {
    console.log(`baton: starting a local backend (data in ${join(home, 'backend')})`);
    await runBaton(['backend', '--data', join(home, 'backend'), '--port', String(LOCAL_BACKEND_PORT)], 'backend: ');
  }
  const args = [
    'device',
    '--profile',
    profileDir,
    '--backend',
    backendUrl,
    '--port',
    process.env.BATON_UI_PORT ?? '0',
    '--name',
    process.env.BATON_NAME ?? hostname(),
  ];
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
