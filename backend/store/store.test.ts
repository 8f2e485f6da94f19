/**
 * The store's compare-and-set transactions, checkpoint retention, migrations and idempotency records:
 * one suite, run against the SQLite store on a real file and the PostgreSQL store on a real database.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Device } from '../../shared/api/devices.ts';
import { STORE_KINDS, testStorage, type StoreKindName, type TestStorage } from '../../dev-env/store-kinds.ts';
import { openSqliteStore } from './sqlite/sqlite-store.ts';
import { openPostgresStore } from './postgres/postgres-store.ts';
import { LATEST_POSTGRES_VERSION } from './postgres/migrate.ts';
import { LATEST_SQLITE_VERSION } from './sqlite/migrate.ts';
import type { IdempotencyWrite, Store } from './store.ts';

let storage: TestStorage;
let store: Store;
const device = (id: string, status: Device['status'] = 'enrolled'): Device => ({
  id,
  accountId: 'account_0000000001',
  name: id,
  status,
  signingPublicKey: 'k',
  agreementPublicKey: 'a',
  enrolledAt: 1,
  revokedAt: null,
  lastSeenAt: null,
  sealedCapabilities: null,
  keyVersions: [1],
});
const SRC = 'device_source_0001';
const TGT = 'device_target_0001';
const SESSION = 'session_000000001';
const ACCOUNT = 'account_0000000001';
const at = 1000;

/** Opens the store on the test's folder or database. */
async function open(): Promise<Store> {
  if ('dataDir' in storage.options) return openSqliteStore(storage.options.dataDir, () => at);
  const opened = await openPostgresStore(storage.options.database, { clock: () => at });
  if (!opened.ok) throw new Error(opened.message);
  return opened.value;
}

