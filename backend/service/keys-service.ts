/** Wrapped account data keys: reading the caller's wraps and rotating to a new version. */
import { fail, ok } from '../../shared/errors.ts';
import { answer, idemWrite, type Answer, type Call, type Deps } from './context.ts';
import { cancelHandoffsSealedBefore } from './handoffs-service.ts';

/** The caller's wrapped keys (every version it holds), the account's current version, and whether a rotation is due. */
export async function getKeys(deps: Deps, { caller }: Call<'getKeys'>): Answer<'getKeys'> {
  const [currentVersion, keys, rotationDue] = await Promise.all([
    deps.store.currentKeyVersion(caller.accountId),
    deps.store.getKeys(caller.id),
    deps.store.revokedHoldsCurrentKey(caller.accountId),
  ]);
  return ok({ currentVersion, keys, rotationDue });
}

/**
 * Adds ADK version current+1, wrapped by the caller for every enrolled device of the account, and
 * cancels the moves whose checkpoint is not sealed yet under an older version.
 */
export async function rotateKeys(deps: Deps, { caller, body, idem }: Call<'rotateKeys'>): Answer<'rotateKeys'> {
  const enrolled = new Set((await deps.store.listDevices(caller.accountId)).filter((d) => d.status === 'enrolled').map((d) => d.id));
  const targets = body.wrappedKeys.map((w) => w.deviceId);
  if (body.wrappedKeys.some((w) => w.keyVersion !== body.keyVersion || w.wrappedBy !== caller.id)) {
    return fail('validation_failed', 'every wrapped key must be of the new version and made by the caller');
  }
  if (new Set(targets).size !== targets.length || targets.some((id) => !enrolled.has(id))) {
    return fail('validation_failed', 'wrapped keys must name each enrolled device of the account once');
  }
  const held = await deps.store.getKeys(caller.id);
  const wrap = (currentVersion: number) => ({
    currentVersion,
    keys: [...held, ...body.wrappedKeys.filter((w) => w.deviceId === caller.id)],
  });
  const result = await deps.store.rotateKeys(
    { accountId: caller.accountId, keyVersion: body.keyVersion, wrappedKeys: body.wrappedKeys },
    idemWrite(idem, wrap),
  );
  if (result.ok) {
    deps.push.publish(caller.accountId, { type: 'keys', currentVersion: result.value });
    await cancelHandoffsSealedBefore(deps, caller.accountId, result.value);
  }
  return answer(result, wrap);
}
