/**
 * Test support: repositories whose own config and hooks name a program for every way git can be
 * made to run one (electron/git/repo-config-guard.ts lists them), each writing a marker file named
 * for itself when it runs. A test arms a clone, lets Baton work in it, then reads which markers
 * fired: none for git Baton runs on its own, the hooks and filters for the user's own Commit.
 */
import { appendFileSync, chmodSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The attributes that send every file through the hostile drivers, `notes.txt` through the included one. */
export const HOSTILE_ATTRIBUTES = '* filter=baton-hostile diff=baton-hostile merge=baton-hostile\nnotes.txt filter=baton-included\n';

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
      'case "$name" in',
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
  return {
    markers,
    arm(repo) {
      appendFileSync(join(repo, '.git', 'config'), config);
      for (const hook of HOSTILE_HOOKS) {
        const file = join(repo, '.git', 'hooks', hook);
        writeFileSync(file, `#!/bin/sh\nexec '${script}' hook-${hook}\n`);
        chmodSync(file, 0o755);
      }
    },
    fired: () => readdirSync(markers).sort(),
    clear() {
      rmSync(markers, { recursive: true, force: true });
      mkdirSync(markers);
    },
  };
}
