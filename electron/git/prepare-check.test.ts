import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import { hostileKit } from '../../dev-env/hostile-repo.ts';
import { createGitRunner, type GitRunner } from './git-runner.ts';
import type { PinDeps } from './pinning.ts';
import { prepareCheck } from './prepare-check.ts';
import type { GitTransferReport } from './transfer-progress.ts';

let box: GitSandbox;
let origin: string;
let source: string;
let root: string;
let deps: PinDeps;

beforeEach(() => {
  box = createGitSandbox();
  origin = box.makeOrigin('app');
  source = box.clone(origin, 'source/app');
  box.branchWithUpstream(source, 'feature/x');
  root = join(box.root, 'target-workspace');
  mkdirSync(root);
  deps = { run: createGitRunner({ env: box.env }), workspaceRoot: root };
});
afterEach(() => box.cleanup());

/** A runner that records each git call's arguments (with `env` added, e.g. a global config of an older protocol). */
function recording(env: NodeJS.ProcessEnv = {}): { run: GitRunner; calls: string[][] } {
  const real = createGitRunner({ env: { ...box.env, ...env } });
  const calls: string[][] = [];
  return {
    calls,
    run: (args, options) => {
      calls.push([...args]);
      return real(args, options);
    },
  };
}

describe('target prepare check', () => {
  it('confirms a repository it can clone without cloning it', async () => {
    const outcome = await prepareCheck([{ remote: origin, branch: 'feature/x' }], deps);
    expect(outcome).toEqual({
      ok: true,
      value: { repos: [{ remote: origin, branch: 'feature/x', path: null, remoteName: null, tip: box.head(source) }] },
    });
    expect(readdirSync(root)).toEqual([]);
  });

  it('fetches the branch into an existing clone without touching its working tree', async () => {
    const target = box.clone(origin, join(root, 'app'));
    const tip = box.commitFile(source, 'new.txt', 'n');
    box.push(source);
    const before = box.head(target);
    const outcome = await prepareCheck([{ remote: origin, branch: 'feature/x' }], deps);
    expect(outcome).toMatchObject({ ok: true, value: { repos: [{ path: target, tip }] } });
    expect(box.head(target)).toBe(before);
    expect(box.git(target, ['rev-parse', 'origin/feature/x'])).toBe(tip);
  });

  it('reports a branch the remote lacks and a remote it cannot reach as target_cannot_open_workspace', async () => {
    expect(await prepareCheck([{ remote: origin, branch: 'nope' }], deps)).toMatchObject({
      ok: false,
      code: 'target_cannot_open_workspace',
    });
    const missing = join(box.root, 'origins', 'missing.git');
    expect(await prepareCheck([{ remote: missing, branch: 'main' }], deps)).toMatchObject({
      ok: false,
      code: 'target_cannot_open_workspace',
    });
  });

  it('refuses a clone whose config sends the remote to a transport helper, naming it, and runs no helper', async () => {
    const kit = hostileKit(box.root);
    const target = box.clone(origin, join(root, 'app'));
    kit.armRemoteHelper(target, origin);
    const run = createGitRunner({ env: { ...box.env, PATH: `${kit.bin}:${box.env.PATH ?? ''}` } });
    const outcome = await prepareCheck([{ remote: origin, branch: 'feature/x' }], { ...deps, run });
    expect(outcome).toMatchObject({
      ok: false,
      code: 'target_cannot_open_workspace',
      message: expect.stringContaining('transport "evil"'),
    });
    expect(kit.fired()).toEqual([]);
  });

  it('reports a dirty clone and a branch with unpushed local commits early', async () => {
    const target = box.clone(origin, join(root, 'app'));
    box.writeFile(target, 'wip.txt', 'w');
    expect(await prepareCheck([{ remote: origin, branch: 'main' }], deps)).toMatchObject({ ok: false, code: 'target_workspace_dirty' });
    box.commitFile(target, 'wip.txt', 'w');
    expect(await prepareCheck([{ remote: origin, branch: 'main' }], deps)).toMatchObject({
      ok: false,
      code: 'target_branch_diverged',
      details: { localCommits: 1 },
    });
  });

  it("asks a redacted remote with the device's own credentials, never the *** placeholder, and says so redacted", async () => {
    const authorizations: (string | null)[] = [];
    const server = createServer((req, res) => {
      authorizations.push(req.headers.authorization ?? null);
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const remote = `http://builder:***@127.0.0.1:${(server.address() as AddressInfo).port}/acme/app.git`;
      const outcome = await prepareCheck([{ remote, branch: 'main' }], deps);
      expect(outcome).toMatchObject({ ok: false, code: 'target_cannot_open_workspace', remote });
      expect(!outcome.ok && outcome.message).toContain('http://builder:***@127.0.0.1:');
      expect(authorizations.length).toBeGreaterThan(0);
      const sent = authorizations.filter((a) => a !== null).map((a) => Buffer.from(a.replace(/^Basic /, ''), 'base64').toString());
      expect(sent.some((credentials) => credentials.includes('***'))).toBe(false);
    } finally {
      server.close();
    }
  });

  it('prepares a clone on the branch at the remote tip with one status read and the fetch, reporting the fetch', async () => {
    const target = box.clone(origin, join(root, 'app'));
    const real = createGitRunner({ env: box.env });
    const subcommands: string[] = [];
    const run: GitRunner = (args, options) => {
      subcommands.push(args.find((a) => !a.startsWith('-') && !a.includes('=')) ?? '');
      return real(args, options);
    };
    const reports: GitTransferReport[] = [];
    const outcome = await prepareCheck([{ remote: origin, branch: 'main' }], {
      run,
      workspaceRoot: root,
      progress: (r) => reports.push(r),
    });
    expect(outcome).toMatchObject({ ok: true, value: { repos: [{ path: target, tip: box.head(target) }] } });
    expect(subcommands.sort()).toEqual(['fetch', 'status']);
    expect(reports.map((r) => [r.step, r.label, r.percent])).toEqual([
      ['fetch', 'app', null],
      ['fetch', 'app', 100],
    ]);
  });
});

describe('target prepare with the commit the source named', () => {
  let target: string;
  beforeEach(() => {
    target = box.clone(origin, join(root, 'app'));
    box.git(source, ['checkout', '-q', 'main']);
  });

  it('fetches nothing when the commit is here: the remote need not even answer', async () => {
    const commit = box.head(target);
    // Gone from its place: any fetch would fail.
    renameSync(origin, `${origin}.away`);
    const { run } = recording();
    const named = await prepareCheck([{ remote: origin, branch: 'main', commit }], { run, workspaceRoot: root });
    expect(named).toMatchObject({ ok: true, value: { repos: [{ path: target, tip: commit }] } });
    const unnamed = await prepareCheck([{ remote: origin, branch: 'main' }], { run, workspaceRoot: root });
    expect(unnamed).toMatchObject({ ok: false, code: 'target_cannot_open_workspace' });
  });

  it('fetches just that commit, no tags with it, and moves the remote-tracking ref forward to it', async () => {
    const commit = box.commitFile(source, 'new.txt', 'n');
    box.git(source, ['tag', 'v1']);
    box.git(source, ['push', '-q', 'origin', 'main', 'v1']);
    const { run, calls } = recording();
    const outcome = await prepareCheck([{ remote: origin, branch: 'main', commit }], { run, workspaceRoot: root });
    expect(outcome).toMatchObject({ ok: true, value: { repos: [{ path: target, tip: commit }] } });
    expect(box.git(target, ['rev-parse', 'origin/main'])).toBe(commit);
    expect(box.git(target, ['tag', '--list'])).toBe('');
    const fetches = calls.filter((args) => args.includes('fetch'));
    expect(fetches).toEqual([expect.arrayContaining(['--no-tags', `${commit}:refs/remotes/origin/main`])]);
  });

  it('leaves a remote-tracking ref that is ahead of the commit where it is', async () => {
    const commit = box.commitFile(source, 'a.txt', 'a');
    box.push(source);
    const ahead = box.commitFile(source, 'b.txt', 'b');
    box.push(source);
    box.git(target, ['fetch', '-q', 'origin']);
    const { run } = recording();
    const outcome = await prepareCheck([{ remote: origin, branch: 'main', commit }], { run, workspaceRoot: root });
    expect(outcome).toMatchObject({ ok: true, value: { repos: [{ path: target, tip: ahead }] } });
    expect(box.git(target, ['rev-parse', 'origin/main'])).toBe(ahead);
  });

  it('falls back to fetching the branch from a remote that serves no commit by its id', async () => {
    const commit = box.commitFile(source, 'a.txt', 'a');
    box.commitFile(source, 'b.txt', 'b');
    box.push(source);
    // Over protocol version 0 a remote serves only the commits its refs point at (uploadpack.allowAnySHA1InWant is off).
    const gitconfig = join(box.root, 'protocol-v0.gitconfig');
    writeFileSync(gitconfig, '[protocol]\n\tversion = 0\n');
    const { run, calls } = recording({ GIT_CONFIG_GLOBAL: gitconfig });
    const outcome = await prepareCheck([{ remote: origin, branch: 'main', commit }], { run, workspaceRoot: root });
    expect(outcome).toMatchObject({ ok: true, value: { repos: [{ path: target, tip: box.head(source) }] } });
    const fetches = calls.filter((args) => args.includes('fetch'));
    expect(fetches.map((args) => args.at(-1))).toEqual([`${commit}:refs/remotes/origin/main`, '+refs/heads/main:refs/remotes/origin/main']);
  });

  it('says so when the commit the source named is not on the remote (the branch was rewritten)', async () => {
    const commit = box.commitFile(source, 'lost.txt', 'l');
    const outcome = await prepareCheck([{ remote: origin, branch: 'main', commit }], { ...recording(), workspaceRoot: root });
    expect(outcome).toMatchObject({ ok: false, code: 'target_cannot_open_workspace' });
    expect(!outcome.ok && outcome.message).toContain(`the commit ${commit.slice(0, 7)} the source is at is not on the remote`);
  });

  it('refuses a named commit that is no commit id before running git', async () => {
    const { run, calls } = recording();
    const outcome = await prepareCheck([{ remote: origin, branch: 'main', commit: '--upload-pack=touch /tmp/x' }], {
      run,
      workspaceRoot: root,
    });
    expect(outcome).toMatchObject({ ok: false, code: 'invalid_pin' });
    expect(calls).toEqual([]);
  });
});
