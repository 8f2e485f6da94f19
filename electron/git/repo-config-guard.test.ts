import { createServer, type Server } from 'node:http';
import { chmodSync, utimesSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import { HOSTILE_ATTRIBUTES, hostileKit, type HostileKit } from '../../dev-env/hostile-repo.ts';
import { createGitRunner, gitFailureText, type GitRunner } from './git-runner.ts';
import { evaluateSourceReadiness } from './readiness.ts';
import { guardCall, guardRefusal, needsConfigScan, parseConfigList, plainRepoConfig } from './repo-config-guard.ts';

let box: GitSandbox;
let kit: HostileKit;
let origin: string;
let repo: string;
let guarded: GitRunner;
let asUser: GitRunner;

/**
 * Makes every tracked file's stat differ from the index, so status must read it through its filter.
 * Git compares whole seconds, so each call goes `hoursAgo` back: two calls within one second differ.
 */
function touchAll(dir: string, files: string[], hoursAgo = 1): void {
  const past = new Date(Date.now() - hoursAgo * 3600_000);
  for (const f of files) utimesSync(join(dir, f), past, past);
}

beforeEach(() => {
  box = createGitSandbox();
  kit = hostileKit(box.root);
  origin = box.makeOrigin('app');
  repo = box.clone(origin, 'app');
  box.commitFile(repo, '.gitattributes', HOSTILE_ATTRIBUTES);
  box.commitFile(repo, 'notes.txt', 'notes\n');
  box.commitFile(repo, 'a.txt', 'one\n');
  box.push(repo);
  kit.arm(repo);
  guarded = createGitRunner({ env: box.env });
  asUser = createGitRunner({ env: box.env, asUser: true });
});
afterEach(() => box.cleanup());

describe('guarded git', () => {
  it("runs no monitor, filter or diff program of the repository's config for readiness, diff, log and show", async () => {
    touchAll(repo, ['a.txt', 'notes.txt', 'README.md']);
    const report = await evaluateSourceReadiness([repo], { run: guarded });
    expect(report).toMatchObject({ ready: true, repos: [{ branch: 'main', ahead: 0 }] });
    writeFileSync(join(repo, 'a.txt'), 'two\n');
    const diff = await guarded(['diff'], { cwd: repo });
    expect(diff.stdout).toContain('+two');
    expect((await guarded(['log', '-p', '-1'], { cwd: repo })).stdout).toContain('+one');
    expect((await guarded(['show', 'HEAD'], { cwd: repo })).stdout).toContain('+one');
    expect(kit.fired()).toEqual([]);
    // The same calls as the user's own git: the markers can fire.
    touchAll(repo, ['notes.txt'], 2);
    await asUser(['status', '--porcelain=v2'], { cwd: repo });
    await asUser(['diff'], { cwd: repo });
    expect(kit.fired()).toEqual(expect.arrayContaining(['clean', 'diff-driver', 'fsmonitor', 'included-clean']));
  });

  it('runs no hook or smudge filter when it checks out, resets or moves a ref', async () => {
    const first = box.head(repo, 'HEAD~1');
    expect((await guarded(['checkout', '-q', '--no-track', '-B', 'other', first], { cwd: repo })).code).toBe(0);
    expect((await guarded(['checkout', '-q', 'main'], { cwd: repo })).code).toBe(0);
    expect((await guarded(['reset', '-q', '--keep', first], { cwd: repo })).code).toBe(0);
    expect((await guarded(['update-ref', 'refs/heads/kept', first], { cwd: repo })).code).toBe(0);
    expect(kit.fired()).toEqual([]);
    await asUser(['checkout', '-q', '-B', 'again', box.head(origin, 'main')], { cwd: repo });
    expect(kit.fired()).toEqual(expect.arrayContaining(['hook-post-checkout', 'hook-reference-transaction', 'smudge']));
  });

  it("fetches without the repository's upload-pack, monitor or hooks", async () => {
    box.commitFile(box.clone(origin, 'other'), 'b.txt', 'b\n');
    box.git(join(box.root, 'other'), ['push', '-q']);
    const fetched = await guarded(['fetch', '-q', '--no-auto-gc', 'origin', '+refs/heads/main:refs/remotes/origin/main'], { cwd: repo });
    expect(fetched.code).toBe(0);
    expect(box.head(repo, 'origin/main')).toBe(box.head(origin, 'main'));
    expect((await guarded(['ls-remote', 'origin'], { cwd: repo })).code).toBe(0);
    expect(kit.fired()).toEqual([]);
    await asUser(['fetch', '-q', 'origin'], { cwd: repo });
    expect(kit.fired()).toContain('upload-pack');
  });

  it("takes the user's own ssh command over the repository's", async () => {
    // The user's ssh (global config) runs the remote command here, so ssh:// reaches the bare origin.
    const ssh = join(box.root, 'user-ssh.sh');
    writeFileSync(ssh, '#!/bin/sh\nfor last; do :; done\nexec sh -c "$last"\n');
    chmodSync(ssh, 0o755);
    writeFileSync(join(box.home, '.gitconfig'), `[core]\n\tsshCommand = '${ssh}'\n`);
    const url = `ssh://baton.invalid${origin}`;
    const listed = await guarded(['ls-remote', '--heads', '--', url], { cwd: repo });
    expect(listed.stdout).toContain('refs/heads/main');
    expect(kit.fired()).toEqual([]);
    expect((await asUser(['ls-remote', '--heads', '--', url], { cwd: repo })).code).not.toBe(0);
    expect(kit.fired()).toContain('ssh');
  });

  it("asks the user's credential helpers only, never the repository's", async () => {
    const server: Server = createServer((_req, res) => res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="x"' }).end());
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const userHelper = join(box.root, 'user-helper.sh');
      writeFileSync(userHelper, `#!/bin/sh\n: > '${kit.markers}/user-credential'\n`);
      chmodSync(userHelper, 0o755);
      writeFileSync(join(box.home, '.gitconfig'), `[credential]\n\thelper = "!'${userHelper}'"\n`);
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/app.git`;
      expect((await guarded(['ls-remote', '--', url], { cwd: repo })).code).not.toBe(0);
      expect(kit.fired()).toEqual(['user-credential']);
      await asUser(['ls-remote', '--', url], { cwd: repo });
      expect(kit.fired()).toContain('credential');
    } finally {
      server.close();
    }
  });

  it('reaches no remote helper a url.insteadOf or a URL names, and says which transport it refused', async () => {
    kit.armRemoteHelper(repo, origin);
    const env = { ...box.env, PATH: `${kit.bin}:${box.env.PATH ?? ''}` };
    const run = createGitRunner({ env });
    for (const args of [
      ['fetch', '-q', 'origin'],
      ['ls-remote', 'origin'],
      ['ls-remote', '--', `evil::${origin}`],
      ['ls-remote', '--', `ext::sh -c touch% ${kit.markers}/ext`],
      ['clone', '-q', '--no-checkout', '--', `evil::${origin}`, join(box.root, 'cloned')],
    ]) {
      const result = await run(args, { cwd: repo });
      expect(result).toMatchObject({ error: 'transport_refused' });
      expect(gitFailureText(result)).toMatch(/^The remote's URL asks for the transport "(evil|ext)" \(a program git-remote-\1/);
    }
    expect(kit.fired()).toEqual([]);
    await createGitRunner({ env, asUser: true })(['fetch', '-q', 'origin'], { cwd: repo });
    expect(kit.fired()).toContain('remote-helper');
  });

  it('refuses a call that would set a guarded key or name an upload program itself', async () => {
    for (const args of [
      ['-c', 'core.hooksPath=/tmp', 'status'],
      ['-c', 'filter.x.clean=cat', 'status'],
      ['fetch', '--upload-pack=git-upload-pack', 'origin'],
    ]) {
      expect(await guarded(args, { cwd: repo })).toMatchObject({ code: -1, error: 'invalid_argument' });
    }
    expect(guardRefusal(['-c', 'fetch.unpackLimit=1', 'fetch', 'origin'])).toBeUndefined();
    for (const args of [
      ['submodule', 'update', '--init'],
      ['fetch', '--recurse-submodules', 'origin'],
      ['checkout', '--recurse-submodules=yes', 'main'],
      ['status', '--ignore-submodules=none'],
      ['diff', '--submodule=diff'],
      ['ls-files', '--recurse-submodules'],
    ])
      expect(guardRefusal(args)).toMatch(/never enters a submodule/);
    expect(guardRefusal(['fetch', '--no-recurse-submodules', 'origin'])).toBeUndefined();
    expect(guardRefusal(['diff', '--', '--recursive'])).toBeUndefined();
    expect(guardRefusal(['status'], ['core.fsmonitor=true'])).toMatch(/core.fsmonitor/);
  });
});

describe('the guard', () => {
  it('lists the config only for calls that may read the working tree or a remote', () => {
    expect(needsConfigScan(['status', '--porcelain=v2'])).toBe(true);
    expect(needsConfigScan(['-c', 'fetch.unpackLimit=1', 'fetch', 'origin'])).toBe(true);
    expect(needsConfigScan(['checkout', '-q', 'main'])).toBe(true);
    expect(needsConfigScan(['rev-parse', 'HEAD'])).toBe(false);
    expect(needsConfigScan(['log', '-1', '--format=%H'])).toBe(false);
    expect(needsConfigScan(['--version'])).toBe(false);
  });

  it("reads a plain clone's config from its files and leaves any other folder to git", () => {
    const plain = box.clone(origin, 'plain');
    expect(plainRepoConfig(plain, box.env)).toBe(true);
    expect(plainRepoConfig(repo, box.env)).toBe(false);
    expect(plainRepoConfig(box.root, box.env)).toBe(false);
    expect(plainRepoConfig(plain, { ...box.env, GIT_DIR: join(repo, '.git') })).toBe(false);
  });

  it("takes back each program the repository's config names, with the user's value where there is one", () => {
    const listed = parseConfigList(
      [
        'global\0filter.lfs.process\ngit-lfs filter-process',
        'global\0credential.https://example.com.helper\nstore',
        'local\0filter.lfs.clean\nevil',
        'local\0filter.x.smudge\nevil',
        'local\0credential.helper\n!evil',
        'local\0remote.origin.uploadpack\nevil',
        'local\0core.bare\nfalse',
        'command\0init.defaultbranch\nmain',
        '',
      ].join('\0'),
    );
    expect(listed[0]).toEqual({ scope: 'global', key: 'filter.lfs.process', value: 'git-lfs filter-process' });
    const call = guardCall(['fetch', 'origin'], { GIT_CONFIG_COUNT: '1' }, listed);
    expect(call.args).toEqual(['fetch', '--no-recurse-submodules', '--upload-pack=git-upload-pack', 'origin']);
    const settings = Array.from({ length: Number(call.env.GIT_CONFIG_COUNT) - 1 }, (_, i) => {
      return `${call.env[`GIT_CONFIG_KEY_${i + 1}`]}=${call.env[`GIT_CONFIG_VALUE_${i + 1}`]}`;
    });
    expect(settings).toEqual(
      expect.arrayContaining([
        'core.fsmonitor=false',
        'filter.lfs.clean=',
        'filter.lfs.process=git-lfs filter-process',
        'filter.lfs.required=false',
        'filter.x.smudge=',
        'credential.helper=',
        'credential.https://example.com.helper=store',
      ]),
    );
    expect(call.env.GIT_CONFIG_KEY_0).toBeUndefined();
    expect(guardCall(['diff', '--quiet'], {}, null).args).toEqual([
      'diff',
      '--no-ext-diff',
      '--no-textconv',
      '--ignore-submodules=dirty',
      '--submodule=short',
      '--quiet',
    ]);
    const receive = [{ scope: 'local', key: 'remote.origin.receivepack', value: 'evil' }];
    expect(guardCall(['push', 'origin', 'main'], {}, receive).args).toEqual(['push', '--receive-pack=git-receive-pack', 'origin', 'main']);
    expect(guardCall(['fetch', 'origin'], {}, receive).args).toEqual(['fetch', '--no-recurse-submodules', 'origin']);
    expect(guardCall(['status'], { GIT_ALLOW_PROTOCOL: 'file:ext' }, null).env.GIT_ALLOW_PROTOCOL).toBe('file:ext');
    expect(guardCall(['status'], {}, null).env.GIT_ALLOW_PROTOCOL).toBe('file:git:http:https:ssh');
  });
});
