/**
 * First run: create an account — its sync backend running on this device (the default when no
 * backend is configured) or on one that runs elsewhere — or join an existing one with an invite.
 * Every refusal is a sentence with the next step, shown next to the field it is about; a join whose
 * backend does not answer says which addresses it tried and why that may be, with Try again.
 */
import { useId, useState, type FormEvent } from 'react';
import { formatBackendList, parseBackendList } from '../../shared/backend-addresses.ts';
import type { BackendKeyProbe } from '../../shared/backend-keys.ts';
import { BackendAddressesField } from '../components/backend-addresses-field.tsx';
import { BackendKeyConfirm, keysToConfirm } from '../components/backend-key.tsx';
import { enrollmentField, enrollmentWords, plainMessage, type EnrollmentField } from '../model/error-words.ts';
import { Field } from '../components/field.tsx';
import { FormError } from '../components/form-error.tsx';
import { useStatusStore } from '../stores/status-store.ts';

const ADDRESS_HINT = 'One address, or several instances of one backend separated by commas; tried in order.';
const NAME_REQUIRED = 'Give this device a name, such as “Work laptop”: the other devices show it.';

type Errors = Partial<Record<EnrollmentField, string>>;

/** An invite as pasted from a wrapped terminal or a mail: its spaces and line breaks are not part of it. */
export function cleanInvite(text: string): string {
  return text.replace(/\s+/g, '');
}

/** The "Device name" field of either form. */
function DeviceNameField(props: { value: string; onChange(value: string): void; error: string | undefined; placeholder: string }) {
  return (
    <Field label="Device name" error={props.error}>
      {({ id, describedBy }) => (
        <input
          id={id}
          type="text"
          maxLength={100}
          placeholder={props.placeholder}
          aria-invalid={props.error !== undefined}
          aria-describedby={describedBy}
          value={props.value}
          onChange={(event) => props.onChange(event.target.value)}
        />
      )}
    </Field>
  );
}

/** Where the new account's backend runs: this device hosts it, or one that runs elsewhere (addresses given). */
function BackendChoice(props: { hosted: boolean; onChange(hosted: boolean): void }) {
  const name = useId();
  return (
    <fieldset className="choice">
      <legend className="field-label">Sync backend</legend>
      <label className="choice-option">
        <input type="radio" name={name} checked={props.hosted} onChange={() => props.onChange(true)} />
        <span>
          On this device
          <span className="field-hint">Other devices reach it here; you let other machines reach it from Devices.</span>
        </span>
      </label>
      <label className="choice-option">
        <input type="radio" name={name} checked={!props.hosted} onChange={() => props.onChange(false)} />
        <span>
          One that runs elsewhere
          <span className="field-hint">
            A backend you run on a server or another machine (<code>baton backend</code>).
          </span>
        </span>
      </label>
    </fieldset>
  );
}

