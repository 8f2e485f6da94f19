/**
 * The notice above every screen while this device cannot act with its sync backend: it was revoked
 * from the account, or it cannot reach the backend (gone once it answers). It takes its own room
 * above the screen, never covering a title.
 */
import { useStatusStore } from '../stores/status-store.ts';
import { unreachableDetail, unreachableNotice } from '../model/backend-reach.ts';
import { plainMessage } from '../model/error-words.ts';
import { formatTime } from '../model/format.ts';

/** Renders the notice, or nothing while the backend answers. */
export function BackendNotice() {
  const status = useStatusStore((state) => state.status);
  if (status?.revokedAt) {
    return (
      <div className="backend-notice backend-notice--revoked" role="alert">
        <p className="backend-notice-title">This device was removed from the account.</p>
        <p className="backend-notice-detail">
          It no longer syncs, moves or starts sessions; what it shows is what it last knew. To use this computer again, make an invite on a
          device still in the account (Devices → Add a device) and join with it here as a new device.
        </p>
        <details className="backend-notice-detail">
          <summary>How to join again here</summary>
          Baton keeps this device in its data folder, so joining again takes an empty one: quit Baton and move its data folder aside, then
          join with the invite on the set-up screen; or run <code>baton device --profile NEW-FOLDER --join INVITE</code>.
        </details>
      </div>
    );
  }
  const home = status?.backendHome;
  if (home?.where === 'this-device' && home.hosted.state === 'failed') {
    return (
      <div className="backend-notice" role="status">
        <p className="backend-notice-title">The sync backend on this device is not running.</p>
        <p className="backend-notice-detail">
          {home.hosted.error} Other devices can't sync or move sessions until it runs; it is tried again when Baton starts next.
        </p>
      </div>
    );
  }
  const notice = unreachableNotice(status);
  const reachability = status?.reachability;
  if (notice === null || !reachability) return null;
  return (
    <div className="backend-notice" role="status">
      <p className="backend-notice-title">{notice}</p>
      <p className="backend-notice-detail">
        {reachability.since !== null && <>Since {formatTime(reachability.since)}. </>}
        {unreachableDetail(status)}
        {status?.backendKey?.refused && status.backendUrls.includes(status.backendKey.refused.url) ? (
          <> It presented a key this device did not pin: Devices → Sync backend shows both.</>
        ) : (
          reachability.lastError && <> {plainMessage({ message: reachability.lastError })}</>
        )}
      </p>
    </div>
  );
}
