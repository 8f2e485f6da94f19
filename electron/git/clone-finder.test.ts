import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import { redactCredentials } from '../../shared/url-credentials.ts';
import { cloneDestination, listClones, matchClone } from './clone-finder.ts';
import { createGitRunner } from './git-runner.ts';

let box: GitSandbox;
let root: string;
beforeEach(() => {
  box = createGitSandbox();
  root = join(box.root, 'ws');
  mkdirSync(root);
});
afterEach(() => box.cleanup());

/** A repository at `path` whose only remote is `url` (never contacted). */
function repoWithRemote(path: string, url: string): void {
  mkdirSync(path, { recursive: true });
  box.git(path, ['init', '-q']);
  box.git(path, ['remote', 'add', 'origin', url]);
}

describe('clone finder', () => {
  it('finds clones one and two levels under the workspace root and among known repos', async () => {
    repoWithRemote(join(root, 'app'), 'git@github.com:acme/app.git');
    repoWithRemote(join(root, 'acme', 'lib'), 'https://github.com/acme/lib');
    repoWithRemote(join(box.root, 'elsewhere', 'tool'), 'ssh://git@gitlab.com/acme/tool.git');
    mkdirSync(join(root, 'not-a-repo'));
    const clones = await listClones({
      run: createGitRunner({ env: box.env }),
      workspaceRoot: root,
      knownRepos: [join(box.root, 'elsewhere', 'tool')],
    });
    expect(clones.map((c) => c.path).sort()).toEqual(
      [join(root, 'acme', 'lib'), join(root, 'app'), join(box.root, 'elsewhere', 'tool')].sort(),
    );
    expect(matchClone(clones, 'https://github.com/acme/app')).toEqual({ path: join(root, 'app'), remoteName: 'origin' });
    expect(matchClone(clones, 'git@github.com:acme/lib.git')?.path).toBe(join(root, 'acme', 'lib'));
    expect(matchClone(clones, 'https://gitlab.com/acme/tool')?.path).toBe(join(box.root, 'elsewhere', 'tool'));
    expect(matchClone(clones, 'git@github.com:acme/other.git')).toBeNull();
  });

  it('matches a clone whose remote carries credentials with the redacted URL a session records, and the other way round', async () => {
    repoWithRemote(join(root, 'api'), 'http://builder:s3cret@git.example.com/acme/api.git');
    repoWithRemote(join(root, 'web'), 'https://x-access-token:***@git.example.com/acme/web.git');
    const clones = await listClones({ run: createGitRunner({ env: box.env }), workspaceRoot: root });
    expect(matchClone(clones, redactCredentials('http://builder:s3cret@git.example.com/acme/api.git'))?.path).toBe(join(root, 'api'));
    expect(matchClone(clones, 'https://git.example.com/acme/api')?.path).toBe(join(root, 'api'));
    expect(matchClone(clones, 'https://x-access-token:ghs_TOKEN@git.example.com/acme/web.git')?.path).toBe(join(root, 'web'));
    expect(matchClone(clones, 'https://***@git.example.com/acme/other.git')).toBeNull();
  });

  it('picks a free clone folder named for the repository', async () => {
    mkdirSync(join(root, 'app'));
    const taken = new Set<string>();
    expect(await cloneDestination(root, 'git@github.com:acme/app.git', taken)).toBe(join(root, 'app-2'));
    expect(await cloneDestination(root, 'https://github.com/other/app', taken)).toBe(join(root, 'app-3'));
    expect(await cloneDestination(root, '/srv/git/tool.git', taken)).toBe(join(root, 'tool'));
  });
});
