/**
 * The `dialog` "New session": workspace path, provider (the demo agent labelled "Demo agent"), the
 * permission level for agents that have levels, prompt — or, for Claude Code and Codex, one of this
 * machine's existing sessions of the workspace to adopt instead.
 */
import { useEffect, useId, useState, type FormEvent } from 'react';
import { DEFAULT_PERMISSION_LEVEL, PERMISSION_LABELS, PermissionLevel } from '../../shared/provider.ts';
import { errorMessage } from '../api/device-api.ts';
import { ExistingSessions } from '../components/existing-sessions.tsx';
import { Modal } from '../components/modal.tsx';
import { navigate } from '../hooks/use-route.ts';
import { useSessionsStore } from '../stores/sessions-store.ts';

/** Renders the New session dialog; on Start it opens the new session's run view. */
export function NewSessionDialog({ onClose }: { onClose(): void }) {
  const providers = useSessionsStore((state) => state.providers);
  const loadProviders = useSessionsStore((state) => state.loadProviders);
  const startSession = useSessionsStore((state) => state.startSession);
  const [workspace, setWorkspace] = useState('');
  const [provider, setProvider] = useState('');
  const [title, setTitle] = useState('');
  const [prompt, setPrompt] = useState('');
  const fieldId = useId();
  const [permission, setPermission] = useState<PermissionLevel>(DEFAULT_PERMISSION_LEVEL);
  const chosen = providers.find((p) => p.id === provider);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    loadProviders().catch((failure: unknown) => setError(errorMessage(failure)));
  }, [loadProviders]);
  useEffect(() => {
    if (provider === '') setProvider(providers.find((p) => p.available)?.id ?? '');
  }, [providers, provider]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setPending(true);
    setError(null);
    try {
      const started = await startSession({
        workspace: workspace.trim(),
        provider,
        prompt,
        ...(title.trim() ? { title: title.trim() } : {}),
        ...(chosen?.permissions ? { permission } : {}),
      });
      if (!started.ok) {
        setError(started.message);
        setPending(false);
        return;
      }
      onClose();
      navigate({ screen: 'session', sessionId: started.value.id });
    } catch (failure) {
      setError(errorMessage(failure));
      setPending(false);
    }
  }

  return (
    <Modal title="New session" description="Runs an agent in a git workspace on this device." onClose={onClose}>
      <form className="modal-body stack" onSubmit={submit}>
        <label className="field">
          <span className="field-label">Workspace</span>
          <input
            type="text"
            required
            value={workspace}
            placeholder="/home/you/src/project"
            spellCheck={false}
            onChange={(event) => setWorkspace(event.target.value)}
          />
          <span className="field-hint">A folder that is a git repository, or holds several.</span>
        </label>
        <label className="field">
          <span className="field-label">Provider</span>
          <select required value={provider} onChange={(event) => setProvider(event.target.value)}>
            {providers.length === 0 && <option value="">Loading providers…</option>}
            {providers.map((p) => (
              <option key={p.id} value={p.id} disabled={!p.available}>
                {p.available ? p.label : `${p.label} (not installed)`}
              </option>
            ))}
          </select>
        </label>
        {chosen?.permissions && (
          <div className="field">
            {/* Named by its label alone: a wrapping label would fold the chosen level into the name. */}
            <label className="field-label" htmlFor={`${fieldId}-permissions`}>
              Permissions
            </label>
            <select
              id={`${fieldId}-permissions`}
              aria-describedby={`${fieldId}-permissions-hint`}
              value={permission}
              onChange={(event) => setPermission(PermissionLevel.parse(event.target.value))}
            >
              {PermissionLevel.options.map((level) => (
                <option key={level} value={level}>
                  {PERMISSION_LABELS[level]}
                </option>
              ))}
            </select>
            <span id={`${fieldId}-permissions-hint`} className="field-hint">
              What the agent may do without asking; a move keeps it.
            </span>
          </div>
        )}
        <label className="field">
          <span className="field-label">
            Title <span className="muted">(optional)</span>
          </span>
          <input type="text" maxLength={200} value={title} onChange={(event) => setTitle(event.target.value)} />
        </label>
        <label className="field">
          <span className="field-label">Prompt</span>
          <textarea rows={5} value={prompt} onChange={(event) => setPrompt(event.target.value)} placeholder="What should the agent do?" />
        </label>
        {chosen?.adoption && (
          <ExistingSessions
            workspace={workspace.trim()}
            provider={chosen}
            permission={permission}
            onAdopted={(sessionId) => {
              onClose();
              navigate({ screen: 'session', sessionId });
            }}
          />
        )}
        <p className="form-error" aria-live="polite">
          {error ?? ''}
        </p>
        <div className="modal-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button--primary" disabled={pending || provider === '' || workspace.trim() === ''}>
            {pending ? 'Starting…' : 'Start'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
