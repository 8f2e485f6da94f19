/**
 * The Devices screen's "Account keys": Rotate keys asks first what it does (a new key version for
 * every device still in the account; old checkpoints stay readable), then says right under the
 * button how it went.
 */
import { useId, useState } from 'react';
import { needsBackendReason } from '../model/backend-reach.ts';
import { useDevicesStore } from '../stores/devices-store.ts';
import { useStatusStore } from '../stores/status-store.ts';
import { Modal } from './modal.tsx';

/** Renders the card with Rotate keys, its confirmation and its outcome. */
export function AccountKeys() {
  const headingId = useId();
  const rotateKeys = useDevicesStore((state) => state.rotateKeys);
  const busy = useDevicesStore((state) => state.busy);
  const backendReason = useStatusStore((state) => needsBackendReason(state.status));
  const [confirming, setConfirming] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);

  async function rotate() {
    setConfirming(false);
    setOutcome(null);
    const rotated = await rotateKeys();
    setOutcome(
      rotated.ok
        ? { ok: true, text: `Keys rotated to version ${rotated.keyVersion}. New checkpoints use the new key.` }
        : { ok: false, text: rotated.message },
    );
  }

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>Account keys</h2>
      <p className="muted">
        Rotating makes a new key version shared with the remaining devices. New checkpoints use it; old ones stay readable.
      </p>
      <button
        type="button"
        className="button"
        disabled={busy || backendReason !== null}
        title={backendReason ?? undefined}
        onClick={() => {
          setOutcome(null);
          setConfirming(true);
        }}
      >
        Rotate keys
      </button>
      <p className={outcome?.ok === false ? 'form-error' : 'notice-line'} role="status">
        {outcome?.text ?? ''}
      </p>
      {confirming && (
        <Modal
          title="Rotate the account keys"
          description="A new key version is made and shared with every device still in the account; a device that is offline gets it before it next seals anything. New checkpoints are sealed with it, and old ones stay readable."
          onClose={() => setConfirming(false)}
        >
          <div className="modal-actions">
            <button type="button" className="button" onClick={() => setConfirming(false)}>
              Keep the current keys
            </button>
            <button type="button" className="button button--primary" onClick={() => void rotate()}>
              Rotate keys
            </button>
          </div>
        </Modal>
      )}
    </section>
  );
}
