/** First run: create an account on a backend address, or join an existing one with an invite. */
import { useId, useState, type FormEvent } from 'react';
import { formatBackendList, parseBackendList } from '../../shared/backend-addresses.ts';
import type { BackendKeyProbe } from '../../shared/backend-keys.ts';
import { BackendAddressesField } from '../components/backend-addresses-field.tsx';
import { BackendKeyConfirm, keysToConfirm } from '../components/backend-key.tsx';
import { useStatusStore } from '../stores/status-store.ts';

const ADDRESS_HINT = 'One address, or several instances of one backend separated by commas; tried in order.';

function CreateAccount() {
  const ids = { name: useId(), heading: useId() };
  const status = useStatusStore((state) => state.status);
  const busy = useStatusStore((state) => state.busy);
  const createAccount = useStatusStore((state) => state.createAccount);
  const checkBackendKeys = useStatusStore((state) => state.checkBackendKeys);
  const [backendUrls, setBackendUrls] = useState(formatBackendList(status?.backendUrls ?? []));
  const [deviceName, setDeviceName] = useState(status?.deviceName ?? '');
  const [invalid, setInvalid] = useState<string | null>(null);
  /** First contact's keys that await the person's word, for the addresses they were found at. */
  const [toConfirm, setToConfirm] = useState<{ urls: string[]; probes: BackendKeyProbe[] } | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setToConfirm(null);
    const parsed = parseBackendList(backendUrls);
    setInvalid(parsed.ok ? null : parsed.message);
    if (!parsed.ok) return;
    // First contact: a key no trusted authority vouches for is shown to be confirmed before the account is made.
    const probes = keysToConfirm((await checkBackendKeys(parsed.value)) ?? []);
    if (probes.length > 0) setToConfirm({ urls: parsed.value, probes });
    else void createAccount(parsed.value, deviceName.trim());
  };
  const confirm = () => {
    if (!toConfirm) return;
    const pins = toConfirm.probes.map((probe) => probe.presented!);
    void createAccount(toConfirm.urls, deviceName.trim(), [...new Set(pins)]);
  };
  return (
    <section className="card setup-card" aria-labelledby={ids.heading}>
      <h2 id={ids.heading}>Create an account</h2>
      <p className="muted">Start fresh. This device becomes the first one of a new account and holds its first key.</p>
      <form className="stack" onSubmit={(event) => void submit(event)}>
        <BackendAddressesField
          label="Backend addresses"
          required
          placeholder="http://127.0.0.1:8787"
          hint={ADDRESS_HINT}
          invalid={invalid}
          value={backendUrls}
          onChange={(value) => {
            setBackendUrls(value);
            setToConfirm(null);
          }}
        />
        <label className="field">
          <span className="field-label">Device name</span>
          <input
            id={ids.name}
            type="text"
            required
            maxLength={100}
            placeholder="e.g. Work laptop"
            value={deviceName}
            onChange={(event) => setDeviceName(event.target.value)}
          />
        </label>
        {toConfirm ? (
          <BackendKeyConfirm probes={toConfirm.probes} busy={busy} onConfirm={confirm} onCancel={() => setToConfirm(null)} />
        ) : (
          <button type="submit" className="button button--primary" disabled={busy}>
            Create account
          </button>
        )}
      </form>
    </section>
  );
}

function JoinAccount() {
  const heading = useId();
  const suggestedName = useStatusStore((state) => state.status?.deviceName ?? '');
  const busy = useStatusStore((state) => state.busy);
  const joining = useStatusStore((state) => state.status?.joining ?? false);
  const joinAccount = useStatusStore((state) => state.joinAccount);
  const [invite, setInvite] = useState('');
  const [deviceName, setDeviceName] = useState(suggestedName);
  const [backendUrls, setBackendUrls] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    // Empty: the addresses the invite carries.
    const parsed = backendUrls.trim() === '' ? null : parseBackendList(backendUrls);
    setInvalid(parsed && !parsed.ok ? parsed.message : null);
    if (parsed && !parsed.ok) return;
    void joinAccount(invite.trim(), deviceName.trim(), parsed?.value);
  };
  return (
    <section className="card setup-card" aria-labelledby={heading}>
      <h2 id={heading}>Join with an invite</h2>
      <p className="muted">Already use Baton elsewhere? On an enrolled device open Devices → Add a device, then paste the invite here.</p>
      <form className="stack" onSubmit={submit}>
        <label className="field">
          <span className="field-label">Invite</span>
          <textarea required rows={3} value={invite} onChange={(event) => setInvite(event.target.value)} />
        </label>
        <label className="field">
          <span className="field-label">Device name</span>
          <input
            type="text"
            required
            maxLength={100}
            placeholder="e.g. Home desktop"
            value={deviceName}
            onChange={(event) => setDeviceName(event.target.value)}
          />
        </label>
        <BackendAddressesField
          label="Backend addresses (optional)"
          placeholder="the invite's"
          hint="Leave empty to use the addresses the invite carries."
          invalid={invalid}
          value={backendUrls}
          onChange={setBackendUrls}
        />
        <button type="submit" className="button" disabled={busy || joining}>
          {joining ? 'Waiting for approval…' : 'Join'}
        </button>
      </form>
    </section>
  );
}

/** Renders the first-run screen inside `main`. */
export function FirstRun() {
  const error = useStatusStore((state) => state.error);
  const joining = useStatusStore((state) => state.status?.joining ?? false);
  return (
    <div className="first-run">
      <header className="page-header">
        <h1>Set up Baton on this device</h1>
        <p className="muted">
          Baton moves a running coding-agent session between your devices at exact commits. Nothing about your sessions is readable by the
          backend.
        </p>
      </header>
      {joining && (
        <p className="notice" role="status">
          Join requested. The inviting device approves it and shares the account keys; this screen updates on its own.
        </p>
      )}
      {error && (
        <p className="form-error" role="status">
          {error}
        </p>
      )}
      <div className="setup-grid">
        <CreateAccount />
        <JoinAccount />
      </div>
    </div>
  );
}
