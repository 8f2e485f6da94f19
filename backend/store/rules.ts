/**
 * The checks and choices both stores make inside a mutation's transaction: the session fence, whether a
 * checkpoint may be named, and which checkpoint bodies a transition releases.
 */
import type { CheckpointRef } from '../../shared/api/handoffs.ts';
import { isCancellable } from '../../shared/handoff-states.ts';
import { refuse, type SessionRow } from './rows.ts';
import type { TransitionInput } from './store.ts';

/** Refuses unless `deviceId` owns the session at exactly `generation` (stale generation first); `deviceId` null: any device. */
export function fence(row: SessionRow | undefined, deviceId: string | null, generation: number): SessionRow {
  if (!row) return refuse('not_found', 'no such session');
  if (row.generation !== generation) {
    refuse('stale_generation', `the session is at generation ${row.generation}, not ${generation}`, { currentGeneration: row.generation });
  }
  if (deviceId !== null && row.owner_device_id !== deviceId)
    refuse('not_owner', 'this device does not own the session', { ownerDeviceId: row.owner_device_id });
  return row;
}

/** Refuses naming `ref` as a checkpoint when the account's record of it is missing (`size` undefined) or of another size. */
export function refuseUnnamable(size: number | undefined, ref: CheckpointRef): void {
  if (size === undefined) refuse('validation_failed', 'the checkpoint body has not been uploaded', { field: 'checkpoint' });
  if (size !== ref.size) refuse('validation_failed', 'the checkpoint size does not match the uploaded body', { field: 'checkpoint' });
}

/**
 * What a transition releases, by the state it finally enters: completing a handoff, the bodies of its
 * session's completed handoffs beyond the newest N; cancelling one before the transfer, its own (the
 * source keeps the session). One cancelled after the transfer keeps its body, for Retry activation,
 * until its session's next handoff is created.
 */
export function releaseOnEntering(input: Pick<TransitionInput, 'from' | 'to' | 'continueTo'>): 'beyond-kept' | 'own' | undefined {
  const [from, entered] = input.continueTo ? [input.to, input.continueTo] : [input.from, input.to];
  if (entered === 'completed') return 'beyond-kept';
  if (entered === 'cancelled' && isCancellable(from)) return 'own';
  return undefined;
}
