/**
 * Test support: repositories whose own config and hooks name a program for every way git can be
 * made to run one (electron/git/repo-config-guard.ts lists them), each writing a marker file named
 * for itself when it runs. A test arms a clone, lets Baton work in it, then reads which markers
 * fired: none for git Baton runs on its own, the hooks and filters for the user's own Commit.
 *
 * Two more ways in, beyond the clone's own config: a submodule whose own config and hooks arm the
 * same programs (markers `submodule-<name>`), with the clone around it set to recurse into it
 * wherever git can be told to; and a remote transport helper, `git-remote-evil` in the kit's `bin`
 * folder (which a test puts on PATH), that a `url.*.insteadOf` of the clone sends a remote to
 * (marker `remote-helper`).
 */
import { appendFileSync, chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { GitSandbox } from './git-sandbox.ts';

/** The attributes that send every file through the hostile drivers, `notes.txt` through the included one. */
export const HOSTILE_ATTRIBUTES = '* filter=baton-hostile diff=baton-hostile merge=baton-hostile\nnotes.txt filter=baton-included\n';

/** The attributes a submodule commits to send its files through its own config's drivers. */
export const SUBMODULE_ATTRIBUTES = '* filter=baton-sub diff=baton-sub\n';

/** A bare origin made in `box` whose one commit carries SUBMODULE_ATTRIBUTES: a submodule for `armSubmodule`. */
export function submoduleOrigin(box: GitSandbox, name: string): string {
  const origin = box.makeOrigin(name);
  const seed = box.clone(origin, `${name}-seed`);
  box.commitFile(seed, '.gitattributes', SUBMODULE_ATTRIBUTES);
  box.push(seed);
  return origin;
}

/** What the clone around an armed submodule sets so that git, left to itself, goes into it. */
const RECURSE_CONFIG = [
  '[submodule]',
  '\trecurse = true',
  '[fetch]',
  '\trecurseSubmodules = true',
  '[diff]',
  '\tsubmodule = diff',
  '\tignoreSubmodules = none',
  '[status]',
  '\tsubmoduleSummary = true',
  '',
].join('\n');

/** Hooks armed in `.git/hooks` (each fires `hook-<name>`). */
export const HOSTILE_HOOKS = [
  'pre-commit',
  'commit-msg',
  'post-commit',
  'post-checkout',
  'post-merge',
  'post-rewrite',
  'reference-transaction',
  'post-index-change',
  'pre-push',
  'pre-auto-gc',
] as const;

export interface HostileKit {
  /** The folder the markers are written to. */
  markers: string;
  /** Adds the hostile config, an included config file and the hooks to the clone at `repo`. */
  arm(repo: string): void;
  /**
   * Arms the submodule checked out at `repo/path` (its own config and hooks, markers
   * `submodule-<name>`; its files need SUBMODULE_ATTRIBUTES) and sets `repo` to recurse into it.
   */
  armSubmodule(repo: string, path: string): void;
  /** The folder holding `git-remote-evil`, for PATH. */
  bin: string;
  /** Sends the remote URL `url`, wherever the clone at `repo` uses it, to the `evil` transport helper. */
  armRemoteHelper(repo: string, url: string): void;
  /** The markers written so far, sorted. */
  fired(): string[];
  /** Removes every marker. */
  clear(): void;
}

/** A kit under `root` (its script, included config and marker folder live in `root/hostile`). */
export function hostileKit(root: string): HostileKit {
  const dir = join(root, 'hostile');
  const markers = join(dir, 'markers');
  mkdirSync(markers, { recursive: true });
  const script = join(dir, 'mark.sh');
  writeFileSync(
    script,
    [
      '#!/bin/sh',
      'name="$1"; shift',
      `: > '${markers}'/"$name"`,
      'case "${name#submodule-}" in',
      '  clean|smudge|included-clean) exec cat ;;',
      '  textconv) exec cat "$1" ;;',
      '  upload-pack) exec git-upload-pack "$@" ;;',
      '  fsmonitor|ssh|askpass|gpg|git-proxy) exit 1 ;;',
      'esac',
      'exit 0',
      '',
    ].join('\n'),
  );
  chmodSync(script, 0o755);
  // A command line for what git runs through the shell; a program of its own for what it runs directly.
  const run = (what: string) => `"'${script}' ${what}"`;
  const program = (what: string) => {
    const file = join(dir, `mark-${what}.sh`);
    writeFileSync(file, `#!/bin/sh\nexec '${script}' ${what} "$@"\n`);
    chmodSync(file, 0o755);
    return `"${file}"`;
  };
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'git-remote-evil'), `#!/bin/sh\n: > '${markers}/remote-helper'\nexit 1\n`);
  chmodSync(join(bin, 'git-remote-evil'), 0o755);
  const included = join(dir, 'included.cfg');
  writeFileSync(included, `[filter "baton-included"]\n\tclean = ${run('included-clean')}\n\tsmudge = ${run('included-clean')}\n`);
  const config = [
    '[core]',
    `\tfsmonitor = ${run('fsmonitor')}`,
    `\tsshCommand = ${run('ssh')}`,
    `\taskPass = ${program('askpass')}`,
    `\talternateRefsCommand = ${run('alternate-refs')}`,
    `\tgitProxy = ${run('git-proxy')}`,
    '[diff]',
    `\texternal = ${run('external-diff')}`,
    '[diff "baton-hostile"]',
    `\ttextconv = ${run('textconv')}`,
    `\tcommand = ${run('diff-driver')}`,
    '[filter "baton-hostile"]',
    `\tclean = ${run('clean')}`,
    `\tsmudge = ${run('smudge')}`,
    '\trequired = true',
    '[merge "baton-hostile"]',
    `\tdriver = ${run('merge-driver')}`,
    '[credential]',
    `\thelper = "!'${script}' credential"`,
    '[remote "origin"]',
    `\tuploadpack = ${run('upload-pack')}`,
    '[log]',
    '\tshowSignature = true',
    '[gpg]',
    `\tprogram = ${program('gpg')}`,
    '[include]',
    `\tpath = ${included}`,
    '',
  ].join('\n');
  const submoduleConfig = [
    '[core]',
    `\tfsmonitor = ${run('submodule-fsmonitor')}`,
    '[diff]',
    `\texternal = ${run('submodule-external-diff')}`,
    '[diff "baton-sub"]',
    `\ttextconv = ${run('submodule-textconv')}`,
    `\tcommand = ${run('submodule-diff-driver')}`,
    '[filter "baton-sub"]',
    `\tclean = ${run('submodule-clean')}`,
    `\tsmudge = ${run('submodule-smudge')}`,
    '\trequired = true',
    '[remote "origin"]',
    `\tuploadpack = ${run('submodule-upload-pack')}`,
    '',
  ].join('\n');
  const armHooks = (gitDir: string, prefix: string) => {
    for (const hook of HOSTILE_HOOKS) {
      const file = join(gitDir, 'hooks', hook);
      mkdirSync(join(gitDir, 'hooks'), { recursive: true });
      writeFileSync(file, `#!/bin/sh\nexec '${script}' ${prefix}hook-${hook}\n`);
      chmodSync(file, 0o755);
    }
  };
  return {
    markers,
    bin,
    arm(repo) {
      appendFileSync(join(repo, '.git', 'config'), config);
      armHooks(join(repo, '.git'), '');
    },
    armSubmodule(repo, path) {
      const gitDir = gitDirOf(join(repo, path));
      appendFileSync(join(gitDir, 'config'), submoduleConfig);
      armHooks(gitDir, 'submodule-');
      appendFileSync(join(repo, '.git', 'config'), `${RECURSE_CONFIG}[submodule "${path}"]\n\tfetchRecurseSubmodules = true\n`);
    },
    armRemoteHelper(repo, url) {
      appendFileSync(join(repo, '.git', 'config'), `[url "evil::${url}"]\n\tinsteadOf = ${url}\n`);
    },
    fired: () => readdirSync(markers).sort(),
    clear() {
      rmSync(markers, { recursive: true, force: true });
      mkdirSync(markers);
    },
  };
}

/** The git dir of the checkout at `dir`: its `.git` folder, or where its `.git` file points. */
function gitDirOf(dir: string): string {
  const dotGit = join(dir, '.git');
  if (statSync(dotGit).isDirectory()) return dotGit;
  const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1];
  if (!pointer) throw new Error(`${dotGit} names no git dir`);
  return resolve(dir, pointer.trim());
}
