import { describe, expect, it } from 'vitest';
import { fail } from '../../shared/errors.ts';
import { prepareBlocker } from './target-checkout-block.ts';

const SELF = { id: 'laptop-aaaaaaaaaaaa', name: 'laptop' };

describe("the blocker a target's refused prepare cancels the move with", () => {
  it('names the device and the checkout with uncommitted work, the fix there, and offers a fresh clone', () => {
    const refused = fail('target_workspace_dirty', 'The clone at /src/app on this device has 2 uncommitted changes; nothing was touched.', {
      path: '/src/app',
      files: ['a.txt', 'b.txt'],
      fileCount: 2,
      fix: 'Commit or stash them in /src/app (git -C /src/app stash -u), then retry.',
    });
    expect(prepareBlocker(refused, SELF)).toEqual({
      code: 'target_workspace_dirty',
      repo: '/src/app',
      message: "laptop's checkout /src/app, which this session continues in there, has 2 uncommitted changes.",
      fix: 'Commit or stash them in /src/app on laptop (git -C /src/app stash -u), then try the move again — or move into a fresh clone on laptop and leave /src/app as it is.',
      action: { kind: 'fresh-clone', deviceId: SELF.id },
      details: { path: '/src/app', device: 'laptop', files: ['a.txt', 'b.txt'], fileCount: 2 },
    });
  });

  it('says a checkout on local commits the pin lacks cannot be moved without losing them, keeping its own fix', () => {
    const refused = fail('target_branch_diverged', 'main in /src/app holds 1 local commit that the pinned commit does not contain.', {
      path: '/src/app',
      localCommits: 1,
      fix: 'Keep them on another branch (git -C /src/app branch keep/main main), then move main to abc1234 (git -C /src/app reset --keep abc1234) and retry.',
    });
    const blocker = prepareBlocker(refused, SELF);
    expect(blocker.message).toBe(
      "laptop's checkout /src/app holds 1 local commit that the session's pinned commit does not contain, so it cannot be moved there without losing them.",
    );
    expect(blocker.fix).toMatch(
      /^Keep them on another branch .* reset --keep abc1234\), then try the move again — or move into a fresh clone on laptop/,
    );
    expect(blocker.action).toEqual({ kind: 'fresh-clone', deviceId: SELF.id });
  });

  it('says a repository the target cannot get at all, without a fresh clone to offer', () => {
    const refused = fail('target_cannot_open_workspace', 'This device cannot get main of /o.git: the branch is not on the remote.', {
      sentence: 'This device cannot get main of /o.git: the branch is not on the remote.',
      fix: 'Check that this device can reach /o.git (credentials, network) and that main is pushed.',
    });
    expect(prepareBlocker(refused, SELF)).toEqual({
      code: 'target_cannot_open_workspace',
      message: 'laptop cannot get main of /o.git: the branch is not on the remote.',
      fix: 'Check that laptop can reach /o.git (credentials, network) and that main is pushed.',
    });
  });
});
