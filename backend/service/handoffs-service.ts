/**
 * Handoffs: the state machine's rules (roles, required fields) around the store's compare-and-set.
 * The caller's role is derived from the handoff: its source, its target, or another device (user).
 */
import { fail, ok, type ApiErrorCode, type Failure } from '../../shared/errors.ts';
import type { Handoff, TransitionRequest } from '../../shared/api/handoffs.ts';
import type { Device } from '../../shared/api/devices.ts';
import type { Session } from '../../shared/api/sessions.ts';
import {
  findTransition,
  isCancellable,
  mayTransition,
  mayTransitionThrough,
  PASSABLE_STATES,
  type HandoffRole,
} from '../../shared/handoff-states.ts';
import { answer, idemWrite, type Answer, type Call, type Deps } from './context.ts';
import { isRefusal, storeInlineCheckpoint, takeBackInlineCheckpoint } from './inline-checkpoint.ts';

/** The role `device` plays in `handoff`. */
export function roleOf(handoff: Handoff, device: Device): HandoffRole {
  if (handoff.sourceDeviceId === device.id) return 'source';
  if (handoff.targetDeviceId === device.id) return 'target';
  return 'user';
}

/** Opens a handoff of a session the caller owns at its current generation, to another enrolled device. */
export async function createHandoff(deps: Deps, { caller, body, idem }: Call<'createHandoff'>): Answer<'createHandoff'> {
  const target = await deps.store.getDevice(body.targetDeviceId);
  if (!target || target.accountId !== caller.accountId) return fail('not_found', 'no such target device');
  if (target.id === caller.id) return fail('validation_failed', 'the target must be another device');
  if (target.status !== 'enrolled') return fail('forbidden', `the target device is ${target.status}`);
  const currentVersion = await deps.store.currentKeyVersion(caller.accountId);
  if (body.keyVersion !== undefined && body.keyVersion > currentVersion)
    return fail('validation_failed', 'the account has no such key version', { field: 'keyVersion' });
  // Everything new is sealed under the newest version: a device that has not fetched it yet does, and asks again.
  if (body.keyVersion !== undefined && body.keyVersion < currentVersion)
    return fail('key_version_outdated', `the account's keys were rotated: seal under version ${currentVersion}`, { currentVersion });
  // Who asked: the owner itself, or the target that asked it with Move here (the owner ran readiness either way).
  const initiator = body.initiatorDeviceId ?? caller.id;
  if (initiator !== caller.id && initiator !== target.id)
    return fail('validation_failed', 'the initiator must be the source or the target', { field: 'initiatorDeviceId' });
  const wrap = (handoff: Handoff) => ({ handoff });
  const input = {
    id: body.handoffId,
    accountId: caller.accountId,
    sessionId: body.sessionId,
    sourceDeviceId: caller.id,
    targetDeviceId: target.id,
    initiatorDeviceId: initiator,
    sealedCommits: body.sealedCommits ?? null,
    generation: body.generation,
    keyVersion: body.keyVersion ?? null,
    at: deps.clock(),
  };
  const result = await deps.store.createHandoff(input, idemWrite(idem, wrap));
  if (result.ok) deps.push.publish(caller.accountId, { type: 'handoff', handoff: result.value });
  return answer(result, wrap);
}

/** The account's handoffs, optionally of one session, only active (or only finished) ones, and one page of them (newest first). */
export async function listHandoffs(deps: Deps, { caller, query }: Call<'listHandoffs'>): Answer<'listHandoffs'> {
  const active = query.active === undefined ? undefined : query.active === 'true';
  const page = query.limit === undefined ? undefined : { limit: query.limit, before: query.before };
  return ok({ handoffs: await deps.store.listHandoffs(caller.accountId, { sessionId: query.sessionId, active, page }) });
}

/** One handoff of the account, with its history. */
export async function getHandoff(deps: Deps, { caller, params }: Call<'getHandoff'>): Answer<'getHandoff'> {
  const handoff = await deps.store.getHandoff(caller.accountId, params.handoffId!);
  return handoff ? ok({ handoff }) : fail('not_found', 'no such handoff');
}

/** Refuses fields that do not belong to the state finally entered (`continueTo`, else `to`), and requires the ones that do. */
function checkFields(body: TransitionRequest): Failure<ApiErrorCode> | undefined {
  const entered = body.continueTo ?? body.to;
  const need = (field: keyof TransitionRequest, when: boolean) => (when ? body[field] === undefined : body[field] !== undefined);
  if (need('checkpoint', entered === 'source-relinquished-and-checkpointed')) {
    return fail('validation_failed', 'a checkpoint (digest and size) is given exactly when entering source-relinquished-and-checkpointed', {
      field: 'checkpoint',
    });
  }
  if (need('reason', entered === 'cancelled'))
    return fail('validation_failed', 'a reason is given exactly when cancelling', { field: 'reason' });
  if (need('resumePath', entered === 'completed'))
    return fail('validation_failed', 'a resume path is given exactly when completing', { field: 'resumePath' });
  if (body.checkpointBody !== undefined && entered !== 'source-relinquished-and-checkpointed')
    return fail('validation_failed', 'a checkpoint body is given only entering source-relinquished-and-checkpointed', {
      field: 'checkpointBody',
    });
  if (body.sealedOutcome !== undefined && entered !== 'completed' && entered !== 'cancelled') {
    return fail('validation_failed', 'a sealed outcome is given only when the handoff ends', { field: 'sealedOutcome' });
  }
  // The checkpoint's body is checked by the store, in the transaction that names it (a collection may be deleting it).
  return undefined;
}

