/** Sealed memory items under opaque topics (the handoff packets' memory link). */
import { ok } from '../../shared/errors.ts';
import { answer, idemWrite, type Answer, type Call, type Deps } from './context.ts';
import type { MemoryRecord } from '../store/store.ts';

/** Stores one sealed memory item under its topic and tells the account. */
export async function putMemory(deps: Deps, { caller, body, idem }: Call<'putMemory'>): Answer<'putMemory'> {
  const item = {
    id: body.itemId,
    accountId: caller.accountId,
    topic: body.topic,
    deviceId: caller.id,
    sealedBody: body.sealedBody,
    createdAt: deps.clock(),
  };
  const wrap = (value: MemoryRecord) => ({ item: value });
  const result = await deps.store.putMemory(item, idemWrite(idem, wrap));
  if (result.ok) deps.push.publish(caller.accountId, { type: 'memory', topic: body.topic });
  return answer(result, wrap);
}

/** The account's items of one topic, oldest first. */
export async function listMemory(deps: Deps, { caller, query }: Call<'listMemory'>): Answer<'listMemory'> {
  return ok({ items: await deps.store.listMemory(caller.accountId, query.topic) });
}
