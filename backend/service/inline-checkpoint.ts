/**
 * A checkpoint that travels inside its transition (`checkpointBody`, at most
 * INLINE_CHECKPOINT_MAX_BYTES) instead of as a blob put ahead. Its body is stored before the
 * compare-and-set (the store's transaction names it there, and refuses a body it has no record of);
 * when that compare-and-set does not commit, what this request stored is taken back at once — the
 * record, when nothing named it meanwhile, and the body, when no record names it — so a lost race
 * leaves no orphan for the collector's hour of grace.
 */
import { createHash } from 'node:crypto';
import { fail, type ApiErrorCode, type Failure } from '../../shared/errors.ts';
import { INLINE_CHECKPOINT_MAX_BYTES, type TransitionRequest } from '../../shared/api/handoffs.ts';
import type { Deps } from './context.ts';

/** What storing an inline checkpoint left to take back if its transition fails: the record this request made. */
export interface StoredInline {
  digest: string;
  /** The record's time as this request put it. */
  createdAt: number;
  /** Whether the account had no record of the body before: only then is anything taken back. */
  fresh: boolean;
}

/**
 * Stores the checkpoint that travels in `body` under its reference, as a blob put would; refuses a
 * body that is not the one the reference names. A store that already has it (a retried request) is
 * told again: the same body under the same digest. Nothing to store: undefined.
 */
export async function storeInlineCheckpoint(
  deps: Deps,
  accountId: string,
  body: TransitionRequest,
): Promise<Failure<ApiErrorCode> | StoredInline | undefined> {
  if (body.checkpointBody === undefined) return undefined;
  const field = { field: 'checkpointBody' };
  if (!body.checkpoint) return fail('validation_failed', 'a checkpoint body comes with its checkpoint reference', field);
  const bytes = Buffer.from(body.checkpointBody, 'base64url');
  const { digest, size } = body.checkpoint;
  if (bytes.length > Math.min(INLINE_CHECKPOINT_MAX_BYTES, deps.limits.maxBlobBytes))
    return fail('validation_failed', `a checkpoint body in a transition is at most ${INLINE_CHECKPOINT_MAX_BYTES} bytes`, field);
  if (bytes.length !== size || createHash('sha256').update(bytes).digest('hex') !== digest)
    return fail('validation_failed', 'the checkpoint body is not the one its reference names (digest and size)', field);
  const fresh = (await deps.store.getBlob(accountId, digest)) === undefined;
  const upload = deps.blobs.begin();
  await upload.write(bytes);
  await upload.commit(digest, size);
  const record = await deps.store.putBlob({ accountId, digest, size, createdAt: deps.clock() });
  return { digest, createdAt: record.createdAt, fresh };
}

/**
 * The transition that carried `stored` did not commit: drops the record this request made (unless a
 * transition named it, or another put refreshed it, meanwhile) and removes the body when no account
 * records it. A body another instance is removing, or that someone recorded again, is left to them.
 */
export async function takeBackInlineCheckpoint(deps: Deps, accountId: string, stored: StoredInline): Promise<void> {
  if (!stored.fresh) return;
  const now = deps.clock();
  const { digest, createdAt } = stored;
  if (!(await deps.store.dropUnnamedBlob({ accountId, digest, createdAt, at: now }))) return;
  const settled = await deps.blobs.remove([digest], {
    unrecorded: (digests) => deps.store.unrecordedDigests(digests),
    // This request put the body just now: it is the one to remove, whatever its time.
    putBefore: now + 1,
  });
  // 'busy' or unsettled: the digest stays queued, and the collector's next pass looks at it.
  if (settled !== 'busy') await deps.store.settleBodies([digest], settled, now + deps.retention.unnamedGraceMs);
}

/** Whether storing answered with a refusal rather than something stored (or nothing to store). */
export function isRefusal(value: Failure<ApiErrorCode> | StoredInline | undefined): value is Failure<ApiErrorCode> {
  return value !== undefined && 'ok' in value;
}
