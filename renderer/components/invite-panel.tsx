/**
 * Devices → Add a device: a one-time invite for another device, and whether another machine could use
 * it. While the backend this device hosts listens on this machine only, the region says an invite
 * made now works only here and offers to let other machines reach it; once they may, it lists the
 * addresses they use and what to check when they can't, and turning it off is one click that says
 * what stops working. Devices on a backend whose addresses are all loopback are told the same.
 */
import { useId, useState } from 'react';
import { onlyThisMachine } from '../../shared/backend-addresses.ts';
import type { HostedBackendView } from '../../shared/device-api.ts';
import { needsBackendReason } from '../model/backend-reach.ts';
import { formatDay } from '../model/format.ts';
import { plainMessage } from '../model/error-words.ts';
import { useDevicesStore } from '../stores/devices-store.ts';
import { useStatusStore } from '../stores/status-store.ts';

const SHARE = 'Let other machines reach this backend';

/** The backend this device hosts, shared: where other machines reach it, what to check, and the way back. */
function SharedBackend(props: { hosted: HostedBackendView; busy: boolean; onStop(): void }) {
  const listId = useId();
  const { hosted } = props;
  return (
    <div className="stack">
      {hosted.addresses.length > 0 ? (
        <>
          <p id={listId}>Other machines reach your sync backend at:</p>
          <ul className="key-list" aria-labelledby={listId}>
            {hosted.addresses.map((url) => (
              <li key={url} className="mono">
                {url}
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p>This machine has no network address another machine could use now: connect it to a network, then make the invite.</p>
      )}
      <p className="muted">
        If another machine can&apos;t reach it: it must be on the same network as this one (or the same VPN, such as a tailnet), and this
        machine&apos;s firewall must let TCP port {hosted.port} in.
      </p>
      <div className="inline-field share-off">
        <button type="button" className="button button--quiet" disabled={props.busy} onClick={props.onStop}>
          Stop letting other machines reach it
        </button>
        <span className="muted">Other devices then can&apos;t sync or move sessions until you let them again.</span>
      </div>
    </div>
  );
}

/** Renders the Add a device region. */
export function InvitePanel() {
  const inviteId = useId();
  const invite = useDevicesStore((state) => state.invite);
  const createInvite = useDevicesStore((state) => state.createInvite);
  const devicesBusy = useDevicesStore((state) => state.busy);
  const devices = useDevicesStore((state) => state.devices);
  const status = useStatusStore((state) => state.status);
  const statusBusy = useStatusStore((state) => state.busy);
  const shareBackend = useStatusStore((state) => state.shareBackend);
  const backendReason = needsBackendReason(status);
  const [copied, setCopied] = useState(false);
  const [shareNote, setShareNote] = useState<{ error: boolean; text: string } | null>(null);
  const joined = invite ? devices.find((device) => !invite.knownDeviceIds.includes(device.id)) : undefined;
  const home = status?.backendHome;
  const hosted = home?.where === 'this-device' ? home.hosted : null;
  const busy = devicesBusy || statusBusy;
  const urls = status?.backendUrls ?? [];
  const onlyHere = hosted ? !hosted.shared : urls.length > 0 && onlyThisMachine(urls);

  async function share(shared: boolean) {
    setShareNote(null);
    const refused = await shareBackend(shared);
    if (refused) setShareNote({ error: true, text: plainMessage(refused) });
    else if (!shared)
      setShareNote({
        error: false,
        text: "Only this machine reaches your sync backend now: other devices can't sync or move sessions until you let them reach it again.",
      });
  }
  async function copy() {
    if (!invite) return;
    await navigator.clipboard.writeText(invite.invite).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  }
  return (
    <section className="card" aria-labelledby={`${inviteId}-heading`}>
      <h2 id={`${inviteId}-heading`}>Add a device</h2>
      <p className="muted">
        Creates a one-time invite. On the new device choose “Join with an invite” and paste it; this device then shares the account keys
        with it.
      </p>
      {onlyHere && (
        <p className="notice-line">
          {hosted
            ? 'Your sync backend listens only on this machine, so an invite made now works only for another device on this machine.'
            : "This device's backend addresses are all on this machine, so an invite made now works only for another device on this machine."}
        </p>
      )}
      {hosted && !hosted.shared && (
        <button
          type="button"
          className="button button--primary"
          disabled={busy || hosted.state !== 'running'}
          onClick={() => void share(true)}
        >
          {SHARE}
        </button>
      )}
      {hosted?.shared && <SharedBackend hosted={hosted} busy={busy} onStop={() => void share(false)} />}
      {shareNote && (
        <p className={shareNote.error ? 'form-error' : 'notice-line'} role={shareNote.error ? 'alert' : 'status'}>
          {shareNote.text}
        </p>
      )}
      <button
        type="button"
        className={onlyHere && hosted ? 'button' : 'button button--primary'}
        disabled={busy || backendReason !== null}
        title={backendReason ?? undefined}
        onClick={() => {
          setCopied(false);
          void createInvite();
        }}
      >
        Add a device
      </button>
      {invite && (
        <div className="invite">
          <label htmlFor={inviteId} className="field-label">
            Invite
          </label>
          <textarea
            id={inviteId}
            readOnly
            rows={3}
            className="mono"
            value={invite.invite}
            onFocus={(event) => event.currentTarget.select()}
          />
          <div className="inline-field">
            <button type="button" className="button" onClick={() => void copy()}>
              Copy
            </button>
            <span className="muted" aria-live="polite">
              {joined
                ? `Used: ${joined.name} ${joined.status === 'pending' ? 'is joining' : 'joined'}. Make another for the next device.`
                : copied
                  ? 'Copied.'
                  : `Works once, until ${formatDay(invite.expiresAt)}${invite.thisMachineOnly ? ', for a device on this machine only' : ''}.`}
            </span>
          </div>
        </div>
      )}
    </section>
  );
}
