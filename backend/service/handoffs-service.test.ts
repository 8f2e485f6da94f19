/** Every (from, to, role) triple over real HTTP: the backend accepts exactly what the state table allows. */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INLINE_CHECKPOINT_MAX_BYTES, SEALED_COMMITS_MAX } from '../../shared/api/handoffs.ts';
import { FORWARD_STATES, HANDOFF_STATES, mayTransition, type HandoffState } from '../../shared/handoff-states.ts';
import { startBackend, type RunningBackend } from '../backend.ts';
import { createTestAccount, joinTestDevice, newId, newTestDevice, opaque, type TestDevice } from '../../dev-env/sync-fixtures.ts';
import { STORE_KINDS, testStorage, type TestStorage } from '../../dev-env/store-kinds.ts';

let storage: TestStorage;
let backend: RunningBackend;
let roles: Record<'source' | 'target' | 'user', TestDevice>;
let checkpoint: { digest: string; size: number };

describe.each(STORE_KINDS)('on the %s store', (kind) => {
  beforeAll(async () => {
    storage = await testStorage(kind, 'baton-table');
    backend = await startBackend(storage.options);
    roles = {
      source: newTestDevice(backend.url, 'source'),
      target: newTestDevice(backend.url, 'target'),
      user: newTestDevice(backend.url, 'user'),
    };
    await createTestAccount(roles.source);
    await joinTestDevice(roles.source, roles.target);
    await joinTestDevice(roles.source, roles.user);
    const body = Buffer.from(opaque(64));
    checkpoint = { digest: createHash('sha256').update(body).digest('hex'), size: body.length };
    expect((await roles.source.client.putBlob(checkpoint.digest, body)).ok).toBe(true);
  });

  afterAll(async () => {
    await backend.close();
    storage.cleanup();
  });

  const generationAt = (state: HandoffState, history: HandoffState[]) =>
    history.includes('ownership-transferred') || state === 'ownership-transferred' ? 2 : 1;

  /** The fields a transition into `to` needs. */
  function fieldsFor(to: HandoffState): Record<string, unknown> {
    if (to === 'source-relinquished-and-checkpointed') return { checkpoint };
    if (to === 'cancelled') return { reason: { code: 'user_cancelled', sealed: null } };
    if (to === 'completed') return { resumePath: 'checkpoint-import' };
    return {};
  }

  /** A new session with a handoff walked to `state` (through the forward path, then cancel if asked). */
  async function handoffAt(state: HandoffState): Promise<{ handoffId: string; sessionId: string; generation: number }> {
    const sessionId = newId();
    expect((await roles.source.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } })).ok).toBe(true);
    const handoffId = newId();
    expect(
      (await roles.source.client.call('createHandoff', { body: { handoffId, sessionId, targetDeviceId: roles.target.id, generation: 1 } }))
        .ok,
    ).toBe(true);
    const path = state === 'cancelled' ? ['requested', 'cancelled'] : FORWARD_STATES.slice(0, FORWARD_STATES.indexOf(state) + 1);
    const history: HandoffState[] = ['requested'];
    for (const to of path.slice(1) as HandoffState[]) {
      const from = history.at(-1)!;
      const by = (['source', 'target', 'user'] as const).find((r) => mayTransition(from, to, r))!;
      const moved = await roles[by].client.call('transitionHandoff', {
        params: { handoffId },
        body: { from, to, generation: generationAt(from, history), ...fieldsFor(to) },
      });
      expect(moved.ok, `${from} → ${to}`).toBe(true);
      history.push(to);
    }
    return { handoffId, sessionId, generation: generationAt(state, history) };
  }

  it('accepts every transition the table allows for the caller role and refuses every other, changing nothing', async () => {
    const accepted: string[] = [];
    for (const from of HANDOFF_STATES) {
      const shared = await handoffAt(from);
      for (const to of HANDOFF_STATES) {
        for (const role of ['source', 'target', 'user'] as const) {
          const allowed = mayTransition(from, to, role);
          const { handoffId, generation } = allowed ? await handoffAt(from) : shared;
          const result = await roles[role].client.call('transitionHandoff', {
            params: { handoffId },
            body: { from, to, generation, ...fieldsFor(to) },
          });
          expect(result.ok, `${from} → ${to} by ${role}`).toBe(allowed);
          if (result.ok) accepted.push(`${from}>${to}>${role}`);
          else expect(['illegal_transition', 'not_cancellable']).toContain(result.code);
        }
      }
      const unchanged = await roles.source.client.call('getHandoff', { params: { handoffId: shared.handoffId } });
      expect(unchanged.ok && unchanged.value.handoff.state).toBe(from);
    }
    expect(accepted).toHaveLength(6 + 4 * 3 + 2);
  });

  it('enters `to` and `continueTo` in one commit: both in the history at one time, the fields on the last', async () => {
    const claimed = await handoffAt('source-relinquished-and-checkpointed');
    const claim = await roles.target.client.call('transitionHandoff', {
      params: { handoffId: claimed.handoffId },
      body: { from: 'source-relinquished-and-checkpointed', to: 'ownership-transferred', generation: 1, continueTo: 'target-activating' },
    });
    expect(claim.ok && claim.value.handoff.state).toBe('target-activating');
    const history = claim.ok ? claim.value.handoff.history.slice(-2) : [];
    expect(history.map((h) => [h.state, h.deviceId])).toEqual([
      ['ownership-transferred', roles.target.id],
      ['target-activating', roles.target.id],
    ]);
    expect(history[0]?.at).toBe(history[1]?.at);
    // The transfer passed through took effect: the target owns the session at the next generation.
    const session = await roles.source.client.call('getSession', { params: { sessionId: claimed.sessionId } });
    expect(session.ok && [session.value.session.ownerDeviceId, session.value.session.generation]).toEqual([roles.target.id, 2]);

    // A source may quiesce and relinquish in one commit: the checkpoint is the last state's field.
    const quiesced = await handoffAt('target-prepared');
    const relinquished = await roles.source.client.call('transitionHandoff', {
      params: { handoffId: quiesced.handoffId },
      body: {
        from: 'target-prepared',
        to: 'source-quiescing',
        generation: 1,
        continueTo: 'source-relinquished-and-checkpointed',
        checkpoint,
      },
    });
    expect(relinquished.ok && [relinquished.value.handoff.state, relinquished.value.handoff.checkpoint]).toEqual([
      'source-relinquished-and-checkpointed',
      checkpoint,
    ]);
  });

  it('refuses a continuation the table does not allow, or fields of the state passed through, changing nothing', async () => {
    const refusals: [HandoffState, 'source' | 'target', Record<string, unknown>, string][] = [
      // Entered with data: no transition passes through it.
      [
        'source-quiescing',
        'source',
        { to: 'source-relinquished-and-checkpointed', continueTo: 'cancelled', checkpoint },
        'illegal_transition',
      ],
      // The target may claim, but not complete, in one commit.
      ['source-relinquished-and-checkpointed', 'target', { to: 'ownership-transferred', continueTo: 'completed' }, 'illegal_transition'],
      // The second step is the source's, not the target's.
      ['requested', 'target', { to: 'target-prepared', continueTo: 'source-quiescing' }, 'illegal_transition'],
      // A reason belongs to cancelled, not to target-activating.
      [
        'source-relinquished-and-checkpointed',
        'target',
        { to: 'ownership-transferred', continueTo: 'target-activating', reason: { code: 'user_cancelled', sealed: null } },
        'validation_failed',
      ],
      // Fenced at the generation `from` is at.
      [
        'source-relinquished-and-checkpointed',
        'target',
        { to: 'ownership-transferred', continueTo: 'target-activating', generation: 2 },
        'stale_generation',
      ],
    ];
    for (const [from, role, body, code] of refusals) {
      const at = await handoffAt(from);
      const result = await roles[role].client.call('transitionHandoff', {
        params: { handoffId: at.handoffId },
        body: { from, generation: at.generation, ...body } as never,
      });
      expect(result.ok ? 'accepted' : result.code, `${from} → ${String(body.to)} → ${String(body.continueTo)}`).toBe(code);
      const unchanged = await roles.source.client.call('getHandoff', { params: { handoffId: at.handoffId } });
      expect(unchanged.ok && [unchanged.value.handoff.state, unchanged.value.handoff.history.length]).toEqual([
        from,
        FORWARD_STATES.indexOf(from as (typeof FORWARD_STATES)[number]) + 1,
      ]);
      const session = await roles.source.client.call('getSession', { params: { sessionId: at.sessionId } });
      expect(session.ok && session.value.session.generation).toBe(1);
    }
  });

  it('stores a checkpoint that travels in its transition, and refuses one that is not the body its reference names', async () => {
    const body = randomBytes(40_000);
    const inline = { digest: createHash('sha256').update(body).digest('hex'), size: body.length };
    const enter = (handoffId: string, fields: Record<string, unknown>) =>
      roles.source.client.call('transitionHandoff', {
        params: { handoffId },
        body: {
          from: 'target-prepared',
          to: 'source-quiescing',
          continueTo: 'source-relinquished-and-checkpointed',
          generation: 1,
          ...fields,
        },
      });
    // Not the body named: another digest, another size, a reference missing, a state that carries no checkpoint.
    const wrong = await handoffAt('target-prepared');
    const other = Buffer.from(body);
    other[0] = other[0]! ^ 0xff; // one byte that differs, whatever the random body holds
    for (const fields of [
      { checkpoint: inline, checkpointBody: other.toString('base64url') },
      { checkpoint: { ...inline, size: inline.size + 1 }, checkpointBody: body.toString('base64url') },
      { checkpointBody: body.toString('base64url') },
    ]) {
      const refused = await enter(wrong.handoffId, fields);
      expect(refused.ok ? 'accepted' : refused.code).toBe('validation_failed');
    }
    const early = await roles.source.client.call('transitionHandoff', {
      params: { handoffId: (await handoffAt('requested')).handoffId },
      body: { from: 'requested', to: 'cancelled', generation: 1, reason: { code: 'user_cancelled', sealed: null }, checkpointBody: 'AA' },
    });
    expect(early.ok ? 'accepted' : early.code).toBe('validation_failed');
    expect((await roles.target.client.getBlob(inline.digest)).ok).toBe(false);
    const unchanged = await roles.source.client.call('getHandoff', { params: { handoffId: wrong.handoffId } });
    expect(unchanged.ok && unchanged.value.handoff.state).toBe('target-prepared');

    // The body named: stored under its digest before the commit, which names it; the target downloads it as any blob.
    const right = await handoffAt('target-prepared');
    const moved = await enter(right.handoffId, { checkpoint: inline, checkpointBody: body.toString('base64url') });
    expect(moved.ok && [moved.value.handoff.state, moved.value.handoff.checkpoint]).toEqual([
      'source-relinquished-and-checkpointed',
      inline,
    ]);
    const downloaded = await roles.target.client.getBlob(inline.digest);
    expect(downloaded.ok && Buffer.from(downloaded.value).equals(body)).toBe(true);
    // Over the limit: refused by its schema before anything is stored.
    const big = randomBytes(INLINE_CHECKPOINT_MAX_BYTES + 1);
    const bigRef = { digest: createHash('sha256').update(big).digest('hex'), size: big.length };
    const tooBig = await enter((await handoffAt('target-prepared')).handoffId, {
      checkpoint: bigRef,
      checkpointBody: big.toString('base64url'),
    });
    expect(tooBig.ok ? 'accepted' : tooBig.code).toBe('validation_failed');
    expect((await roles.target.client.getBlob(bigRef.digest)).ok).toBe(false);
  });

  /** A new session of the source's, and a handoff of it to the target created with `fields`. */
  const createWith = async (fields: { initiatorDeviceId?: string; sealedCommits?: string }) => {
    const sessionId = newId();
    expect((await roles.source.client.call('createSession', { body: { sessionId, sealedMeta: opaque() } })).ok).toBe(true);
    const body = { handoffId: newId(), sessionId, targetDeviceId: roles.target.id, generation: 1, ...fields };
    return roles.source.client.call('createHandoff', { body });
  };

  it('keeps the sealed commits a handoff is created with, as they came, and refuses them past their bound', async () => {
    const create = (sealedCommits?: string) => createWith({ sealedCommits });
    const sealed = opaque();
    const created = await create(sealed);
    expect(created.ok && created.value.handoff.sealedCommits).toBe(sealed);
    const read = created.ok && (await roles.target.client.call('getHandoff', { params: { handoffId: created.value.handoff.id } }));
    expect(read && read.ok && read.value.handoff.sealedCommits).toBe(sealed);
    const without = await create();
    expect(without.ok && without.value.handoff.sealedCommits).toBeNull();
    const tooLong = await create('A'.repeat(SEALED_COMMITS_MAX + 4));
    expect(tooLong.ok ? 'accepted' : tooLong.code).toBe('validation_failed');
  });

  it('records who asked for the move: the source by default, the target when it asked, never a third device', async () => {
    const create = (initiatorDeviceId?: string) => createWith({ initiatorDeviceId });
    const byOwner = await create();
    expect(byOwner.ok && byOwner.value.handoff.initiatorDeviceId).toBe(roles.source.id);
    const byTarget = await create(roles.target.id);
    expect(byTarget.ok && byTarget.value.handoff.initiatorDeviceId).toBe(roles.target.id);
    const read = byTarget.ok && (await roles.target.client.call('getHandoff', { params: { handoffId: byTarget.value.handoff.id } }));
    expect(read && read.ok && read.value.handoff.initiatorDeviceId).toBe(roles.target.id);
    const byOther = await create(roles.user.id);
    expect(byOther.ok ? 'accepted' : byOther.code).toBe('validation_failed');
  });
});
