/**
 * The note the agent reads on its first turn after a move: from which device to which, the new
 * workspace path, and what differs that the target can see — the operating system, the CLI's
 * version, the form of each git remote's URL (never the URL: it may carry credentials). Built on
 * the target from the checkpoint's sealed meta and what the target reads of itself. Pure but for
 * reading each pinned clone's git config (remote-form).
 */
import { join } from 'node:path';
import { carrySummary, type CarryCounts } from '../../shared/carry.ts';
import { readRemoteConfig, remoteForBranch } from '../git/git-dir.ts';

/** What one side of the move was (the source, from the checkpoint) or is (the target). */
export interface MoveSide {
  name: string | null;
  /** `process.platform` of the device (null: not known, an older checkpoint). */
  platform: string | null;
  workspace: string | null;
  /** The session's CLI version there (null: none, or not known). */
  cliVersion: string | null;
}

export interface MoveFacts {
  from: MoveSide;
  to: MoveSide & { workspace: string };
  /** "Claude Code", "Codex"…; null for an agent with no CLI version worth naming. */
  cliLabel: string | null;
  /** Each repository: its remote URL on the source (the checkpoint's) and in the target's clone. */
  remotes: { relPath: string; source: string | null; target: string | null }[];
  /** The uncommitted work and unpushed commits that came along (Carry my changes), if any. */
  carried?: CarryCounts & { repos: string[] };
}

const PLATFORMS: Record<string, string> = { darwin: 'macOS', linux: 'Linux', win32: 'Windows', freebsd: 'FreeBSD' };

function platformName(platform: string): string {
  return PLATFORMS[platform] ?? platform;
}

/** The form of a remote URL in words (SSH, HTTPS, a local path…), never the URL itself. */
export function remoteForm(url: string): string {
  if (/^ssh:\/\//i.test(url) || /^(?:[^@/\s]+@)?[^:/\s]+:(?!\/\/)/.test(url)) return 'an SSH URL';
  if (/^https:\/\//i.test(url)) return 'an HTTPS URL';
  if (/^http:\/\//i.test(url)) return 'a plain HTTP URL';
  if (/^git:\/\//i.test(url)) return 'a git:// URL';
  return 'a local path';
}

/** The URL of the remote `branch` pushes to in the clone at `repoPath` (its own .git), or null. */
export function cloneRemoteUrl(repoPath: string, branch: string | null): string | null {
  const config = readRemoteConfig(join(repoPath, '.git'));
  const name = remoteForBranch(config, branch);
  return name === null ? null : (config.remotes.get(name) ?? null);
}

/** The note, in a few sentences; "Baton:" first so the agent knows who says it. */
export function moveNote(facts: MoveFacts): string {
  const from = facts.from.name ?? 'another device';
  const to = facts.to.name ?? 'this device';
  const lines = [`Baton: this session just moved from the device "${from}" to "${to}"; you now run on ${to}.`];
  const was = facts.from.workspace && facts.from.workspace !== facts.to.workspace ? ` (it was ${facts.from.workspace} on ${from})` : '';
  lines.push(`Your workspace is now ${facts.to.workspace}${was}.`);
  const differs: string[] = [];
  const { platform } = facts.from;
  if (platform && facts.to.platform && platform !== facts.to.platform)
    differs.push(`the operating system is ${platformName(facts.to.platform)} (${from}: ${platformName(platform)})`);
  const [before, now] = [facts.from.cliVersion, facts.to.cliVersion];
  if (facts.cliLabel && before && now && before !== now) differs.push(`${facts.cliLabel} is version ${now} (${from}: ${before})`);
  for (const remote of facts.remotes) {
    if (!remote.source || !remote.target) continue;
    const [there, here] = [remoteForm(remote.source), remoteForm(remote.target)];
    const repo = remote.relPath === '.' ? 'the repository' : `the repository ${remote.relPath}`;
    if (there !== here) differs.push(`the git remote of ${repo} is ${here} (${from}: ${there})`);
  }
  if (differs.length > 0) lines.push(`What differs here: ${differs.join('; ')}.`);
  if (facts.carried) {
    const where = facts.carried.repos.filter((r) => r !== '.');
    const of = where.length > 0 ? ` in ${where.join(', ')}` : '';
    lines.push(
      `The uncommitted changes came along${of}, still uncommitted (${carrySummary(facts.carried)}); what was staged is staged. ` +
        `${from} keeps its copy in a stash.`,
    );
  }
  lines.push('Paths, tools and settings you relied on there may differ here.');
  return lines.join(' ');
}
