/**
 * Turns what readiness read of one repository into blockers: a code, one plain sentence, the
 * exact fix and, where one applies, the remediation the UI may offer. Pure.
 */
import { basename } from 'node:path';
import type { Blocker } from '../../shared/readiness.ts';
import type { GitOperation } from './git-dir.ts';
import type { ParsedStatus } from './status-parser.ts';
import { counted, themOrIt } from '../../shared/plural.ts';

/** How many dirty paths a `dirty_tree` blocker lists (the count is always complete). */
export const MAX_LISTED_FILES = 20;

export interface RepoFacts {
  repo: string;
  status: ParsedStatus;
  operation: GitOperation | null;
  /** The remote the branch pushes to (e.g. `origin`), null when the repository has none. */
  pushRemote: string | null;
  maxListedFiles?: number;
}

const COMMIT_FIX = 'git add -A && git commit -m "Describe your change"';
/** The commit fix run inside the submodule at `path`. */
const commitInside = (path: string) => `git -C ${path} add -A && git -C ${path} commit -m "Describe your change"`;

function operationBlocker(repo: string, name: string, operation: GitOperation): Blocker {
  return {
    code: 'operation_in_progress',
    repo,
    message: `A ${operation} is in progress in ${name}; finish or abort it before moving the session.`,
    fix: `git ${operation} --continue  (or: git ${operation} --abort)`,
    details: { operation, continueFix: `git ${operation} --continue`, abortFix: `git ${operation} --abort` },
  };
}

function dirtyBlocker(facts: RepoFacts, name: string): Blocker | null {
  const { status, repo } = facts;
  const all = [...status.conflicted, ...status.changed, ...status.untracked];
  if (all.length === 0) return null;
  const limit = facts.maxListedFiles ?? MAX_LISTED_FILES;
  // Changes inside a submodule are committed there, then the submodule's new commit here.
  const inside = status.dirtySubmodules;
  const them = themOrIt(all.length);
  const blocker: Blocker = {
    code: 'dirty_tree',
    repo,
    message:
      `${name} has ${counted(all.length, 'uncommitted file')}` +
      (inside.length > 0 ? `, some inside its submodule${inside.length === 1 ? '' : 's'} ${inside.join(', ')}` : '') +
      `; commit ${them} so the checkpoint can pin ${them}.`,
    // Deepest first: a submodule's commit is what the one around it then commits.
    fix: [...inside.toReversed().map(commitInside), COMMIT_FIX].join(' && '),
    details: {
      files: all.slice(0, limit),
      fileCount: all.length,
      changed: status.changed.length,
      untracked: status.untracked.length,
      conflicted: status.conflicted.length,
      ...(inside.length > 0 ? { submodules: inside } : {}),
    },
  };
  // Committing everything in the middle of a merge or with conflicts would seal conflict markers;
  // the Commit offered commits in the repository itself, not inside its submodules.
  if (facts.operation === null && status.conflicted.length === 0 && inside.length === 0) blocker.action = { kind: 'commit', repo };
  return blocker;
}

function branchBlockers(facts: RepoFacts, name: string, branch: string): Blocker[] {
  const { status, repo, pushRemote } = facts;
  const remote = pushRemote ?? 'origin';
  const setUpstream = `git push -u ${remote} ${branch}`;
  if (status.head === null) {
    return [
      {
        code: 'no_upstream',
        repo,
        message: `${name} has no commits yet on ${branch}; commit and push it first.`,
        fix: `${COMMIT_FIX} && ${setUpstream}`,
        details: { branch },
      },
    ];
  }
  if (pushRemote === null) {
    return [
      {
        code: 'no_upstream',
        repo,
        message: `${name} has no remote to push ${branch} to; add one and push.`,
        fix: `git remote add origin <url> && git push -u origin ${branch}`,
        details: { branch, remote: null },
      },
    ];
  }
  if (status.upstream === null || !status.upstreamExists) {
    const gone = status.upstream !== null;
    return [
      {
        code: 'no_upstream',
        repo,
        message: gone
          ? `The upstream ${status.upstream} of ${branch} in ${name} no longer exists; push the branch again.`
          : `The branch ${branch} in ${name} has no upstream; push it so the target can fetch it.`,
        fix: setUpstream,
        action: { kind: 'push', repo },
        details: { branch, remote, gone },
      },
    ];
  }
  if (status.ahead === 0) return [];
  const diverged = status.behind > 0;
  const blocker: Blocker = {
    code: 'unpushed_commits',
    repo,
    message: diverged
      ? `${branch} in ${name} has ${counted(status.ahead, 'commit')} not on ${status.upstream}, which has ${counted(status.behind, 'new one')}; integrate them and push.`
      : `${branch} in ${name} has ${counted(status.ahead, 'commit')} not pushed to ${status.upstream}.`,
    fix: diverged ? 'git pull --rebase && git push' : 'git push',
    details: { ahead: status.ahead, behind: status.behind, upstream: status.upstream, branch },
  };
  if (!diverged) blocker.action = { kind: 'push', repo };
  return [blocker];
}

/** Every source-side blocker for one repository, in a stable order (operation, head, dirty, push). */
export function sourceBlockers(facts: RepoFacts): Blocker[] {
  const { status, repo, operation } = facts;
  const name = basename(repo);
  const blockers: Blocker[] = [];
  if (operation) blockers.push(operationBlocker(repo, name, operation));
  if (status.branch === null && operation !== 'rebase') {
    const short = (status.head ?? 'HEAD').slice(0, 7);
    const branch = `work-${short}`;
    blockers.push({
      code: 'detached_head',
      repo,
      message: `${name} is on a detached HEAD at ${short}, not on a branch the target can check out.`,
      fix: `git switch -c ${branch} && git push -u ${facts.pushRemote ?? 'origin'} ${branch}`,
      details: { head: status.head },
    });
  }
  const dirty = dirtyBlocker(facts, name);
  if (dirty) blockers.push(dirty);
  if (status.branch !== null) blockers.push(...branchBlockers(facts, name, status.branch));
  return blockers;
}
