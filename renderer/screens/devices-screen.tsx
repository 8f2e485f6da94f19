/**
 * The devices screen: where the account's backend runs, enrolled devices with reachability, add a
 * device by invite (and let other machines reach a backend this device hosts), revoke, rotate keys.
 */
import { useId, useState } from 'react';
import type { DeviceView } from '../../shared/device-api.ts';
import { backendHomeLine, hostedStateText } from '../model/backend-home.ts';
import { needsBackendReason } from '../model/backend-reach.ts';
import { formatAgo } from '../model/format.ts';
import { AccountKeys } from '../components/account-keys.tsx';
import { InvitePanel } from '../components/invite-panel.tsx';
import { Modal } from '../components/modal.tsx';
import { SyncBackendSettings } from '../components/sync-backend-settings.tsx';
import { MoveSettingsCard } from '../components/move-settings.tsx';
import { useDevicesStore } from '../stores/devices-store.ts';
import { useStatusStore } from '../stores/status-store.ts';

/** Whether the device list is current: not while this device cannot reach the backend, which tells who is online. */
function useListCurrent(): boolean {
  return useStatusStore((state) => needsBackendReason(state.status) === null && !state.status?.revokedAt);
}

function Reachability({ device, current }: { device: DeviceView; current: boolean }) {
  if (device.status === 'revoked') return <span className="reach reach--revoked">Revoked</span>;
  if (device.status === 'pending') return <span className="reach reach--pending">Waiting to join</span>;
  const seen = device.lastSeenAt ? `last seen ${formatAgo(device.lastSeenAt, Date.now())}` : 'never seen';
  if (device.isThisDevice)
    return current ? (
      <span className="reach reach--online">Online</span>
    ) : (
      <span className="reach reach--unknown">Cannot reach the backend</span>
    );
  if (!current) return <span className="reach reach--unknown">Not known now · {seen}</span>;
  if (device.online) return <span className="reach reach--online">Online</span>;
  return <span className="reach reach--offline">Offline · {seen}</span>;
}

/** Renders the devices screen inside `main`. */
export function DevicesScreen() {
  const devices = useDevicesStore((state) => state.devices);
  const loaded = useDevicesStore((state) => state.loaded);
  const revoke = useDevicesStore((state) => state.revoke);
  const busy = useDevicesStore((state) => state.busy);
  const error = useDevicesStore((state) => state.error);
  const notice = useDevicesStore((state) => state.notice);
  const backendReason = useStatusStore((state) => needsBackendReason(state.status));
  const [revoking, setRevoking] = useState<DeviceView | null>(null);
  const listId = useId();
  const current = useListCurrent();
  const status = useStatusStore((state) => state.status);
  const home = status?.backendHome;
  const homeLine = backendHomeLine(status);

  return (
    <div className="page-pad devices-screen">
      <header className="page-header">
        <h1>Devices</h1>
        <p className="muted">
          Every device enrolled in this account. A session can move to any enrolled, reachable device that can open its workspace.
        </p>
      </header>
      {homeLine && (
        <p className="backend-home">
          {homeLine}
          {home?.where === 'this-device' && (
            <span className={`tag backend-home-state backend-home-state--${home.hosted.state}`}>{hostedStateText(home.hosted)}</span>
          )}
        </p>
      )}
      <p className={error ? 'form-error' : 'notice-line'} aria-live="polite">
        {error ?? backendReason ?? notice ?? ''}
      </p>
      <section className="card" aria-labelledby={listId}>
        <h2 id={listId}>Enrolled devices</h2>
        {!loaded && <p className="muted">Loading…</p>}
        <ul className="device-list">
          {devices.map((device) => (
            <li key={device.id} className={`device-row device-row--${device.status}`}>
              <span
                className={`reach-dot ${current && (device.online || device.isThisDevice) && device.status === 'enrolled' ? 'reach-dot--online' : ''}`}
                aria-hidden="true"
              />
              <span className="device-name">{device.name}</span>
              {device.isThisDevice && <span className="tag">this device</span>}
              <Reachability device={device} current={current} />
              <span className="device-actions">
                {!device.isThisDevice && device.status !== 'revoked' && (
                  <button
                    type="button"
                    className="button button--danger-quiet"
                    disabled={busy || backendReason !== null}
                    title={backendReason ?? undefined}
                    onClick={() => setRevoking(device)}
                  >
                    Revoke
                  </button>
                )}
              </span>
            </li>
          ))}
        </ul>
      </section>
      <div className="two-up">
        <InvitePanel />
        <AccountKeys />
      </div>
      <SyncBackendSettings />
      <MoveSettingsCard />
      {revoking && (
        <Modal
          title="Revoke device"
          description={`${revoking.name} will be refused from now on, and the account keys are renewed so it cannot open anything sealed after. It cannot be undone.`}
          onClose={() => setRevoking(null)}
        >
          <div className="modal-actions">
            <button type="button" className="button" onClick={() => setRevoking(null)}>
              Keep it
            </button>
            <button
              type="button"
              className="button button--danger"
              onClick={() => {
                void revoke(revoking.id);
                setRevoking(null);
              }}
            >
              Revoke {revoking.name}
            </button>
          </div>
        </Modal>
      )}
    </div>
  );
}
