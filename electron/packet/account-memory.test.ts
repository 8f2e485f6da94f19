import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../../dev-env/git-sandbox.ts';
import { createAccount } from '../enrollment/account.ts';
import type { EnrollmentBackend } from '../enrollment/enrollment-backend.ts';
import { createBackendClient } from '../sync/backend-client.ts';
import { startBackendProcess, type BackendProcess } from '../../dev-env/backend-process.ts';
import { openMemoryLink } from './account-memory.ts';
import { createExecGit } from './git-read.ts';
import { handoffCreate } from './handoff-create.ts';
import { handoffResume } from './handoff-resume.ts';

const BIN = join(import.meta.dirname, '../../bin/baton.js');
let root: string;
let backend: BackendProcess;
let profileDir: string;
let sandbox: GitSandbox;
let repo: string;

/** Only the one enrollment call account creation makes, over the real signed client. */
const accountBackend = (url: readonly string[], signer: { deviceId: string; sign(data: Uint8Array): Uint8Array }) =>
  ({
    createAccount: async (body: Parameters<EnrollmentBackend['createAccount']>[0]) => {
      const result = await createBackendClient({ baseUrl: url, signer }).call('createAccount', { body });
      return result.ok ? { ok: true as const, value: result.value } : result;
    },
  }) as unknown as EnrollmentBackend;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'baton-memory-'));
  backend = await startBackendProcess(join(root, 'backend'));
  profileDir = join(root, 'profile');
  const created = await createAccount(profileDir, [backend.url], 'laptop', { backend: accountBackend });
  if (!created.ok) throw new Error(created.message);
  sandbox = createGitSandbox('baton-memory-git-');
  repo = sandbox.clone(sandbox.makeOrigin('app'), 'repo');
  sandbox.branchWithUpstream(repo, 'feature/secret-plan');
}, 60_000);
afterAll(async () => {
  await backend?.stop();
  sandbox?.cleanup();
  rmSync(root, { recursive: true, force: true });
});

const deps = async (dir: string | undefined = profileDir) => ({ exec: createExecGit(sandbox.env), memory: await openMemoryLink(dir) });

describe('the account memory link', () => {
  it('recalls an empty topic as recalled with count 0 — a miss, not a skip', async () => {
    const link = await openMemoryLink(profileDir);
    expect(await link.recall('never-written')).toEqual({ status: 'recalled', count: 0, items: [] });
  });

  it('stores a sealed pointer on create and recalls it on resume', async () => {
    const created = await handoffCreate(repo, { goal: 'Launch the secret plan' }, await deps());
    expect(created.ok && created.memory).toEqual({ status: 'stored' });
    const resumed = await handoffResume(repo, {}, await deps());
    expect(resumed.ok && resumed.memory).toEqual({
      status: 'recalled',
      count: 1,
      items: [
        {
          slug: 'feature-secret-plan',
          goal: 'Launch the secret plan',
          path: 'docs/handoffs/feature-secret-plan.md',
          repo: sandbox.git(repo, ['rev-parse', '--show-toplevel']),
        },
      ],
    });
    await handoffCreate(repo, { goal: 'Second thoughts' }, await deps());
    const again = await (await openMemoryLink(profileDir)).recall('feature-secret-plan');
    expect(again).toMatchObject({ status: 'recalled', count: 2, items: [{ goal: 'Second thoughts' }, { goal: 'Launch the secret plan' }] });
  });

  it('keeps the slug, goal and repo path from the backend: its store holds none of them', () => {
    const dataDir = join(root, 'backend');
    const stored = readdirSync(dataDir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name)).toString('latin1'))
      .join('');
    expect(stored.length).toBeGreaterThan(0);
    for (const secret of ['secret-plan', 'secret plan', 'Launch the', repo]) expect(stored).not.toContain(secret);
  });

  it('is skipped with no_backend without a profile, or with a folder that holds none', async () => {
    expect(await (await openMemoryLink(undefined)).recall('x')).toEqual({ status: 'skipped', reason: 'no_backend' });
    const empty = await openMemoryLink(join(root, 'no-profile-here'));
    expect(await empty.recall('x')).toMatchObject({ status: 'skipped', reason: 'no_backend' });
    expect(await empty.remember({ slug: 'x', goal: '', path: '', repo: '' })).toMatchObject({ status: 'skipped', reason: 'no_backend' });
  });

  it('reads the profile from BATON_PROFILE in the packet command', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [BIN, 'packet', 'resume', '--root', repo], {
      env: { ...sandbox.env, BATON_PROFILE: profileDir },
    });
    expect(JSON.parse(stdout).memory).toMatchObject({ status: 'recalled', count: 2 });
  });

  it('is skipped with exactly no_backend (and a detail) when the backend is down, and create still writes the packet', async () => {
    await backend.stop();
    const created = await handoffCreate(repo, { goal: 'offline' }, await deps());
    const offline = { status: 'skipped', reason: 'no_backend', detail: expect.stringContaining('did not answer') };
    expect(created.ok && created.memory).toEqual(offline);
    const resumed = await handoffResume(repo, {}, await deps());
    expect(resumed).toMatchObject({ ok: true, asserted: { goal: 'offline' } });
    expect(resumed.ok && resumed.memory).toEqual(offline);
  });
});
