/**
 * The devices screen's "Sync backend" settings: the addresses this device uses (the one it is on,
 * and whether it reaches the backend), and a field to point it at others — several instances of
 * one backend, or a load balancer — kept in its profile and used at once.
 */
import { useId, useState, type FormEvent } from 'react';
import { formatBackendList, parseBackendList } from '../../shared/backend-addresses.ts';
import { useStatusStore } from '../stores/status-store.ts';
import { BackendAddressesField } from './backend-addresses-field.tsx';
import { BackendKeyPins } from './backend-key.tsx';
import { plainMessage } from '../model/error-words.ts';
import { formatTime } from '../model/format.ts';

/** One line on how this device reaches its backend now. */
function reachText(status: ReturnType<typeof useStatusStore.getState>['status']): string {
  const reachability = status?.reachability;
  if (!reachability || reachability.state === 'unknown') return 'Not contacted yet.';
  if (reachability.state === 'reachable') return `Connected through ${reachability.current ?? 'the first address'}.`;
  const since = reachability.since === null ? '' : ` since ${formatTime(reachability.since)}`;
  const why = reachability.lastError ? ` ${plainMessage({ message: reachability.lastError })}` : '';
  return `Unreachable${since}: no address answered.${why}`;
}

/** Renders the settings card. */
export function SyncBackendSettings() {
  const heading = useId();
  const status = useStatusStore((state) => state.status);
  const busy = useStatusStore((state) => state.busy);
  const setBackendUrls = useStatusStore((state) => state.setBackendUrls);
  const pinBackendKeys = useStatusStore((state) => state.pinBackendKeys);
  const addresses = status?.backendUrls ?? [];
  const [text, setText] = useState(formatBackendList(addresses));
  const [invalid, setInvalid] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaved(false);
    const parsed = parseBackendList(text);
    setInvalid(parsed.ok ? null : parsed.message);
    if (!parsed.ok) return;
    const refused = await setBackendUrls(parsed.value);
    if (refused) {
      setInvalid(`${plainMessage(refused)} This device keeps using ${formatBackendList(addresses)}.`);
      return;
    }
    setText(formatBackendList(parsed.value));
    setSaved(true);
  }

  const hosting = status?.backendHome?.where === 'this-device';
  return (
    <section className="card" aria-labelledby={heading}>
      <h2 id={heading}>Sync backend</h2>
      <p className="muted">
        {hosting
          ? 'This device hosts it and reaches it at its own address. To move it to another machine or a server, back it up, restore it there, and give its address here: this device then stops hosting it (its data stays where it is).'
          : 'Tried in order: this device stays on an address that answers and moves to the next when one fails.'}
      </p>
      <ol className="sync-backend-list">
        {addresses.map((url) => (
          <li key={url} className="mono">
            {url}
            {status?.reachability?.current === url && status.reachability.state === 'reachable' ? ' (in use)' : ''}
          </li>
        ))}
      </ol>
      <p className="notice-line">{reachText(status)}</p>
      <form className="stack" onSubmit={(event) => void submit(event)}>
        <BackendAddressesField
          label="Backend addresses"
          required
          placeholder="http://10.0.0.5:8787,http://10.0.0.6:8787"
          hint="Several instances of one backend, or one load balancer; separated by commas."
          invalid={invalid}
          value={text}
          onChange={setText}
        />
        <div className="inline-field">
          <button type="submit" className="button" disabled={busy}>
            Save addresses
          </button>
          <span className="muted" aria-live="polite">
            {saved ? 'Saved; in use now.' : ''}
          </span>
        </div>
      </form>
      {status?.backendKey && (
        <BackendKeyPins view={status.backendKey} addresses={addresses} busy={busy} onPin={(pins) => void pinBackendKeys(pins)} />
      )}
    </section>
  );
}
