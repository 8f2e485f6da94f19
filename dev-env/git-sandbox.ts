/**
 * Real temporary git repositories for tests: a temp root, bare "origin" repos, clones with a
 * pinned author and committer and a blank HOME. Every git call gets the same env (`gitEnv`).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const TEST_AUTHOR = { name: 'Baton Test', email: 'test@baton.invalid' } as const;

/** The env every test git call uses: blank HOME, no system config, pinned author/committer, branch main. */
export function gitEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: TEST_AUTHOR.name,
    GIT_AUTHOR_EMAIL: TEST_AUTHOR.email,
    GIT_COMMITTER_NAME: TEST_AUTHOR.name,
    GIT_COMMITTER_EMAIL: TEST_AUTHOR.email,
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'init.defaultBranch',
    GIT_CONFIG_VALUE_0: 'main',
  };
}

/** A sandbox of temporary repositories sharing one root, one blank HOME and one env. */
export interface GitSandbox {
  /** The temp root; everything below it is removed by `cleanup`. */
  root: string;
  /** The blank HOME used by every git call. */
  home: string;
  env: NodeJS.ProcessEnv;
  /** Runs git in `cwd` with the sandbox env; returns trimmed stdout; throws on failure. */
  git(cwd: string, args: string[]): string;
  /** Creates a bare repository `<root>/origins/<name>.git` holding one commit on main (README.md). */
  makeOrigin(name: string): string;
  /** Clones `origin` to `<root>/<name>` (or an absolute path) and returns the clone's path. */
  clone(origin: string, name: string): string;
  /**
   * Checks out `origin` at `path` inside `repo` and commits it there as a submodule: listed in
   * `.gitmodules` (`git submodule add`) or, with `listed` false, a gitlink in the index only (an
   * embedded clone). Returns the submodule's folder.
   */
  addSubmodule(repo: string, path: string, origin: string, listed?: boolean): string;
  /** Writes `file` (relative, parent dirs created) in `repo`, commits it, returns the new HEAD sha. */
  commitFile(repo: string, file: string, content: string, message?: string): string;
  /** Writes `file` in `repo` without staging or committing it. */
  writeFile(repo: string, file: string, content: string): void;
  /** Pushes the current branch of `repo` to origin. */
  push(repo: string): void;
  /** Creates and checks out `branch` in `repo` and pushes it with an upstream (`push -u origin`). */
  branchWithUpstream(repo: string, branch: string): void;
  /** Commits conflicting README.md changes on a new branch `side` and on the current branch, then starts `command` with `side` and leaves it stopped on the conflict. */
  startConflict(repo: string, command: 'merge' | 'rebase' | 'cherry-pick'): void;
  /** The sha of HEAD (or of `rev`) in `repo`. */
  head(repo: string, rev?: string): string;
  /** Removes the whole temp root. */
  cleanup(): void;
}

/** Creates a fresh sandbox under the OS temp dir. Call `cleanup()` in afterEach/afterAll. */
export function createGitSandbox(prefix = 'baton-git-'): GitSandbox {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const home = join(root, 'home');
  mkdirSync(home);
  const env = gitEnv(home);
  const git = (cwd: string, args: string[]): string =>
    execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const resolve = (name: string): string => (name.startsWith('/') ? name : join(root, name));
  const writeFile = (repo: string, file: string, content: string): void => {
    const path = join(repo, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  };
  const commitFile = (repo: string, file: string, content: string, message = `Change ${file}`): string => {
    writeFile(repo, file, content);
    git(repo, ['add', '--', file]);
    git(repo, ['commit', '-q', '-m', message]);
    return git(repo, ['rev-parse', 'HEAD']);
  };
  const makeOrigin = (name: string): string => {
    const origin = join(root, 'origins', `${name}.git`);
    mkdirSync(origin, { recursive: true });
    git(origin, ['init', '-q', '--bare']);
    const seed = join(root, 'seeds', name);
    mkdirSync(seed, { recursive: true });
    git(seed, ['init', '-q']);
    commitFile(seed, 'README.md', `# ${name}\n`, 'Initial commit');
    git(seed, ['push', '-q', origin, 'main']);
    rmSync(seed, { recursive: true, force: true });
    return origin;
  };
  return {
    root,
    home,
    env,
    git,
    makeOrigin,
    clone(origin, name) {
      const dest = resolve(name);
      mkdirSync(dirname(dest), { recursive: true });
      git(root, ['clone', '-q', origin, dest]);
      return dest;
    },
    addSubmodule(repo, path, origin, listed = true) {
      if (listed) git(repo, ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', origin, path]);
      else {
        git(repo, ['clone', '-q', origin, path]);
        git(repo, ['add', path]);
      }
      git(repo, ['commit', '-q', '-m', `Add the submodule ${path}`]);
      return join(repo, path);
    },
    commitFile,
    writeFile,
    push(repo) {
      git(repo, ['push', '-q']);
    },
    branchWithUpstream(repo, branch) {
      git(repo, ['checkout', '-q', '-b', branch]);
      git(repo, ['push', '-q', '-u', 'origin', branch]);
    },
    startConflict(repo, command) {
      const current = git(repo, ['rev-parse', '--abbrev-ref', 'HEAD']);
      git(repo, ['checkout', '-q', '-b', 'side']);
      commitFile(repo, 'README.md', 'side\n');
      git(repo, ['checkout', '-q', current]);
      commitFile(repo, 'README.md', `${current}\n`);
      let stopped = false;
      try {
        git(repo, [command, 'side']);
      } catch {
        stopped = true;
      }
      if (!stopped) throw new Error(`git ${command} side did not stop on a conflict`);
    },
    head(repo, rev = 'HEAD') {
      return git(repo, ['rev-parse', rev]);
    },
    cleanup() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
