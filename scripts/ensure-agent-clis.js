// Before the unit tests: make sure the real agent CLIs the provider tests run (Claude Code, Codex,
// GitHub Copilot CLI, Qwen Code) are installed, at the exact versions in scripts/agent-clis/package.json
// (its lock pins every tarball), into the project's cache folder .cache/agent-clis/ (or
// $BATON_AGENT_CLIS_DIR). They are several hundred MB of native binaries, so they are not dependencies
// of the app: a user's `npm install` does not carry them. Quick when they are there already (a stamp
// records what was installed).
//
// The install runs `npm install --ignore-scripts` from the lock and then Claude's own install step (install.cjs, which
// puts its native binary in place of the bin stub) itself, so the result does not depend on whether
// this npm runs install scripts (npm 11 asks packages to be listed in allowScripts). Copilot unpacks
// about 235 MB into $XDG_CACHE_HOME/copilot on its first run in a home: it is unpacked once here, into
// xdg-cache/ beside the CLIs, which the tests' throwaway homes share as their XDG_CACHE_HOME.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';

const projectRoot = resolve(import.meta.dirname, '..');
const manifestDir = join(projectRoot, 'scripts', 'agent-clis');
const target = resolve(process.env.BATON_AGENT_CLIS_DIR || join(projectRoot, '.cache', 'agent-clis'));
const manifest = JSON.parse(readFileSync(join(manifestDir, 'package.json'), 'utf8'));
const wanted = {
  claude: manifest.dependencies['@anthropic-ai/claude-code'],
  codex: manifest.dependencies['@openai/codex'],
  copilot: manifest.dependencies['@github/copilot'],
  qwen: manifest.dependencies['@qwen-code/qwen-code'],
};
/** What each CLI's `--version` prints first for the pinned version. */
const versionLines = {
  claude: `${wanted.claude} `,
  codex: `codex-cli ${wanted.codex}`,
  copilot: `GitHub Copilot CLI ${wanted.copilot}.`,
  qwen: wanted.qwen,
};
const fingerprint = createHash('sha256')
  .update(readFileSync(join(manifestDir, 'package.json')))
  .update(readFileSync(join(manifestDir, 'package-lock.json')))
  .update(`${process.platform}-${process.arch}`)
  .digest('hex');
const shown = relative(projectRoot, target).startsWith('..') ? target : relative(projectRoot, target);

/** The stamp of an earlier install into `dir`, or null. */
function readStamp(dir) {
  try {
    return JSON.parse(readFileSync(join(dir, 'installed.json'), 'utf8'));
  } catch {
    return null;
  }
}

/** Claude's bin entry is a small stub until its install step has put the native binary there. */
function claudeIsNative(dir) {
  const bin = join(dir, 'node_modules', '@anthropic-ai', 'claude-code', 'bin', 'claude.exe');
  return existsSync(bin) && statSync(bin).size > 1024 * 1024;
}

/** `<cli> --version` in a throwaway home (the CLIs must not touch the user's own config). */
function version(dir, name) {
  const home = mkdtempSync(join(tmpdir(), 'baton-cli-version-'));
  try {
    const env = {
      PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, 'claude'),
      CODEX_HOME: join(home, 'codex'),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      XDG_CACHE_HOME: join(dir, 'xdg-cache'),
    };
    const run = spawnSync(join(dir, 'node_modules', '.bin', name), ['--version'], { env, encoding: 'utf8', timeout: 120_000 });
    return run.status === 0 ? (run.stdout.trim().split('\n')[0] ?? '') : null;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** The CLIs in `dir` that do not answer `--version` with their pinned version (none: all do). */
function notAnswering(dir) {
  return Object.keys(versionLines).filter((name) => version(dir, name)?.startsWith(versionLines[name]) !== true);
}

/** True when every CLI's bin entry is in `dir`. */
function allThere(dir) {
  return Object.keys(wanted).every((name) => existsSync(join(dir, 'node_modules', '.bin', name)));
}

class InstallError extends Error {}
function fail(message) {
  throw new InstallError(message);
}

const stamp = readStamp(target);
if (stamp?.fingerprint === fingerprint && claudeIsNative(target) && allThere(target)) {
  process.exit(0);
}

const named = Object.entries(wanted)
  .map(([name, v]) => `${name} ${v}`)
  .join(', ');
console.log(`baton: installing the agent CLIs the tests run (${named}) into ${shown}…`);
const started = Date.now();
mkdirSync(dirname(target), { recursive: true });
const partial = `${target}.partial-${process.pid}`;
rmSync(partial, { recursive: true, force: true });
mkdirSync(partial);
cpSync(join(manifestDir, 'package.json'), join(partial, 'package.json'));
cpSync(join(manifestDir, 'package-lock.json'), join(partial, 'package-lock.json'));
try {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  // `npm install` with the lock, not `npm ci`: Qwen Code lists optional platform packages that were
  // never published, which a lock cannot hold and `npm ci` then refuses; every package that exists is
  // still installed at the lock's version and checked against its integrity.
  const args = ['install', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'];
  const ci = spawnSync(npm, args, { cwd: partial, stdio: 'inherit' });
  if (ci.status !== 0) fail(`npm install for the agent CLIs failed (exit ${ci.status ?? ci.signal}); is the npm registry reachable?`);
  const claudeDir = join(partial, 'node_modules', '@anthropic-ai', 'claude-code');
  const placed = spawnSync(process.execPath, ['install.cjs'], { cwd: claudeDir, stdio: 'inherit' });
  if (placed.status !== 0 || !claudeIsNative(partial)) fail("Claude Code's install step did not put its native binary in place.");
  // The first --version of copilot unpacks it into xdg-cache/ (version() points XDG_CACHE_HOME there).
  const wrong = notAnswering(partial);
  if (wrong.length > 0) fail(`these installed CLIs do not answer --version with their pinned version: ${wrong.join(', ')}.`);
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  writeFileSync(join(partial, 'installed.json'), `${JSON.stringify({ fingerprint, versions: wanted, seconds }, null, 2)}\n`);
  // Swapped in by two renames, so a test that runs the CLIs meanwhile finds them all the time but a moment.
  const old = `${target}.old-${process.pid}`;
  if (existsSync(target)) renameSync(target, old);
  renameSync(partial, target);
  rmSync(old, { recursive: true, force: true });
  console.log(`baton: agent CLIs ready in ${shown} (${seconds} s).`);
} catch (error) {
  if (!(error instanceof InstallError)) throw error;
  console.error(`baton: ${error.message}`);
  process.exitCode = 1;
} finally {
  rmSync(partial, { recursive: true, force: true });
}
