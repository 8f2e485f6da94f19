/**
 * Parses `git status --porcelain=v2 --branch -z` output: branch, upstream, ahead/behind and the
 * changed, untracked and conflicted paths. Pure; no git is run here.
 */

export interface ParsedStatus {
  /** HEAD commit, or null on an unborn branch. */
  head: string | null;
  /** Branch name, or null when HEAD is detached. */
  branch: string | null;
  detached: boolean;
  upstream: string | null;
  /** False when an upstream is configured but its remote-tracking branch is gone (no `branch.ab`). */
  upstreamExists: boolean;
  ahead: number;
  behind: number;
  /** Tracked paths with staged or unstaged changes (renames: the new path). */
  changed: string[];
  /** Untracked, not ignored paths (directories end with `/`). */
  untracked: string[];
  /** Paths with unresolved merge conflicts. */
  conflicted: string[];
  /**
   * Submodules holding changes of their own, whose paths the lists above then include under the
   * submodule's (submodule-status.ts adds them; a status read alone never looks inside one).
   */
  dirtySubmodules: string[];
  /** Of `changed`: how many are new in the index (staged adds) and how many are deleted (staged or not). */
  added: number;
  deleted: number;
  /** Of `changed`: submodules (gitlinks) whose commit or content moved. */
  gitlinks: string[];
}

/** Args for the one status call whose output `parseStatus` reads. */
export const STATUS_ARGS = ['status', '--porcelain=v2', '--branch', '-z'] as const;

/** Returns the text after the first `n` space-separated fields of `entry` (the path, which may hold spaces). */
function afterFields(entry: string, n: number): string {
  let index = 0;
  for (let i = 0; i < n; i++) {
    index = entry.indexOf(' ', index) + 1;
    if (index === 0) return '';
  }
  return entry.slice(index);
}

function parseHeader(status: ParsedStatus, header: string): void {
  const space = header.indexOf(' ');
  const key = space < 0 ? header : header.slice(0, space);
  const value = space < 0 ? '' : header.slice(space + 1);
  switch (key) {
    case 'branch.oid':
      status.head = value === '(initial)' ? null : value;
      break;
    case 'branch.head':
      status.detached = value === '(detached)';
      status.branch = status.detached ? null : value;
      break;
    case 'branch.upstream':
      status.upstream = value;
      break;
    case 'branch.ab': {
      const match = /^\+(\d+) -(\d+)$/.exec(value);
      if (match) {
        status.upstreamExists = true;
        status.ahead = Number(match[1]);
        status.behind = Number(match[2]);
      }
      break;
    }
  }
}

/** Counts what one changed entry (`1 XY sub …` or `2 XY sub …`) is: a staged add, a deletion, a submodule. */
function countChange(status: ParsedStatus, entry: string, path: string): void {
  const [x, y] = [entry[2], entry[3]];
  if (x === 'A') status.added += 1;
  else if (x === 'D' || y === 'D') status.deleted += 1;
  // The submodule field follows XY: `N...` for a file, `S<c><m><u>` for a submodule.
  if (entry[5] === 'S') status.gitlinks.push(path);
}

/** Parses NUL-separated porcelain v2 status output (with `--branch`). */
export function parseStatus(output: string): ParsedStatus {
  const status: ParsedStatus = {
    head: null,
    branch: null,
    detached: false,
    upstream: null,
    upstreamExists: false,
    ahead: 0,
    behind: 0,
    changed: [],
    untracked: [],
    conflicted: [],
    dirtySubmodules: [],
    added: 0,
    deleted: 0,
    gitlinks: [],
  };
  const entries = output.split('\0');
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] ?? '';
    if (entry.length < 2) continue;
    switch (entry[0]) {
      case '#':
        parseHeader(status, entry.slice(2));
        break;
      case '1':
      case '2': {
        const path = afterFields(entry, entry[0] === '1' ? 8 : 9);
        status.changed.push(path);
        countChange(status, entry, path);
        if (entry[0] === '2') i++; // -z puts the original path of a rename or copy in its own entry
        break;
      }
      case 'u':
        status.conflicted.push(afterFields(entry, 10));
        break;
      case '?':
        status.untracked.push(entry.slice(2));
        break;
    }
  }
  return status;
}