describe.each(STORE_KINDS)('the %s store', (kind: StoreKindName) => {
  beforeEach(async () => {
    storage = await testStorage(kind, 'baton-store');
    store = await open();
    await store.createAccount({ accountId: 'account_0000000001', device: device(SRC), wrapped: 'w', at });
    await store.createSession({
      id: SESSION,
      accountId: 'account_0000000001',
      ownerDeviceId: SRC,
      generation: 1,
      sealedMeta: 'm',
      createdAt: at,
      updatedAt: at,
    });
  });

  afterEach(async () => {
    await store.close();
    storage.cleanup();
  });

  const create = (id: string, generation = 1) =>
    store.createHandoff({
      id,
      accountId: 'account_0000000001',
      sessionId: SESSION,
      sourceDeviceId: SRC,
      targetDeviceId: TGT,
      initiatorDeviceId: SRC,
      sealedCommits: null,
      generation,
      keyVersion: 1,
      at,
    });

  const move = (
    id: string,
    from: Parameters<Store['transitionHandoff']>[0]['from'],
    to: typeof from,
    generation: number,
    idem?: IdempotencyWrite<never>,
  ) => store.transitionHandoff({ accountId: 'account_0000000001', handoffId: id, from, to, generation, deviceId: TGT, at }, idem);

  it('moves a handoff only from the expected state at the current generation', async () => {
    expect((await create('handoff_000000001')).ok).toBe(true);
    const wrongState = await move('handoff_000000001', 'target-prepared', 'source-quiescing', 1);
    expect(!wrongState.ok && wrongState.code).toBe('state_mismatch');
    const stale = await move('handoff_000000001', 'requested', 'target-prepared', 7);
    expect(!stale.ok && stale.code).toBe('stale_generation');
    expect((await move('handoff_000000001', 'requested', 'target-prepared', 1)).ok).toBe(true);
    expect((await store.getHandoff(ACCOUNT, 'handoff_000000001'))?.history.map((h) => h.state)).toEqual(['requested', 'target-prepared']);
  });

  it('increments the generation and sets the owner in the same transaction as ownership-transferred', async () => {
    await create('handoff_000000002');
    for (const [from, to] of [
      ['requested', 'target-prepared'],
      ['target-prepared', 'source-quiescing'],
      ['source-quiescing', 'source-relinquished-and-checkpointed'],
    ] as const) {
      expect((await move('handoff_000000002', from, to, 1)).ok).toBe(true);
    }
    const moved = await move('handoff_000000002', 'source-relinquished-and-checkpointed', 'ownership-transferred', 1);
    expect(moved.ok && [moved.value.session.generation, moved.value.session.ownerDeviceId]).toEqual([2, TGT]);
    const again = await move('handoff_000000002', 'source-relinquished-and-checkpointed', 'ownership-transferred', 1);
    expect(!again.ok && again.code).toBe('state_mismatch');
    expect((await store.getSession(ACCOUNT, SESSION))?.generation).toBe(2);
  });

  it('keeps one active handoff per session, even against a direct insert', async () => {
    expect((await create('handoff_000000003')).ok).toBe(true);
    const second = await create('handoff_000000004');
    expect(!second.ok && [second.code, second.details?.handoffId]).toEqual(['handoff_in_progress', 'handoff_000000003']);
    await store.close();
    const direct = storage.rows(
      `INSERT INTO handoffs (id, account_id, session_id, source_device_id, target_device_id, state, generation, created_at, updated_at)
      VALUES ('x_handoff_0000001', 'account_0000000001', ?, ?, ?, 'requested', 1, 0, 0)`,
      [SESSION, SRC, TGT],
    );
    await expect(direct).rejects.toThrow(/UNIQUE|unique/);
    store = await open();
  });

  it('records the idempotent answer with the change, and a refusal with nothing else', async () => {
    await create('handoff_000000005');
    const idem = (key: string): IdempotencyWrite<never> => ({
      deviceId: TGT,
      key,
      requestDigest: 'd',
      recorded: false,
      encode: (r) => ({ status: r.ok ? 200 : 409, body: r.ok ? 'moved' : r.code }),
    });
    const ok = idem('key_ok_000000001');
    expect((await move('handoff_000000005', 'requested', 'target-prepared', 1, ok)).ok).toBe(true);
    expect(ok.recorded).toBe(true);
    expect(await store.findIdempotent(TGT, 'key_ok_000000001')).toMatchObject({ status: 200, body: 'moved' });
    const refused = idem('key_no_000000001');
    expect((await move('handoff_000000005', 'requested', 'target-prepared', 1, refused)).ok).toBe(false);
    expect(await store.findIdempotent(TGT, 'key_no_000000001')).toMatchObject({ status: 409, body: 'state_mismatch' });
    expect((await store.getHandoff(ACCOUNT, 'handoff_000000005'))?.history).toHaveLength(2);
  });

  it('fences event appends by owner and generation, numbering accepted ones 1, 2, 3', async () => {
    const append = (deviceId: string, generation: number) =>
      store.appendEvent({ accountId: ACCOUNT, sessionId: SESSION, deviceId, generation, sealedBody: 'b', at });
    expect((await append(SRC, 1)).ok).toBe(true);
    expect(await append(SRC, 2)).toMatchObject({ ok: false, code: 'stale_generation' });
    expect(await append(TGT, 1)).toMatchObject({ ok: false, code: 'not_owner' });
    expect((await append(SRC, 1)).ok).toBe(true);
    expect((await store.listEvents(ACCOUNT, SESSION, 0, 10)).map((e) => e.seq)).toEqual([1, 2]);
  });

  it("fences answers by generation only: the owner's or another device's, numbered 1, 2 apart from the events", async () => {
    const answer = (deviceId: string, generation: number) =>
      store.appendAnswer({ accountId: ACCOUNT, sessionId: SESSION, deviceId, generation, sealedBody: `a-${deviceId}`, at });
    expect(
      (await store.appendEvent({ accountId: ACCOUNT, sessionId: SESSION, deviceId: SRC, generation: 1, sealedBody: 'e', at })).ok,
    ).toBe(true);
    expect(await answer(TGT, 1)).toMatchObject({ ok: true, value: { seq: 1, deviceId: TGT, generation: 1 } });
    expect(await answer(SRC, 1)).toMatchObject({ ok: true, value: { seq: 2 } });
    expect(await answer(TGT, 2)).toMatchObject({ ok: false, code: 'stale_generation' });
    expect(
      await store.appendAnswer({ accountId: 'account_0000000002', sessionId: SESSION, deviceId: TGT, generation: 1, sealedBody: 'x', at }),
    ).toMatchObject({
      ok: false,
      code: 'not_found',
    });
    expect((await store.listAnswers(ACCOUNT, SESSION, 1, 10)).map((a) => [a.seq, a.sealedBody])).toEqual([[2, `a-${SRC}`]]);
    expect((await store.listEvents(ACCOUNT, SESSION, 0, 10)).map((e) => e.seq)).toEqual([1]);
  });

  it('applies migrations once and reopens durable data (SQLite: in WAL with synchronous FULL)', async () => {
    await store.close();
    store = await open();
    expect((await store.getSession(ACCOUNT, SESSION))?.ownerDeviceId).toBe(SRC);
    const versions = (await storage.rows('SELECT version FROM schema_migrations ORDER BY version')).map((r) => r.version);
    const latest = kind === 'sqlite' ? LATEST_SQLITE_VERSION : LATEST_POSTGRES_VERSION;
    expect(versions).toEqual(Array.from({ length: latest }, (_, i) => i + 1));
    if ('dataDir' in storage.options) {
      const raw = new Database(join(storage.options.dataDir, 'baton.sqlite'), { readonly: true });
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      raw.close();
    }
  });

  it('keeps of a cancel only its code in clear and the sealed body, and the checkpoint key version', async () => {
    await create('handoff_00000000001');
    const cancelled = await store.transitionHandoff({
      accountId: 'account_0000000001',
      handoffId: 'handoff_00000000001',
      from: 'requested',
      to: 'cancelled',
      generation: 1,
      deviceId: SRC,
      at,
      reason: { code: 'target_cannot_open_workspace', sealed: 'c2VhbGVk' },
    });
    expect(cancelled.ok && [cancelled.value.handoff.cancelReason, cancelled.value.handoff.keyVersion]).toEqual([
      { code: 'target_cannot_open_workspace', sealed: 'c2VhbGVk' },
      1,
    ]);
    const columns = (
      kind === 'sqlite'
        ? await storage.rows('SELECT name FROM pragma_table_info(?)', ['handoffs'])
        : await storage.rows("SELECT column_name AS name FROM information_schema.columns WHERE table_name = 'handoffs'")
    ).map((c) => c.name);
    expect(columns).toEqual(expect.arrayContaining(['cancel_code', 'sealed_reason', 'key_version']));
    expect(columns).not.toContain('cancel_message');
  });

  it('names a checkpoint only with its record, releases completed ones beyond the newest N, and collects only unheld records', async () => {
    const digest = (n: number) => String(n).repeat(64);
    const walk = async (id: string, generation: number, body: string, [source, target] = [SRC, TGT]) => {
      const steps = [
        ['requested', 'target-prepared', generation],
        ['target-prepared', 'source-quiescing', generation],
        ['source-quiescing', 'source-relinquished-and-checkpointed', generation],
        ['source-relinquished-and-checkpointed', 'ownership-transferred', generation],
        ['ownership-transferred', 'target-activating', generation + 1],
        ['target-activating', 'completed', generation + 1],
      ] as const;
      const created = await store.createHandoff({
        id,
        accountId: ACCOUNT,
        sessionId: SESSION,
        sourceDeviceId: source,
        targetDeviceId: target,
        initiatorDeviceId: source,
        sealedCommits: null,
        generation,
        keyVersion: 1,
        at,
      });
      expect(created.ok, created.ok ? '' : created.message).toBe(true);
      for (const [from, to, gen] of steps) {
        const checkpoint = to === 'source-relinquished-and-checkpointed' ? { digest: body, size: 10 } : undefined;
        const moved = await store.transitionHandoff({
          accountId: ACCOUNT,
          handoffId: id,
          from,
          to,
          generation: gen,
          deviceId: TGT,
          at,
          checkpoint,
          keepCompleted: 1,
        });
        expect(moved.ok, `${from} → ${to}: ${moved.ok ? '' : moved.message}`).toBe(true);
      }
    };
    // No record of the body: refused, and the handoff stays where it was.
    expect((await create('handoff_00000000a')).ok).toBe(true);
    for (const [from, to] of [
      ['requested', 'target-prepared'],
      ['target-prepared', 'source-quiescing'],
    ] as const)
      await move('handoff_00000000a', from, to, 1);
    const unrecorded = await store.transitionHandoff({
      accountId: ACCOUNT,
      handoffId: 'handoff_00000000a',
      from: 'source-quiescing',
      to: 'source-relinquished-and-checkpointed',
      generation: 1,
      deviceId: SRC,
      at,
      checkpoint: { digest: digest(1), size: 10 },
    });
    expect(!unrecorded.ok && [unrecorded.code, unrecorded.details?.field]).toEqual(['validation_failed', 'checkpoint']);
    expect((await store.getHandoff(ACCOUNT, 'handoff_00000000a'))?.state).toBe('source-quiescing');
    await store.transitionHandoff({
      accountId: ACCOUNT,
      handoffId: 'handoff_00000000a',
      from: 'source-quiescing',
      to: 'cancelled',
      generation: 1,
      deviceId: SRC,
      at,
      reason: { code: 'user_cancelled', sealed: null },
    });
    for (const n of [1, 2, 3]) {
      // PostgreSQL records only a body it holds (the blob store's commit puts it there first).
      if (kind === 'postgres')
        await storage.rows(`INSERT INTO blob_bodies (digest, upload_id, size, chunks, created_at, put_at) VALUES (?, ?, 10, 1, ?, ?)`, [
          digest(n),
          `u${n}`,
          at,
          at,
        ]);
      await store.putBlob({ accountId: ACCOUNT, digest: digest(n), size: 10, createdAt: at });
    }
    await walk('handoff_00000000b', 1, digest(1));
    await walk('handoff_00000000c', 2, digest(2), [TGT, SRC]);
    expect([
      (await store.getHandoff(ACCOUNT, 'handoff_00000000b'))?.checkpointKept,
      (await store.getHandoff(ACCOUNT, 'handoff_00000000c'))?.checkpointKept,
    ]).toEqual([false, true]);
    // The released record goes at once; the unnamed one only once its grace (here: created before `unnamedBefore`) is over.
    expect(await store.collectBlobRecords({ unnamedBefore: at, limit: 10, at })).toBe(1);
    expect(await store.unrecordedDigests([digest(1), digest(2), digest(3)])).toEqual([digest(1)]);
    expect(await store.collectBlobRecords({ unnamedBefore: at + 1, limit: 10, at })).toBe(1);
    expect(await store.collectBlobRecords({ unnamedBefore: at + 1, limit: 10, at })).toBe(0);
    expect((await store.dueBodies(at, 10)).sort()).toEqual([digest(1), digest(3)]);
    await store.settleBodies([digest(1), digest(3)], [digest(1)], at + 5);
    expect(await store.dueBodies(at, 10)).toEqual([]);
    expect(await store.dueBodies(at + 5, 10)).toEqual([digest(3)]);
  });

  it('spends a nonce once', async () => {
    expect(await store.useNonce(SRC, 'nonce_00000000001', at + 10)).toBe(true);
    expect(await store.useNonce(SRC, 'nonce_00000000001', at + 10)).toBe(false);
    await store.prune(at + 20);
    expect(await store.useNonce(SRC, 'nonce_00000000001', at + 30)).toBe(true);
  });

  it('spends a nonce once when it is asked for many times at once, among others', async () => {
    const asked = ['nonce_00000000002', 'nonce_00000000003', 'nonce_00000000002', 'nonce_00000000002', 'nonce_00000000001'];
    await store.useNonce(SRC, 'nonce_00000000001', at + 10);
    const spent = await Promise.all(asked.map((nonce) => store.useNonce(SRC, nonce, at + 10)));
    expect(spent).toEqual([true, true, false, false, false]);
    expect(await store.useNonce(TGT, 'nonce_00000000002', at + 10)).toBe(true);
  });
});
