import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeInvite } from '../electron/enrollment/invite-token.ts';
import { joinWhileApproving, firstDevice, must, startEnrollmentWorld, type EnrollmentWorld } from '../dev-env/enrollment-fixture.ts';
import { PROJECT_ROOT } from '../dev-env/process-harness.ts';
import { loadProfile, saveProfile } from '../electron/enrollment/profile.ts';

const run = promisify(execFile);
async function baton(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(PROJECT_ROOT, 'bin', 'baton.js'), ...args], { cwd: PROJECT_ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

let world: EnrollmentWorld;
beforeAll(async () => {
  world = await startEnrollmentWorld();
});
afterAll(async () => {
  await world?.close();
});

describe('baton invite', () => {
  it('prints one line that another device joins with', async () => {
    const laptop = await firstDevice(world);
    const { code, stdout } = await baton(['invite', '--profile', laptop.dir, '--ttl', '5']);
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const token = decodeInvite(lines[0]!);
    expect(token.ok && token.value).toMatchObject({
      accountId: laptop.info.accountId,
      inviterDeviceId: laptop.identity.deviceId,
      backendUrl: world.backendUrl,
      backendUrls: [world.backendUrl],
    });
    expect(token.ok && token.value.expiresAt - Date.now()).toBeLessThanOrEqual(5 * 60_000);
    // The command's invite secret went to the profile's store, so the laptop can approve the join.
    const reloaded = loadProfile(laptop.dir);
    if (!reloaded.ok) throw new Error(reloaded.message);
    const joined = must(await joinWhileApproving(world, reloaded.value, lines[0]!, 'desktop'));
    expect(joined.info.accountId).toBe(laptop.info.accountId);
  });

  it('warns on stderr, beside the line it prints, that an invite whose addresses are all loopback works only on this machine', async () => {
    const laptop = await firstDevice(world);
    const { code, stdout, stderr } = await baton(['invite', '--profile', laptop.dir]);
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain(
      `baton invite: warning: this invite works only for a device on this machine: its backend addresses (${world.backendUrl})`,
    );
    expect(stderr).toContain("Give the device the backend's network address");
  });

  it('says clearly when the folder is not an enrolled profile', async () => {
    const missing = await baton(['invite', '--profile', world.dir('nothing')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no device profile/);
    const laptop = await firstDevice(world);
    laptop.info = { ...laptop.info, status: 'pending' };
    saveProfile(laptop);
    const pending = await baton(['invite', '--profile', laptop.dir]);
    expect(pending.code).toBe(1);
    expect(pending.stderr).toMatch(/not enrolled/);
  });

  it('says clearly when the backend is unreachable', async () => {
    const laptop = await firstDevice(world);
    laptop.info = { ...laptop.info, backendUrls: ['http://127.0.0.1:1'] };
    saveProfile(laptop);
    const result = await baton(['invite', '--profile', laptop.dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/unreachable/);
    expect(result.stdout).toBe('');
  });

  it('prints its usage for --help and refuses a bad --ttl', async () => {
    expect((await baton(['invite', '--help'])).stdout).toMatch(/Usage: baton invite --profile DIR/);
    const help = (await baton(['invite', '--help'])).stdout;
    expect(help).toMatch(/--ttl MINUTES .*default 15, 1–60/);
    for (const ttl of ['soon', '0', '61', '1440']) {
      const bad = await baton(['invite', '--profile', world.dir('x'), '--ttl', ttl]);
      expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/--ttl must be a whole number of minutes from 1 to 60/)]);
    }
  });
});
