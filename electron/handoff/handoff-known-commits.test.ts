/**
 * Integration: the `requested` record carries the commits the source is at, sealed to the handoff,
 * and the target fetches just those — nothing where it has them. A session moved to the desktop and
 * back moves back with its git host unreachable (both devices have its commit), where fetching the
 * branch would have refused the move; a new commit pushed on the source is fetched by its id and the
 * desktop's remote-tracking ref moves to it. The backend keeps the commits only sealed. Real backend
 * and device processes over real git; one world for the file, the tests in order.
 */
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../backend/store/data-folder.ts';
import { twoDevicesForSuite } from '../../dev-env/two-devices-suite.ts';
import { deviceId, startDemoSession, waitEligible, waitSession, type DeviceHandle } from '../../dev-env/two-devices.ts';

/** Real processes on a busy 2-core machine: give each test room beyond the default. */
const TEST_TIMEOUT_MS = 120_000;

const world = twoDevicesForSuite({ env: { BATON_PREPARE_TIMEOUT_MS: '20000', BATON_DEMO_TURN_MS: '100' } });

const shared = { sessionId: '' };

/** Moves the session from `from` to `to`; resolves with `to`'s view once it runs it after that very move. */
async function move(from: DeviceHandle, to: DeviceHandle) {
  await waitEligible(from, shared.sessionId, to.name);
  const started = await from.client.call('startMove', { sessionId: shared.sessionId, targetDeviceId: await deviceId(to) });
  if (!started.ok) throw new Error(`the move to ${to.name} did not start: ${JSON.stringify(started)}`);
  const { handoffId } = started.value;
  const view = await waitSession(
    to,
    shared.sessionId,
    `${to.name} to run the session`,
    (d) => d.isOwner && d.lastHandoff?.id === handoffId && d.inputBlock === null,
  );
  return { handoffId, view };
}

/** The sealed commits the backend keeps for `handoffId`, read from its SQLite file. */
function storedCommits(backendData: string, handoffId: string): string | null {
  const db = new Database(join(backendData, DATABASE_FILE), { readonly: true });
  try {
    return (db.prepare('SELECT sealed_commits FROM handoffs WHERE id = ?').get(handoffId) as { sealed_commits: string | null })
      .sealed_commits;
  } finally {
    db.close();
  }
}

describe('the commits a move starts from', () => {
  it(
    'moves back with the git host unreachable when the target has the commit, and keeps the commits sealed',
    async () => {
      const w = world();
      const session = await startDemoSession(w.laptop, w.repo);
      shared.sessionId = session.id;
      const there = await move(w.laptop, w.desktop);
      const head = w.sandbox.head(w.repo);
      const sealed = storedCommits(w.backendData, there.handoffId);
      expect(sealed).not.toBeNull();
      expect(sealed).not.toContain(head);
      expect(Buffer.from(sealed!, 'base64url').toString('latin1')).not.toContain(head);

      renameSync(w.origin, `${w.origin}.away`);
      try {
        const back = await move(w.desktop, w.laptop);
        expect(back.view.isOwner).toBe(true);
        expect(w.sandbox.head(w.repo)).toBe(head);
      } finally {
        renameSync(`${w.origin}.away`, w.origin);
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'fetches a new commit by its id: the target checks it out and its remote-tracking ref moves to it',
    async () => {
      const w = world();
      const commit = w.sandbox.commitFile(w.repo, 'notes.md', 'a new commit\n');
      w.sandbox.push(w.repo);
      const desktopRepo = join(w.desktop.workspaceRoot, 'app');
      expect(w.sandbox.head(desktopRepo)).not.toBe(commit);
      await move(w.laptop, w.desktop);
      expect(w.sandbox.head(desktopRepo)).toBe(commit);
      expect(w.sandbox.git(desktopRepo, ['rev-parse', 'origin/main'])).toBe(commit);
      expect(w.sandbox.git(desktopRepo, ['status', '-sb']).split('\n')[0]).toBe('## main...origin/main');
    },
    TEST_TIMEOUT_MS,
  );
});
