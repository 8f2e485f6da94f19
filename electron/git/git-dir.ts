/**
 * Reads what a repository's git dir says without starting git where a file read will do:
 * where the git dir is, which operation (merge, rebase, cherry-pick, revert) is in progress,
 * and the remotes and branch→remote links in its config. These files are small, so they are read
 * on this thread (small-reads.ts): only finding the git dir may have to ask git.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { pathKind, readSmallText } from '../io/small-reads.ts';
import type { GitRunner } from './git-runner.ts';

export interface GitDirs {
  /** The repository's own git dir (per worktree). */
  gitDir: string;
  /** The shared git dir holding config, refs and objects. */
  commonDir: string;
}

export type GitOperation = 'merge' | 'rebase' | 'cherry-pick' | 'revert';

/** Finds the git dirs of the repository whose top level is `repo` (or, via git, any folder inside one); null if none. */
export async function resolveGitDirs(repo: string, run: GitRunner): Promise<GitDirs | null> {
  const dotGit = join(repo, '.git');
  const kind = pathKind(dotGit);
  if (kind === 'directory') return { gitDir: dotGit, commonDir: dotGit };
  if (kind === 'file') {
    const pointer = /^gitdir:\s*(.+)$/m.exec(readSmallText(dotGit) ?? '');
    if (pointer?.[1]) {
      const gitDir = resolve(repo, pointer[1].trim());
      const common = readSmallText(join(gitDir, 'commondir'));
      return { gitDir, commonDir: common ? resolve(gitDir, common) : gitDir };
    }
  }
  const result = await run(['rev-parse', '--absolute-git-dir', '--git-common-dir'], { cwd: repo });
  if (result.code !== 0) return null;
  const [gitDir, common] = result.stdout.split('\n').map((l) => l.trim());
  if (!gitDir) return null;
  const commonDir = common ? (isAbsolute(common) ? common : resolve(repo, common)) : gitDir;
  return { gitDir, commonDir };
}

/**
 * Where the symbolic ref `name` (e.g. `refs/remotes/origin/HEAD`) points, read from its file:
 * `refs/remotes/origin/main`; null when it is absent or not symbolic (symbolic refs are never packed).
 */
export function readSymbolicRef(commonDir: string, name: string): string | null {
  const text = readSmallText(join(commonDir, name));
  const match = text === null ? null : /^ref: (refs\/\S+)$/.exec(text);
  return match?.[1] ?? null;
}

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * The commit a ref (`refs/remotes/origin/main`) names, read from its loose file or `packed-refs`;
 * null when neither has it (the caller may ask git).
 */
export function readRef(commonDir: string, ref: string): string | null {
  if (!ref.startsWith('refs/') || ref.split('/').includes('..')) return null;
  const loose = readSmallText(join(commonDir, ref));
  if (loose !== null) return OBJECT_ID.test(loose) ? loose : null;
  const packed = readSmallText(join(commonDir, 'packed-refs')) ?? '';
  for (const line of packed.split('\n')) {
    const [id, name] = line.trim().split(' ');
    if (name === ref && id !== undefined && OBJECT_ID.test(id)) return id;
  }
  return null;
}

/** The operation in progress in `gitDir`, read from its marker files; null when none. */
export function operationInProgress(gitDir: string): GitOperation | null {
  const markers: [string, GitOperation][] = [
    ['rebase-merge', 'rebase'],
    ['rebase-apply', 'rebase'],
    ['MERGE_HEAD', 'merge'],
    ['CHERRY_PICK_HEAD', 'cherry-pick'],
    ['REVERT_HEAD', 'revert'],
  ];
  return markers.find(([file]) => pathKind(join(gitDir, file)) !== null)?.[1] ?? null;
}

export interface RemoteConfig {
  /** remote name → fetch URL */
  remotes: Map<string, string>;
  /** branch name → the remote its upstream lives on */
  branchRemotes: Map<string, string>;
  /** True when the config includes other files this reader does not follow. */
  hasIncludes: boolean;
}

function unquote(value: string): string {
  const v = value.trim();
  return v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v;
}

/** Reads `[remote "x"] url` and `[branch "y"] remote` from the config in `commonDir`. */
export function readRemoteConfig(commonDir: string): RemoteConfig {
  const config: RemoteConfig = { remotes: new Map(), branchRemotes: new Map(), hasIncludes: false };
  const text = readSmallText(join(commonDir, 'config'));
  if (text === null) return config;
  let section: { kind: string; name: string } | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.length === 0 || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (header) {
      const kind = (header[1] ?? '').toLowerCase();
      if (kind === 'include' || kind === 'includeif') config.hasIncludes = true;
      section = { kind, name: (header[2] ?? '').replace(/\\(.)/g, '$1') };
      continue;
    }
    const pair = /^([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*)$/.exec(line);
    if (!section || !pair) continue;
    const key = (pair[1] ?? '').toLowerCase();
    const value = unquote(pair[2] ?? '');
    if (section.kind === 'remote' && key === 'url' && !config.remotes.has(section.name)) config.remotes.set(section.name, value);
    if (section.kind === 'branch' && key === 'remote') config.branchRemotes.set(section.name, value);
  }
  return config;
}

/** The remote a branch pushes to: its configured upstream remote, else `origin`, else the only remote. */
export function remoteForBranch(config: RemoteConfig, branch: string | null): string | null {
  const linked = branch ? config.branchRemotes.get(branch) : undefined;
  if (linked && config.remotes.has(linked)) return linked;
  if (config.remotes.has('origin')) return 'origin';
  const names = [...config.remotes.keys()];
  return names.length === 1 ? (names[0] ?? null) : null;
}
