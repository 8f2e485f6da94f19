/** The notice over every screen while this device cannot reach its sync backend (gone once it answers). */
import { useStatusStore } from '../stores/status-store.ts';
import { revokedNotice, unreachableNotice } from './backend-reach.ts';
import { formatTime } from './format.ts';

/** Renders the notice, or nothing while the backend answers. */
export function BackendNotice() {
  const status = useStatusStore((state) => state.status);
  const revoked = revokedNotice(status);
  if (revoked !== null)
    return (
      <div className="backend-notice" role="alert">
        <p className="backend-notice-title">{revoked}</p>
      </div>
    );
  const notice = unreachableNotice(status);
  const reachability = status?.reachability;
  if (notice === null || !reachability) return null;
  return (
    <div className="backend-notice" role="status">
      <p className="backend-notice-title">{notice}</p>
      <p className="backend-notice-detail">
        {reachability.since !== null && <>Since {formatTime(reachability.since)}. </>}
        Moves and other acts that need the backend are disabled until it answers; this device keeps retrying.
        {reachability.lastError && <span className="mono"> Last error: {reachability.lastError}</span>}
      </p>
    </div>
  );
}
