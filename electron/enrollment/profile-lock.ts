/**
 * One process per device profile: a device (`baton device`, `npm start`, the desktop app) takes the
 * profile's lock before it reads anything of it, and a second process on the same profile is refused
 * with a sentence naming the one that runs (its process id, and its UI address once it serves one).
 * Two processes driving one device would both resume its sessions and both drive its agents.
 *
 * The lock is `device.lock` in the profile (0600): the holder's process id and start time, what it is,
 * and its UI address without the token. It is made whole and linked into place, so it never exists
 * half-written and only one process can make it. A lock whose process is gone — killed, or the
 * machine restarted — is stale: the next process recognises it (no such process, or one that started
 * at another time, its id reused) and takes it over.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { fail, ok, type Result } from '../../shared/errors.ts';

export const LOCK_FILE = 'device.lock';

const Holder = z.object({
  pid: z.number().int().positive(),
  /** The process's start time as the system counts it (null where it cannot be read). */
  started: z.string().nullable(),
  /** What runs the device: `baton device`, `the desktop app`. */
  what: z.string().max(100),
  /** Where its UI is served, without the token (null until it serves one, and for the desktop app). */
  ui: z.string().max(200).nullable(),
});
type Holder = z.infer<typeof Holder>;

export interface ProfileLock {
  /** Records where this process serves its UI, so a second process can name it. */
  serving(uiAddress: string): void;
  /** Gives the lock up (the process is stopping). */
  release(): void;
}

/** When process `pid` started, as /proc says (clock ticks since boot); null where there is no /proc. */
function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether the process that wrote `holder` still runs (the same process, not a later one given its id). */
function running(holder: Holder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: it runs, as another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const started = startTime(holder.pid);
  return holder.started === null || started === null || started === holder.started;
}

function readHolder(file: string): Holder | null {
  try {
    const parsed = Holder.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Writes `holder` whole to a new file beside `file` and links it into place; false when `file` exists. */
function place(file: string, holder: Holder): boolean {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
  try {
    linkSync(temp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}

/** The sentence that refuses a second process, naming the one that runs. */
function inUse(dir: string, holder: Holder): string {
  const where = holder.ui ? `, its UI at ${holder.ui}` : '';
  const open = holder.ui ? ' (`baton open --profile DIR` prints its link)' : '';
  return (
    `This device profile (${dir}) is already in use by ${holder.what} (process ${holder.pid}${where}): ` +
    `use that one${open}, or stop it before starting another.`
  );
}

/**
 * Takes the lock of the profile in `dir` for this process (`what` says what it is), taking over a
 * stale one; refuses as `profile_in_use` with a sentence naming the process that holds it.
 */
export function lockProfile(dir: string, what: string): Result<ProfileLock, 'profile_in_use'> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, LOCK_FILE);
  let holder: Holder = { pid: process.pid, started: startTime(process.pid), what, ui: null };
  for (let attempt = 0; ; attempt++) {
    if (place(file, holder)) break;
    const other = readHolder(file);
    if (other !== null && running(other)) return fail('profile_in_use', inUse(dir, other));
    // Stale (or unreadable, as no process writes it half): taken over once; a second loss means another process just took it.
    if (attempt > 0) return fail('profile_in_use', inUse(dir, other ?? { ...holder, pid: 0, what: 'another process' }));
    rmSync(file, { force: true });
  }
  let held = true;
  return ok({
    serving(uiAddress) {
      if (!held) return;
      holder = { ...holder, ui: uiAddress };
      const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      writeFileSync(temp, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
      // Replaced whole: a reader sees the old holder or the new one, never a part.
      renameSync(temp, file);
    },
    release() {
      if (!held) return;
      held = false;
      const current = readHolder(file);
      if (current?.pid === process.pid) rmSync(file, { force: true });
    },
  });
}
