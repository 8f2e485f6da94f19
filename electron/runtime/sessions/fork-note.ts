/**
 * The words of a fork: the note at the head of its history, which a person reads in the transcript
 * (where it came from and when, and the branch each repository is on, by the repository's name —
 * ids and raw timestamps stay out of it), and the note its agent is told with its first input.
 */

/** One repository of a fork as its note tells it. */
export interface ForkedRepo {
  relPath: string;
  remoteUrl: string | null;
  branch: string;
  /** The commit it was pinned at. */
  commit: string;
  /** Null when pushed; else why the push failed. */
  pushFailure: string | null;
}

/** What the history note of a fork says. */
export interface ForkOrigin {
  title: string;
  sourceDeviceName: string | null;
  /** When the move the fork is made from was asked for (as its handoff history shows it). */
  movedAt: number;
  repos: readonly ForkedRepo[];
}

const when = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hour12: false });

/**
 * A repository's name for people: its folder inside the workspace, or for the workspace's own
 * repository the last part of its remote (`app` for `git@host:team/app.git`), else "the repository".
 */
export function repoName(relPath: string, remoteUrl: string | null): string {
  if (relPath !== '' && relPath !== '.') return relPath;
  const last = remoteUrl
    ?.replace(/[/\\]+$/, '')
    .split(/[/\\:]/)
    .at(-1)
    ?.replace(/\.git$/, '');
  return last ? last : 'the repository';
}

function repoLine(repo: ForkedRepo): string {
  const name = repoName(repo.relPath, repo.remoteUrl);
  const which = name === 'the repository' ? 'The repository' : `The repository ${name}`;
  const where = `${which} is on the new branch ${repo.branch}, at commit ${repo.commit.slice(0, 7)}`;
  return repo.pushFailure === null
    ? `${where}, pushed.`
    : `${where}, not pushed (${repo.pushFailure.replace(/\.$/, '')}): push it before moving the fork.`;
}

/** The note at the head of a fork's history: what it was forked from, when, and where each repository now is. */
export function forkHistoryNote(origin: ForkOrigin): string {
  const from = origin.sourceDeviceName === null ? '' : ` from ${origin.sourceDeviceName}`;
  const repos = origin.repos.map(repoLine);
  return [
    `Forked from "${origin.title}" at its move${from} on ${when.format(origin.movedAt)}.`,
    ...repos,
    'The original session is unchanged.',
  ].join(' ');
}

/**
 * What the fork's agent is told ("Baton:" first, as after a move): that it is a fork, of what and from
 * where, where it now runs and on which branch, and that the original goes on without it.
 */
export function forkNote(title: string, sourceDeviceName: string | null, workspace: string, branches: string[]): string {
  const on =
    branches.length === 1 ? `on the new branch ${branches[0]}` : `each repository on a new branch of its own (${branches.join(', ')})`;
  return (
    `Baton: this session is a fork of "${title}", made from the checkpoint of its move from ${sourceDeviceName ?? 'another device'}; ` +
    `you now run in ${workspace}, ${on}. The original session goes on separately, in its own folder and branch: ` +
    'nothing you do here changes it.'
  );
}
