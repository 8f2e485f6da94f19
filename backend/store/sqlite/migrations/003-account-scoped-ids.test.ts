/** Migration 3 (ids scoped to the account) keeps every row of a version-2 database, on a real SQLite file. */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate } from '../migrate.ts';
import { applyDurablePragmas, openSqliteStore } from '../sqlite-store.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-migrate-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const A = 'account_000000000A';

/** A version-2 database holding one of everything, two join requests pending on one invite among them. */
function versionTwoDatabase(): void {
  const db = new Database(join(dir, 'baton.sqlite'));
  applyDurablePragmas(db);
  expect(migrate(db, 1, 2)).toBe(2);
  db.exec(`
    INSERT INTO accounts VALUES ('${A}', 1, 1);
    INSERT INTO devices (id, account_id, name, status, signing_public_key, agreement_public_key, key_versions)
      VALUES ('device_00000000001', '${A}', 'laptop', 'enrolled', 'k', 'a', '[1]'),
             ('device_00000000002', '${A}', 'desk', 'enrolled', 'k', 'a', '[1]'),
             ('device_00000000003', '${A}', 'new 1', 'pending', 'k', 'a', '[]'),
             ('device_00000000004', '${A}', 'new 2', 'pending', 'k', 'a', '[]');
    INSERT INTO sessions VALUES ('session_0000000001', '${A}', 'device_00000000002', 2, 'meta', 1, 10, 20);
    INSERT INTO session_events VALUES ('session_0000000001', 1, 1, 'device_00000000001', 'body', 11);
    INSERT INTO handoffs (id, account_id, session_id, source_device_id, target_device_id, state, generation, created_at, updated_at)
      VALUES ('handoff_0000000001', '${A}', 'session_0000000001', 'device_00000000001', 'device_00000000002', 'completed', 1, 12, 19);
    INSERT INTO handoff_history VALUES ('handoff_0000000001', 1, 'requested', 12, 'device_00000000001'),
                                       ('handoff_0000000001', 2, 'completed', 19, 'device_00000000002');
    INSERT INTO invites VALUES ('invite_00000000001', '${A}', 'device_00000000001', 1000000, NULL, 30);
    INSERT INTO join_requests VALUES ('join_0000000000001', '${A}', 'invite_00000000001', 'device_00000000001', 'device_00000000003', 'p', 'pending', NULL, 31, NULL),
                                     ('join_0000000000002', '${A}', 'invite_00000000001', 'device_00000000001', 'device_00000000004', 'p', 'pending', NULL, 32, NULL);
    INSERT INTO memory_items VALUES ('memory_0000000001', '${A}', 'topic', 'device_00000000001', 'sealed', 40);
  `);
  db.close();
}

describe('migration 3', () => {
  it('keeps sessions, events, handoffs with history, invites and memory, now looked up by (account, id)', async () => {
    versionTwoDatabase();
    const store = openSqliteStore(dir, () => 50);
    try {
      expect(await store.getSession(A, 'session_0000000001')).toMatchObject({ ownerDeviceId: 'device_00000000002', generation: 2 });
      expect(await store.getSession('account_000000000B', 'session_0000000001')).toBeUndefined();
      expect((await store.listEvents(A, 'session_0000000001', 0, 10)).map((e) => e.sealedBody)).toEqual(['body']);
      expect((await store.getHandoff(A, 'handoff_0000000001'))?.history.map((h) => h.state)).toEqual(['requested', 'completed']);
      expect(await store.getInvite(A, 'invite_00000000001')).toMatchObject({ expiresAt: 1000000, usedAt: null });
      expect((await store.listMemory(A, 'topic')).map((m) => m.id)).toEqual(['memory_0000000001']);
      // The session's next event continues its numbering.
      const next = await store.appendEvent({
        accountId: A,
        sessionId: 'session_0000000001',
        deviceId: 'device_00000000002',
        generation: 2,
        sealedBody: 'b2',
        at: 50,
      });
      expect(next.ok && next.value.seq).toBe(2);
    } finally {
      store.close();
    }
  });

  it('leaves one pending join request per invite, turning the later ones down with the reason', async () => {
    versionTwoDatabase();
    const store = openSqliteStore(dir, () => 50);
    try {
      const joins = await store.listJoinRequests(A);
      expect(joins.map((j) => [j.id, j.status, j.reason])).toEqual([
        ['join_0000000000001', 'pending', null],
        ['join_0000000000002', 'rejected', 'another join request was already waiting on this invite'],
      ]);
      expect((await store.listDevices(A)).map((d) => d.name)).toEqual(['laptop', 'desk', 'new 1']);
      const raw = new Database(join(dir, 'baton.sqlite'), { readonly: true });
      expect(raw.pragma('foreign_key_check')).toEqual([]);
      raw.close();
    } finally {
      store.close();
    }
  });
});
