/**
 * What the UI says when this device cannot reach its sync backend, pure and testable: the notice
 * shown over every screen, and the reason next to each act that needs the backend (Move, Cancel
 * move, New session, invites, revocation, key rotation), which stay disabled until it answers.
 */
import type { BackendReachabilityView, DeviceStatusView } from '../../shared/device-api.ts';
import { backendHostName, backendName } from './backend-home.ts';

/** Whether the device's last round over every backend address failed. */
export function isUnreachable(reachability: BackendReachabilityView | null | undefined): reachability is BackendReachabilityView {
  return reachability?.state === 'unreachable';
}

/**
 * The notice over every screen while the backend is unreachable, naming it by the device it runs on
 * (when one does) and the addresses tried; else null.
 */
export function unreachableNotice(status: DeviceStatusView | null): string | null {
  const reachability = status?.reachability;
  if (!isUnreachable(reachability)) return null;
  const tried = reachability.tried.length > 0 ? reachability.tried : (status?.backendUrls ?? []);
  return `Can't reach ${backendName(status)} (tried ${tried.join(', ')}) — showing what this device last knew.`;
}

/** What still works while the backend is unreachable, and what waits for it, naming the device it runs on when one does. */
export function unreachableDetail(status: DeviceStatusView | null): string {
  const host = backendHostName(status);
  const away = status?.backendHome?.where === 'device' && host !== null ? `${host} may be off, asleep or on another network. ` : '';
  const until = host === null ? 'it answers' : `${host} answers`;
  return (
    `${away}Sessions running on this device keep running and take your messages; moves, new sessions and invites wait until ` +
    `${until}. This device keeps retrying.`
  );
}

/** Why an act that needs the backend is disabled now (this device was revoked, or cannot reach it), or null when it may act. */
export function needsBackendReason(status: DeviceStatusView | null): string | null {
  if (status?.revokedAt) return 'This device was removed from the account, so it can no longer do this.';
  if (!isUnreachable(status?.reachability)) return null;
  const host = backendHostName(status);
  const name = backendName(status);
  return `Can't reach ${name}, which this needs; it is enabled again as soon as ${host ?? 'the backend'} answers.`;
}