function CreateAccount() {
  const heading = useId();
  const status = useStatusStore((state) => state.status);
  const busy = useStatusStore((state) => state.busy);
  const createAccount = useStatusStore((state) => state.createAccount);
  const checkBackendKeys = useStatusStore((state) => state.checkBackendKeys);
  const [backendUrls, setBackendUrls] = useState(formatBackendList(status?.backendUrls ?? []));
  // Hosted here unless a backend is configured already.
  const [hosted, setHosted] = useState((status?.backendUrls ?? []).length === 0);
  const [deviceName, setDeviceName] = useState(status?.deviceName ?? '');
  const [errors, setErrors] = useState<Errors>({});
  /** First contact's keys that await the person's word, for the addresses they were found at. */
  const [toConfirm, setToConfirm] = useState<{ urls: string[]; probes: BackendKeyProbe[] } | null>(null);
  const create = async (urls: string[] | null, pins?: string[]) => {
    const refused = await createAccount(urls, deviceName.trim(), pins);
    if (refused) setErrors({ [urls === null ? 'form' : enrollmentField(refused)]: enrollmentWords(refused) });
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setToConfirm(null);
    if (hosted) {
      const named = deviceName.trim() !== '';
      setErrors(named ? {} : { name: NAME_REQUIRED });
      if (named) await create(null);
      return;
    }
    const parsed = parseBackendList(backendUrls);
    const found: Errors = {};
    if (!parsed.ok) found.backend = parsed.message;
    if (deviceName.trim() === '') found.name = NAME_REQUIRED;
    setErrors(found);
    if (!parsed.ok || found.name) return;
    // First contact: a key no trusted authority vouches for is shown to be confirmed before the account is made.
    const probed = await checkBackendKeys(parsed.value);
    if (probed === null) {
      setErrors({ backend: plainMessage({ message: useStatusStore.getState().error ?? 'The backend could not be reached.' }) });
      return;
    }
    const probes = keysToConfirm(probed);
    if (probes.length > 0) setToConfirm({ urls: parsed.value, probes });
    else await create(parsed.value);
  };
  const confirm = () => {
    if (!toConfirm) return;
    const pins = toConfirm.probes.map((probe) => probe.presented!);
    void create(toConfirm.urls, [...new Set(pins)]);
  };
  return (
    <section className="card setup-card" aria-labelledby={heading}>
      <h2 id={heading}>Create an account</h2>
      <p className="muted">Start fresh. This device becomes the first one of a new account and holds its first key.</p>
      <form className="stack" onSubmit={(event) => void submit(event)} noValidate>
        <BackendChoice
          hosted={hosted}
          onChange={(value) => {
            setHosted(value);
            setToConfirm(null);
            setErrors({});
          }}
        />
        {!hosted && (
          <BackendAddressesField
            label="Backend addresses"
            required
            placeholder="https://10.0.0.5:8787"
            hint={ADDRESS_HINT}
            invalid={errors.backend ?? null}
            value={backendUrls}
            onChange={(value) => {
              setBackendUrls(value);
              setToConfirm(null);
            }}
          />
        )}
        <DeviceNameField value={deviceName} onChange={setDeviceName} error={errors.name} placeholder="e.g. Work laptop" />
        <FormError message={errors.form} />
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
  const [errors, setErrors] = useState<Errors>({});
  /** The invite's backend answered at none of its addresses: the sentence names them, and the button tries again. */
  const [unreachable, setUnreachable] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setUnreachable(false);
    // Empty: the addresses the invite carries.
    const parsed = backendUrls.trim() === '' ? null : parseBackendList(backendUrls);
    const found: Errors = {};
    if (parsed && !parsed.ok) found.backend = parsed.message;
    if (cleanInvite(invite) === '') found.invite = 'Paste the invite made on a device already in the account (Devices → Add a device).';
    if (deviceName.trim() === '') found.name = NAME_REQUIRED;
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    const refused = await joinAccount(cleanInvite(invite), deviceName.trim(), parsed?.ok ? parsed.value : undefined);
    if (refused?.code === 'backend_unreachable') {
      setUnreachable(true);
      setErrors({ form: enrollmentWords(refused) });
    } else if (refused) setErrors({ [enrollmentField(refused)]: enrollmentWords(refused) });
  };
  return (
    <section className="card setup-card" aria-labelledby={heading}>
      <h2 id={heading}>Join with an invite</h2>
      <p className="muted">Already use Baton elsewhere? On an enrolled device open Devices → Add a device, then paste the invite here.</p>
      <form className="stack" onSubmit={(event) => void submit(event)} noValidate>
        <Field label="Invite" error={errors.invite}>
          {({ id, describedBy }) => (
            <textarea
              id={id}
              rows={3}
              spellCheck={false}
              aria-invalid={errors.invite !== undefined}
              aria-describedby={describedBy}
              value={invite}
              onChange={(event) => setInvite(event.target.value)}
            />
          )}
        </Field>
        <DeviceNameField value={deviceName} onChange={setDeviceName} error={errors.name} placeholder="e.g. Home desktop" />
        <details className="join-addresses" open={errors.backend !== undefined || backendUrls !== '' ? true : undefined}>
          <summary>Other backend addresses</summary>
          <BackendAddressesField
            label="Backend addresses (optional)"
            placeholder="the invite's"
            hint="Leave empty to use the addresses the invite carries, tried in turn."
            invalid={errors.backend ?? null}
            value={backendUrls}
            onChange={setBackendUrls}
          />
        </details>
        <FormError message={errors.form} />
        <button type="submit" className="button" disabled={busy || joining}>
          {joining ? 'Waiting for approval…' : busy ? 'Reaching the backend…' : unreachable ? 'Try again' : 'Join'}
        </button>
      </form>
    </section>
  );
}

/** Renders the first-run screen inside `main`. */
export function FirstRun() {
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
      <div className="setup-grid">
        <CreateAccount />
        <JoinAccount />
      </div>
    </div>
  );
}
