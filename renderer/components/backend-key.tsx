/**
 * The sync backend's key as a person checks it: the fingerprint devices pin (shared/backend-keys.ts),
 * the set-up screen's first contact (a key no trusted authority vouches for, to confirm before the
 * account is made), and, under Devices → Sync backend, the pinned keys and a refused one beside them
 * with the explicit re-pin.
 */
import { useId, useState, type FormEvent } from 'react';
import { parseKeyFingerprints, type BackendKeyProbe, type BackendKeyView } from '../../shared/backend-keys.ts';
import { Field } from './field.tsx';

/** One fingerprint, whole and selectable (it breaks anywhere rather than overflow a narrow window). */
export function Fingerprint({ value }: { value: string }) {
  return <code className="mono key-fingerprint">{value}</code>;
}

/** The keys first contact found that need the person's word: presented, and vouched for by no trusted authority. */
export function keysToConfirm(probes: readonly BackendKeyProbe[]): BackendKeyProbe[] {
  return probes.filter((probe) => probe.presented !== null && !probe.trusted);
}

/** The first contact's keys, to trust (then the account is made with them pinned) or not. */
export function BackendKeyConfirm(props: { probes: BackendKeyProbe[]; busy: boolean; onConfirm(): void; onCancel(): void }) {
  const heading = useId();
  return (
    <div className="key-check stack" role="group" aria-labelledby={heading}>
      <h3 id={heading}>Check the backend&apos;s key</h3>
      <p>
        No certificate authority this system trusts vouches for this backend. Compare its key with the <code>backend key:</code> line{' '}
        <code>baton backend</code> printed: from now on this device, and every device you invite, accepts only this key from it.
      </p>
      <ul className="key-list">
        {props.probes.map((probe) => (
          <li key={probe.url}>
            <span className="mono">{probe.url}</span> <Fingerprint value={probe.presented ?? ''} />
          </li>
        ))}
      </ul>
      <div className="inline-field">
        <button type="button" className="button button--primary" disabled={props.busy} onClick={props.onConfirm}>
          Trust this key and create account
        </button>
        <button type="button" className="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}

/** What a refusal says, by its reason: one sentence, with the choice it leaves. */
function refusalText(reason: 'mismatch' | 'untrusted'): string {
  const why =
    reason === 'mismatch'
      ? 'This device sent it nothing.'
      : 'No certificate authority this system trusts vouches for it, so this device sent it nothing.';
  return `${why} If you changed the backend's key (a new certificate, or a backend set up again), pin the new one; if not, it may not be your backend.`;
}

/**
 * The backend keys this device accepts, a key refused at one of its addresses (`addresses`: the ones it
 * uses; a refusal met elsewhere, trying another address, is not offered to pin) with both fingerprints,
 * and the re-pin.
 */
export function BackendKeyPins(props: { view: BackendKeyView; addresses: readonly string[]; busy: boolean; onPin(pins: string[]): void }) {
  const headingId = useId();
  const { view } = props;
  const refused = view.refused && props.addresses.includes(view.refused.url) ? view.refused : null;
  const [text, setText] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = text.trim() === '' ? { ok: true as const, value: [] } : parseKeyFingerprints(text);
    setInvalid(parsed.ok ? null : parsed.message);
    if (parsed.ok) props.onPin(parsed.value);
  };
  return (
    <div className="stack" role="group" aria-labelledby={headingId}>
      <h3 id={headingId}>Backend key</h3>
      {view.pinned.length > 0 ? (
        <ul className="key-list" aria-label="Pinned keys">
          {view.pinned.map((pin) => (
            <li key={pin}>
              <Fingerprint value={pin} />
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">No key pinned: over https, a certificate from an authority this system trusts is accepted.</p>
      )}
      {refused && (
        <div className="key-check stack" role="alert" aria-labelledby={`${headingId}-refused`}>
          <p className="key-check-title" id={`${headingId}-refused`}>
            The backend presented {refused.reason === 'mismatch' ? 'a different key' : 'a key nothing vouches for'}
          </p>
          <p>{refusalText(refused.reason)}</p>
          <dl className="key-pair">
            <dt>Address</dt>
            <dd className="mono">{refused.url}</dd>
            <dt>Pinned</dt>
            <dd>{view.pinned.length > 0 ? view.pinned.map((pin) => <Fingerprint key={pin} value={pin} />) : 'none'}</dd>
            <dt>Presented</dt>
            <dd>
              <Fingerprint value={refused.presented} />
            </dd>
          </dl>
          <div className="inline-field">
            <button type="button" className="button" disabled={props.busy} onClick={() => props.onPin([refused.presented])}>
              Pin the presented key
            </button>
          </div>
        </div>
      )}
      <form className="stack" onSubmit={submit}>
        <Field
          label="Keys to pin"
          error={invalid}
          hint="As `baton backend` prints it; one per instance when they do not share a key, separated by commas. Empty: pin none."
        >
          {({ id, describedBy }) => (
            <textarea
              id={id}
              rows={2}
              placeholder="sha256:…"
              aria-describedby={describedBy}
              aria-invalid={invalid !== null}
              value={text}
              onChange={(event) => setText(event.target.value)}
            />
          )}
        </Field>
        <div className="inline-field">
          <button type="submit" className="button" disabled={props.busy}>
            Pin these keys
          </button>
        </div>
      </form>
    </div>
  );
}