/** Refuses a `continueTo` the caller may not take from `to` (or `to` one a transition may not pass through). */
function refuseContinuation(body: TransitionRequest, role: HandoffRole): Failure<ApiErrorCode> | undefined {
  if (body.continueTo === undefined || mayTransitionThrough(body.from, body.to, body.continueTo, role)) return undefined;
  const why = PASSABLE_STATES.includes(body.to)
    ? `${role} may not move a handoff from ${body.to} to ${body.continueTo}`
    : `a transition may not pass through ${body.to} (it is entered with data, or ends the handoff)`;
  return fail('illegal_transition', why, { from: body.to, to: body.continueTo, role });
}

/** Moves a handoff one step (or two, with `continueTo`): role and fields checked here, the compare-and-set done by the store. */
export async function transitionHandoff(
  deps: Deps,
  { caller, params, body, idem }: Call<'transitionHandoff'>,
): Answer<'transitionHandoff'> {
  const handoff = await deps.store.getHandoff(caller.accountId, params.handoffId!);
  if (!handoff) return fail('not_found', 'no such handoff');
  const role = roleOf(handoff, caller);
  if (!mayTransition(body.from, body.to, role)) {
    if (body.to === 'cancelled' && !isCancellable(body.from) && findTransition(body.from, body.to)) {
      return fail('not_cancellable', 'ownership has transferred: only the target may end this handoff', { state: body.from, role });
    }
    if (body.to === 'cancelled' && !findTransition(body.from, body.to))
      return fail('not_cancellable', `a handoff at ${body.from} cannot be cancelled`, { state: body.from });
    return fail('illegal_transition', `${role} may not move a handoff from ${body.from} to ${body.to}`, {
      from: body.from,
      to: body.to,
      role,
    });
  }
  const refused = refuseContinuation(body, role) ?? checkFields(body);
  if (refused) return refused;
  const inline = await storeInlineCheckpoint(deps, caller.accountId, body);
  if (isRefusal(inline)) return inline;
  const wrap = (value: { handoff: Handoff; session: Session }) => ({ handoff: value.handoff });
  const result = await deps.store
    .transitionHandoff(
      {
        accountId: caller.accountId,
        handoffId: handoff.id,
        from: body.from,
        to: body.to,
        generation: body.generation,
        deviceId: caller.id,
        at: deps.clock(),
        checkpoint: body.checkpoint,
        reason: body.reason,
        resumePath: body.resumePath,
        sealedOutcome: body.sealedOutcome,
        continueTo: body.continueTo,
        keepCompleted: deps.retention.keepCompleted,
      },
      idemWrite(idem, wrap),
    )
    .catch(async (error: unknown) => {
      if (inline) await takeBackInlineCheckpoint(deps, caller.accountId, inline);
      throw error;
    });
  if (!result.ok && inline) await takeBackInlineCheckpoint(deps, caller.accountId, inline);
  if (result.ok) {
    deps.push.publish(caller.accountId, { type: 'handoff', handoff: result.value.handoff });
    if (body.to === 'ownership-transferred') deps.push.publish(caller.accountId, { type: 'session', session: result.value.session });
  }
  return answer(result, wrap);
}

/**
 * Cancels (as the backend, with `code`) every active handoff `which` picks. Each is its own
 * compare-and-set; a lost race is skipped.
 */
async function cancelActive(deps: Deps, accountId: string, code: string, which: (handoff: Handoff) => boolean): Promise<void> {
  const active = await deps.store.listHandoffs(accountId, { active: true });
  for (const handoff of active.filter(which)) {
    const session = await deps.store.getSession(accountId, handoff.sessionId);
    if (!session) continue;
    const result = await deps.store.transitionHandoff({
      accountId,
      handoffId: handoff.id,
      from: handoff.state,
      to: 'cancelled',
      generation: session.generation,
      deviceId: null,
      at: deps.clock(),
      // The backend holds no key: the code alone says it (devices word it).
      reason: { code, sealed: null },
    });
    if (result.ok) deps.push.publish(accountId, { type: 'handoff', handoff: result.value.handoff });
  }
}

/** Cancels every handoff still before the transfer that involves `deviceId`, which was just revoked: it can no longer take its part. */
export function cancelHandoffsOfRevoked(deps: Deps, accountId: string, deviceId: string): Promise<void> {
  return cancelActive(
    deps,
    accountId,
    'device_revoked',
    (h) => isCancellable(h.state) && (h.sourceDeviceId === deviceId || h.targetDeviceId === deviceId),
  );
}

/**
 * Cancels every handoff whose checkpoint is not sealed yet (before the source's relinquish) and would
 * be sealed under a version older than `keyVersion`, which a rotation just made: nothing new is sealed
 * under an older version. A move past the relinquish carries a checkpoint sealed before the rotation,
 * which its target holds the key of, and goes on.
 */
export function cancelHandoffsSealedBefore(deps: Deps, accountId: string, keyVersion: number): Promise<void> {
  return cancelActive(
    deps,
    accountId,
    'keys_rotated',
    (h) => isCancellable(h.state) && h.state !== 'source-relinquished-and-checkpointed' && (h.keyVersion ?? 0) < keyVersion,
  );
}
