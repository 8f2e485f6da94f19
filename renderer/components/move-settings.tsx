/**
 * The devices screen's "Moves from this device" settings: whether a Move carries uncommitted work
 * and unpushed commits unless told otherwise (Carry my changes by default), and the most it carries,
 * after compression. Kept in this device's profile.
 */
import { useId, useState, type FormEvent } from 'react';
import type { MoveSettings } from '../../shared/carry.ts';
import { plainMessage } from '../model/error-words.ts';
import { useStatusStore } from '../stores/status-store.ts';

/** Renders the settings card (nothing before enrollment, when the device has no profile yet), its fields as last saved. */
export function MoveSettingsCard() {
  const settings = useStatusStore((state) => state.status?.moveSettings ?? null);
  // What the last save said: kept here, as the form starts again from the settings it saved.
  const [said, setSaid] = useState<string | null>(null);
  if (settings === null) return null;
  return (
    <MoveSettingsForm key={`${settings.carryByDefault}-${settings.carryLimitMiB}`} settings={settings} said={said} setSaid={setSaid} />
  );
}

function MoveSettingsForm({
  settings,
  said,
  setSaid,
}: {
  settings: MoveSettings;
  said: string | null;
  setSaid(said: string | null): void;
}) {
  const heading = useId();
  const defaultId = useId();
  const limitId = useId();
  const busy = useStatusStore((state) => state.busy);
  const save = useStatusStore((state) => state.setMoveSettings);
  const [byDefault, setByDefault] = useState(settings.carryByDefault);
  const [limit, setLimit] = useState(String(settings.carryLimitMiB));

  async function submit(event: FormEvent) {
    event.preventDefault();
    const limitMiB = Number(limit);
    if (!Number.isInteger(limitMiB) || limitMiB < 1 || limitMiB > 16_384) {
      setSaid('The limit is a whole number of MiB, from 1 to 16384.');
      return;
    }
    const refused = await save({ carryByDefault: byDefault, carryLimitMiB: limitMiB });
    setSaid(refused ? `${plainMessage(refused)} The settings stay as they were.` : 'Saved.');
  }

  return (
    <section className="card" aria-labelledby={heading}>
      <h2 id={heading}>Moves from this device</h2>
      <form className="stack" onSubmit={(event) => void submit(event)}>
        <div className="carry-choice">
          <input
            type="checkbox"
            id={defaultId}
            checked={byDefault}
            aria-describedby={`${defaultId}-what`}
            onChange={(event) => setByDefault(event.target.checked)}
          />
          <label htmlFor={defaultId}>Carry my changes by default</label>
        </div>
        <p id={`${defaultId}-what`} className="muted">
          A move takes uncommitted changes and unpushed commits along, sealed, instead of asking you to commit and push first. Files that
          look like secrets are still named for you to confirm, and your copy here is kept in a git stash.
        </p>
        <label htmlFor={limitId} className="field-label">
          Most this device carries (MiB, compressed)
        </label>
        <div className="inline-field">
          <input id={limitId} type="number" value={limit} onChange={(event) => setLimit(event.target.value)} />
          <button type="submit" className="button" disabled={busy}>
            Save
          </button>
          <span className="muted" aria-live="polite">
            {said ?? ''}
          </span>
        </div>
      </form>
    </section>
  );
}
