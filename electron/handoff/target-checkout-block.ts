/**
 * The target's prepare refused its checkout of a repository (uncommitted work in it, local commits
 * the pinned commit lacks) or could not get the branch at all: the blocker the move is cancelled
 * with, before anything moved. It names the device and the checkout, says what to do there, and —
 * for a checkout that holds work — offers moving into a fresh clone on that device instead, so
 * nothing in the checkout is left behind without a word.
 */
import type { Failure } from '../../shared/errors.ts';
import type { Blocker } from '../../shared/readiness.ts';
import { counted } from '../../shared/plural.ts';

const CHECKOUT_CODES = new Set(['target_workspace_dirty', 'target_branch_diverged']);

function text(details: Record<string, unknown>, key: string): string | null {
  const value = details[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** Why the checkout at `path` on `name` cannot take the session, in one sentence. */
function checkoutSentence(code: string, name: string, path: string, details: Record<string, unknown>): string {
  const operation = text(details, 'operation');
  if (operation) return `A ${operation} is in progress in ${name}'s checkout ${path}, which this session continues in there.`;
  if (code === 'target_branch_diverged') {
    const count = typeof details['localCommits'] === 'number' && details['localCommits'] > 0 ? details['localCommits'] : null;
    const commits = count === null ? 'local commits' : counted(count, 'local commit');
    return `${name}'s checkout ${path} holds ${commits} that the session's pinned commit does not contain, so it cannot be moved there without losing them.`;
  }
  const files = typeof details['fileCount'] === 'number' ? details['fileCount'] : null;
  const changes = files === null ? 'uncommitted changes' : counted(files, 'uncommitted change');
  return `${name}'s checkout ${path}, which this session continues in there, has ${changes}.`;
}

/**
 * The blocker for a refused prepare on device `self` (`failure` as the git port answers it: the
 * checkout, its files and the fix in `details`).
 */
export function prepareBlocker(failure: Failure, self: { id: string; name: string }): Blocker {
  const details = failure.details ?? {};
  const path = text(details, 'path');
  const fix = text(details, 'fix');
  const sentence = text(details, 'sentence') ?? failure.message;
  if (path === null || !CHECKOUT_CODES.has(failure.code)) {
    // Read on the source too: the target's "this device" is named.
    const named = (text: string) => text.replace(/\bthis device\b/gi, self.name);
    return {
      code: 'target_cannot_open_workspace',
      message: named(sentence),
      fix: named(fix ?? `Check that ${self.name} can reach the repositories' remotes, then try again.`),
    };
  }
  const files = Array.isArray(details['files']) ? details['files'].filter((f): f is string => typeof f === 'string') : [];
  const there =
    failure.code === 'target_workspace_dirty' && text(details, 'operation') === null
      ? `Commit or stash them in ${path} on ${self.name} (git -C ${path} stash -u)`
      : (fix?.replace(/,? (?:and|then) retry\.?$/, '') ?? `Fix ${path} on ${self.name}`);
  return {
    code: failure.code as Blocker['code'],
    repo: path,
    message: checkoutSentence(failure.code, self.name, path, details),
    fix: `${there}, then try the move again — or move into a fresh clone on ${self.name} and leave ${path} as it is.`,
    action: { kind: 'fresh-clone', deviceId: self.id },
    details: {
      path,
      device: self.name,
      files: files.slice(0, 20),
      ...(typeof details['fileCount'] === 'number' ? { fileCount: details['fileCount'] } : {}),
    },
  };
}
