/** The SQLite store's compare-and-set transactions, migrations and idempotency records. */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Device } from '../../shared/api/devices.ts';
import { openSqliteStore } from './sqlite-store.ts';
import type { IdempotencyWrite, Store } from './store.ts';

let dir: string;
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

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'baton-store-'));
  store = openSqliteStore(dir, () => at);
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

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const create = (id: string, generation = 1) =>
  store.createHandoff({
    id,
    accountId: 'account_0000000001',
    sessionId: SESSION,
    sourceDeviceId: SRC,
    targetDeviceId: TGT,
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

describe('the SQLite store', () => {
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
    store.close();
    const raw = new Database(join(dir, 'baton.sqlite'));
    expect(() =>
      raw
        .prepare(
          `INSERT INTO handoffs (id, account_id, session_id, source_device_id, target_device_id, state, generation, created_at, updated_at)
      VALUES ('x_handoff_0000001', 'account_0000000001', ?, ?, ?, 'requested', 1, 0, 0)`,
        )
        .run(SESSION, SRC, TGT),
    ).toThrow(/UNIQUE/);
    raw.close();
    store = openSqliteStore(dir, () => at);
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

  it('applies migrations once and reopens durable data in WAL with synchronous FULL', async () => {
    store.close();
    store = openSqliteStore(dir, () => at);
    expect((await store.getSession(ACCOUNT, SESSION))?.ownerDeviceId).toBe(SRC);
    const raw = new Database(join(dir, 'baton.sqlite'), { readonly: true });
    expect(raw.prepare('SELECT version FROM schema_migrations').all()).toEqual([
      { version: 1 },
      { version: 2 },
      { version: 3 },
      { version: 4 },
    ]);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
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
    const raw = new Database(join(dir, 'baton.sqlite'), { readonly: true });
    const columns = (raw.prepare('PRAGMA table_info(handoffs)').all() as { name: string }[]).map((c) => c.name);
    raw.close();
    expect(columns).toEqual(expect.arrayContaining(['cancel_code', 'sealed_reason', 'key_version']));
    expect(columns).not.toContain('cancel_message');
  });

  it('spends a nonce once', async () => {
    expect(await store.useNonce(SRC, 'nonce_00000000001', at + 10)).toBe(true);
    expect(await store.useNonce(SRC, 'nonce_00000000001', at + 10)).toBe(false);
    await store.prune(at + 20);
    expect(await store.useNonce(SRC, 'nonce_00000000001', at + 30)).toBe(true);
  });
});
