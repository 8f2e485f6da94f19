/**
 * Finds a device's local clones by remote: scans the workspace root (two levels deep) and a list
 * of known repositories, reading each `.git/config` as a file (no git process per candidate). Folders
 * are listed on the calling thread, like the git-dir files (io/small-reads.ts): a listing is
 * microseconds, where a thread-pool round trip costs two thread wake-ups, and the target's prepare
 * lists the root before its fetch can start.
 */
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathKind } from '../io/small-reads.ts';
import { readRemoteConfig, resolveGitDirs } from './git-dir.ts';
import type { GitRunner } from './git-runner.ts';
import { normalizeRemote } from './remote-url.ts';

export interface LocalClone {
  path: string;
  /** remote name → URL */
  remotes: Map<string, string>;
}

export interface CloneSearch {
  run: GitRunner;
  /** The device's workspace root: clones are looked for here and made here. */
  workspaceRoot: string;
  /** Further clones the device knows of (absolute paths), matched before those under the root, in order. */
  knownRepos?: readonly string[];
  /** Match no clone: every repository gets a fresh folder under the root. */
  fresh?: boolean;
  /** Clones never matched (in use by something else), wherever they are found. */
  skip?: readonly string[];
}

function childDirs(dir: string): string[] {
  try {
    const entries = readdirSync(dir, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => join(dir, e.name));
  } catch {
    return [];
  }
}

async function readClone(path: string, run: GitRunner): Promise<LocalClone | null> {
  if (pathKind(join(path, '.git')) === null) return null;
  const dirs = await resolveGitDirs(path, run);
  if (dirs === null) return null;
  return { path, remotes: readRemoteConfig(dirs.commonDir).remotes };
}

/** Every clone among the known repositories and under the workspace root (depth 1 and 2), known ones first, none of `skip`. */
export async function listClones(search: CloneSearch): Promise<LocalClone[]> {
  const level1 = childDirs(search.workspaceRoot);
  const candidates = new Set([...(search.knownRepos ?? []), ...level1]);
  const found = await Promise.all([...candidates].map((p) => readClone(p, search.run)));
  const clones = found.filter((c) => c !== null);
  // Second level (root/owner/repo) only below folders that are not clones themselves.
  const clonePaths = new Set(clones.map((c) => c.path));
  const level2 = level1.filter((p) => !clonePaths.has(p)).flatMap(childDirs);
  const deeper = await Promise.all(level2.map((p) => readClone(p, search.run)));
  const skip = new Set(search.skip ?? []);
  return [...clones, ...deeper.filter((c) => c !== null)].filter((c) => !skip.has(c.path));
}

/** The first clone with a remote matching `remote` (any URL form), with that remote's name; null if none. */
export function matchClone(clones: LocalClone[], remote: string): { path: string; remoteName: string } | null {
  const key = normalizeRemote(remote);
  if (key === null) return null;
  for (const clone of clones) {
    for (const [name, url] of clone.remotes) {
      if (normalizeRemote(url, clone.path) === key) return { path: clone.path, remoteName: name };
    }
  }
  return null;
}

/** A free folder under the workspace root named for the repository (`app`, `app-2`, …), not in `taken`; adds it to `taken`. */
export async function cloneDestination(workspaceRoot: string, remote: string, taken: Set<string> = new Set()): Promise<string> {
  const key = normalizeRemote(remote) ?? 'repo';
  const name =
    basename(key)
      .replace(/\.git$/, '')
      .replace(/[^A-Za-z0-9._-]/g, '-')
      .replace(/^\.+/, '') || 'repo';
  for (let i = 1; ; i++) {
    const candidate = join(workspaceRoot, i === 1 ? name : `${name}-${i}`);
    if (!taken.has(candidate) && pathKind(candidate) === null) {
      taken.add(candidate);
      return candidate;
    }
  }
}
