/**
 * The backend port with the local-state barrier in front of every call that changes the backend.
 *
 * Local records are written behind (record-folder.ts), so a step such as "checkpoint uploaded, digest
 * D" could still be in flight when the transition that relies on it is sent. Waiting for the durable
 * writes before each such call keeps the order the crash recovery depends on: whatever the backend
 * has acknowledged, this device had recorded first. Reads go straight through, and so do blob
 * uploads: a body is stored by its digest and means nothing until a record names it, and the call
 * that does (a transition) waits.
 */
import { fail, type Result } from '../../shared/errors.ts';
import type { BackendPort } from '../ports/backend.ts';

/** What the barrier needs of the local state. */
export interface WriteBarrier {
  settled(): Promise<void>;
}

/** `backend` whose changing calls (but blob uploads) first wait for `state`'s durable writes; a failed write refuses the call. */
export function afterLocalWrites(backend: BackendPort, state: WriteBarrier): BackendPort {
  const guard = async <T>(call: () => Promise<Result<T>>): Promise<Result<T>> => {
    try {
      await state.settled();
    } catch (error) {
      return fail('local_state_unwritable', `This device could not record its progress, so nothing was sent: ${(error as Error).message}`);
    }
    return call();
  };
  return {
    listDevices: () => backend.listDevices(),
    getSession: (sessionId) => backend.getSession(sessionId),
    listSessions: () => backend.listSessions(),
    listEvents: (sessionId, after) => backend.listEvents(sessionId, after),
    listAnswers: (sessionId, after) => backend.listAnswers(sessionId, after),
    getHandoff: (handoffId) => backend.getHandoff(handoffId),
    listHandoffs: (query) => backend.listHandoffs(query),
    getBlob: (digest) => backend.getBlob(digest),
    getBlobTo: (...args) => backend.getBlobTo(...args),
    listJoinRequests: () => backend.listJoinRequests(),
    blobLimit: () => backend.blobLimit(),
    heartbeat: (...args) => guard(() => backend.heartbeat(...args)),
    createSession: (...args) => guard(() => backend.createSession(...args)),
    updateSessionMeta: (...args) => guard(() => backend.updateSessionMeta(...args)),
    appendEvent: (...args) => guard(() => backend.appendEvent(...args)),
    postAnswer: (...args) => guard(() => backend.postAnswer(...args)),
    createHandoff: (...args) => guard(() => backend.createHandoff(...args)),
    transition: (...args) => guard(() => backend.transition(...args)),
    putBlob: (...args) => backend.putBlob(...args),
    putBlobFile: (...args) => backend.putBlobFile(...args),
  };
}
