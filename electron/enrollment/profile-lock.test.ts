import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOCK_FILE, lockProfile } from './profile-lock.ts';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-lock-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A process of its own that takes the profile's lock, says so, and holds it until killed. */
async function holdInAnotherProcess(): Promise<{ pid: number; kill(): Promise<void> }> {
  const script = `
    const { lockProfile } = await import(${JSON.stringify(join(import.meta.dirname, 'profile-lock.ts'))});
    const lock = lockProfile(${JSON.stringify(dir)}, 'baton device');
    if (!lock.ok) { console.log('refused'); process.exit(1); }
    lock.value.serving('http://127.0.0.1:4100/');
    console.log('holding');
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => (chunk.toString().includes('holding') ? resolve() : reject(new Error(chunk.toString()))));
    child.once('exit', (code) => reject(new Error(`the holder exited (${code})`)));
  });
  return {
    pid: child.pid!,
    kill: () =>
      new Promise((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

describe('one process per device profile', () => {
  it('refuses a second process on a profile, naming the one that runs and where its UI is', async () => {
    const holder = await holdInAnotherProcess();
    try {
      const second = lockProfile(dir, 'npm start');
      expect(second).toMatchObject({ ok: false, code: 'profile_in_use' });
      if (second.ok) return;
      expect(second.message).toBe(
        `This device profile (${dir}) is already in use by baton device (process ${holder.pid}, its UI at http://127.0.0.1:4100/): ` +
          'use that one (`baton open --profile DIR` prints its link), or stop it before starting another.',
      );
    } finally {
      await holder.kill();
    }
  });

  it('takes over the lock a killed process left behind', async () => {
    const holder = await holdInAnotherProcess();
    await holder.kill();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(true);
    const taken = lockProfile(dir, 'baton device');
    expect(taken.ok).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid, what: 'baton device', ui: null });
  });

  it('takes over a lock whose process id now belongs to a process started at another time', () => {
    // This process's own id, with a start time it does not have: the id was reused after a restart.
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: process.pid, started: '1', what: 'baton device', ui: null }));
    expect(lockProfile(dir, 'baton device').ok).toBe(true);
  });

  it('refuses a second lock in the same process, and gives the lock up on release', () => {
    const first = lockProfile(dir, 'baton device');
    if (!first.ok) throw new Error(first.message);
    expect(lockProfile(dir, 'the desktop app')).toMatchObject({ ok: false, code: 'profile_in_use' });
    first.value.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    expect(lockProfile(dir, 'the desktop app').ok).toBe(true);
  });

  it('keeps the lock readable by its owner only, and names the UI once it is served', () => {
    const lock = lockProfile(dir, 'baton device');
    if (!lock.ok) throw new Error(lock.message);
    lock.value.serving('http://127.0.0.1:4200/');
    expect(statSync(join(dir, LOCK_FILE)).mode & 0o777).toBe(0o600);
    const refused = lockProfile(dir, 'npm start');
    expect(!refused.ok && refused.message).toContain('its UI at http://127.0.0.1:4200/');
  });

  it("leaves a lock another process took after this one's was taken over", () => {
    const first = lockProfile(dir, 'baton device');
    if (!first.ok) throw new Error(first.message);
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: 1, started: null, what: 'the desktop app', ui: null }));
    first.value.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(true);
  });
});
