/** The JSON routes' handlers by route name: each one delegates to a service function. */
import type { RouteName } from '../../shared/api/routes.ts';
import type { Answer, Call, Deps, SelfCall } from '../service/context.ts';
import * as accounts from '../service/accounts-service.ts';
import * as keys from '../service/keys-service.ts';
import * as sessions from '../service/sessions-service.ts';
import * as handoffs from '../service/handoffs-service.ts';
import * as memory from '../service/memory-service.ts';

/** Routes signed by the key their body carries. */
export const selfHandlers: { [N in 'createAccount' | 'createJoinRequest']: (deps: Deps, call: SelfCall<N>) => Answer<N> } = {
  createAccount: accounts.createAccount,
  createJoinRequest: accounts.createJoinRequest,
};

type DeviceRoute = Exclude<RouteName, 'health' | 'stream' | 'putBlob' | 'getBlob' | keyof typeof selfHandlers>;

/** Routes signed by a known device. */
export const deviceHandlers: { [N in DeviceRoute]: (deps: Deps, call: Call<N>) => Answer<N> } = {
  me: accounts.me,
  listDevices: accounts.listDevices,
  heartbeat: accounts.heartbeat,
  revokeDevice: accounts.revokeDevice,
  createInvite: accounts.createInvite,
  listJoinRequests: accounts.listJoinRequests,
  getJoinRequest: accounts.getJoinRequest,
  approveJoinRequest: accounts.approveJoinRequest,
  rejectJoinRequest: accounts.rejectJoinRequest,
  getKeys: keys.getKeys,
  rotateKeys: keys.rotateKeys,
  createSession: sessions.createSession,
  listSessions: sessions.listSessions,
  getSession: sessions.getSession,
  updateSessionMeta: sessions.updateSessionMeta,
  appendEvent: sessions.appendEvent,
  listEvents: sessions.listEvents,
  postAnswer: sessions.postAnswer,
  listAnswers: sessions.listAnswers,
  createHandoff: handoffs.createHandoff,
  listHandoffs: handoffs.listHandoffs,
  getHandoff: handoffs.getHandoff,
  transitionHandoff: handoffs.transitionHandoff,
  putMemory: memory.putMemory,
  listMemory: memory.listMemory,
};
