/**
 * The checks and choices both stores make inside a mutation's transaction: the session fence, the caps
 * on posts to a session's log, whether a checkpoint may be named, and which checkpoint bodies a
 * transition releases.
 */
import type { CheckpointRef } from '../../shared/api/handoffs.ts';
import { isCancellable } from '../../shared/handoff-states.ts';
import { refuse, type SessionRow } from './rows.ts';
import type { PostCaps, PostLoad, TransitionInput } from './store.ts';

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

/**
 * Refuses (`rate_limited`) a post of `bytes` at `at` that would take the device's or the session's
 * posts in the window (`load`, counted since `at - caps.windowMs`) past a cap; the details say when
 * the window has room again (once its oldest post leaves it, at least a second).
 */
export function refuseOverPostCap(load: { device: PostLoad; session: PostLoad }, caps: PostCaps, bytes: number, at: number): void {
  const over = (l: PostLoad, posts: number, most: number) => l.posts + 1 > posts || l.bytes + bytes > most;
  const cap = over(load.device, caps.maxPostsPerDevice, caps.maxPostBytesPerDevice)
    ? { by: 'device', load: load.device, posts: caps.maxPostsPerDevice, bytes: caps.maxPostBytesPerDevice }
    : over(load.session, caps.maxPostsPerSession, caps.maxPostBytesPerSession)
      ? { by: 'session', load: load.session, posts: caps.maxPostsPerSession, bytes: caps.maxPostBytesPerSession }
      : undefined;
  if (!cap) return;
  const whose = cap.by === 'device' ? 'this device has posted' : 'this session has been sent';
  refuse('rate_limited', `${whose} as much as one window allows (${cap.posts} posts or ${cap.bytes} bytes in ${caps.windowMs} ms)`, {
    retryAfterMs: Math.max(1_000, (cap.load.oldestAt ?? at) + caps.windowMs - at),
    cap: cap.by,
    windowMs: caps.windowMs,
  });
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
