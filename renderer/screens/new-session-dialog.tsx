/**
 * The `dialog` "New session": workspace path, provider (the demo agent labelled "Demo agent"), the
 * permission level for agents that have levels, prompt — or, for Claude Code and Codex, one of this
 * machine's existing sessions of the workspace to adopt instead.
 */
import { useEffect, useId, useState, type FormEvent } from 'react';
import { DEFAULT_PERMISSION_LEVEL, PERMISSION_LABELS, PermissionLevel } from '../../shared/provider.ts';
import { failureOf, newSessionField, newSessionWords, plainMessage, type WorkspaceField } from '../model/error-words.ts';
import { ExistingSessions } from '../components/existing-sessions.tsx';
import { Field } from '../components/field.tsx';
import { FormError } from '../components/form-error.tsx';
import { Modal, ModalActions } from '../components/modal.tsx';
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
  const [errors, setErrors] = useState<Partial<Record<WorkspaceField, string>>>({});

  useEffect(() => {
    loadProviders().catch((failure: unknown) => setErrors({ provider: plainMessage(failureOf(failure)) }));
  }, [loadProviders]);
  useEffect(() => {
    if (provider === '') setProvider(providers.find((p) => p.available)?.id ?? '');
  }, [providers, provider]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setPending(true);
    setErrors({});
    try {
      const started = await startSession({
        workspace: workspace.trim(),
        provider,
        prompt,
        ...(title.trim() ? { title: title.trim() } : {}),
        ...(chosen?.permissions ? { permission } : {}),
      });
      if (!started.ok) {
        setErrors({ [newSessionField(started)]: newSessionWords(started) });
        setPending(false);
        return;
      }
      onClose();
      navigate({ screen: 'session', sessionId: started.value.id });
    } catch (failure) {
      setErrors({ form: plainMessage(failureOf(failure)) });
      setPending(false);
    }
  }

  return (
    <Modal title="New session" description="Runs an agent in a git workspace on this device." onClose={onClose}>
      <form className="modal-form" onSubmit={submit}>
        <div className="modal-body stack">
          <Field label="Workspace" error={errors.workspace} hint="A folder that is a git repository, or holds several.">
            {({ id, describedBy }) => (
              <input
                id={id}
                type="text"
                required
                value={workspace}
                placeholder="/home/you/src/project"
                spellCheck={false}
                aria-invalid={errors.workspace !== undefined}
                aria-describedby={describedBy}
                onChange={(event) => setWorkspace(event.target.value)}
              />
            )}
          </Field>
          <div className="field">
            <label className="field-label" htmlFor={`${fieldId}-provider`}>
              Provider
            </label>
            <select
              id={`${fieldId}-provider`}
              required
              value={provider}
              aria-invalid={errors.provider !== undefined}
              aria-describedby={errors.provider ? `${fieldId}-provider-note` : undefined}
              onChange={(event) => setProvider(event.target.value)}
            >
              {providers.length === 0 && <option value="">Loading providers…</option>}
              {providers.map((p) => (
                <option key={p.id} value={p.id} disabled={!p.available}>
                  {p.available ? p.label : `${p.label} (not installed)`}
                </option>
              ))}
            </select>
            {errors.provider && (
              <span id={`${fieldId}-provider-note`} className="form-error">
                {errors.provider}
              </span>
            )}
          </div>
          {chosen?.permissions && (
            // Named by its label alone: a wrapping label would fold the chosen level into the name.
            <Field label="Permissions" hint="What the agent may do without asking; a move keeps it.">
              {({ id, describedBy }) => (
                <select
                  id={id}
                  aria-describedby={describedBy}
                  value={permission}
                  onChange={(event) => setPermission(PermissionLevel.parse(event.target.value))}
                >
                  {PermissionLevel.options.map((level) => (
                    <option key={level} value={level}>
                      {PERMISSION_LABELS[level]}
                    </option>
                  ))}
                </select>
              )}
            </Field>
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
          <FormError message={errors.form} />
        </div>
        <ModalActions
          onCancel={onClose}
          submitLabel="Start"
          pendingLabel="Starting…"
          pending={pending}
          disabled={provider === '' || workspace.trim() === ''}
        />
      </form>
    </Modal>
  );
}
