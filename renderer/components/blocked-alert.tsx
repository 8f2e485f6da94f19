/**
 * The "Handoff blocked" alert: each blocker's code, sentence and fix, the explicit remediation
 * actions (Push; Commit with a typed message), and "Check again", which retries the move. Each
 * action says beside it that it runs as the user's own git: the repository's hooks and filters
 * run, unlike the git Baton runs on its own (electron/git/repo-config-guard.ts).
 */
import { useId, useState, type FormEvent } from 'react';
import type { Blocker } from '../../shared/readiness.ts';
import { useHandoffsStore, type BlockedMove } from '../stores/handoffs-store.ts';
import { remediationOf } from './session-state.ts';

function fileList(blocker: Blocker): string[] {
  const files = blocker.details?.['files'];
  return Array.isArray(files) ? files.filter((file): file is string => typeof file === 'string').slice(0, 8) : [];
}

/** What an action's note says: it is the user's own git, hooks included. */
const AS_YOUR_GIT = {
  commit: "Runs git add -A and git commit as your own git would: this repository's hooks (pre-commit…) and filters run.",
  push: "Runs git push as your own git would: this repository's pre-push hook and your credentials are used.",
} as const;

function CommitForm({ sessionId, repo }: { sessionId: string; repo: string }) {
  const inputId = useId();
  const noteId = useId();
  const [message, setMessage] = useState('');
  const commit = useHandoffsStore((state) => state.commit);
  const pending = useHandoffsStore((state) => state.pending[sessionId]);
  async function submit(event: FormEvent) {
    event.preventDefault();
    if (message.trim() === '') return;
    if (await commit(sessionId, repo, message)) setMessage('');
  }
  return (
    <form className="remediation remediation--commit" onSubmit={submit}>
      <label htmlFor={inputId} className="field-label">
        Commit message
      </label>
      <div className="inline-field">
        <input
          id={inputId}
          type="text"
          value={message}
          onChange={(event) => setMessage(event.target.value)}
          placeholder="Describe the change"
        />
        <button type="submit" className="button" aria-describedby={noteId} disabled={message.trim() === '' || pending !== undefined}>
          {pending === 'commit' ? 'Committing…' : 'Commit'}
        </button>
      </div>
      <p id={noteId} className="remediation-note">
        {AS_YOUR_GIT.commit}
      </p>
    </form>
  );
}

function BlockerItem({ sessionId, blocker, blocked }: { sessionId: string; blocker: Blocker; blocked: BlockedMove }) {
  const push = useHandoffsStore((state) => state.push);
  const startMove = useHandoffsStore((state) => state.startMove);
  const pending = useHandoffsStore((state) => state.pending[sessionId]);
  const pushNoteId = useId();
  const action = remediationOf(blocker);
  const files = fileList(blocker);
  const more = typeof blocker.details?.['fileCount'] === 'number' ? (blocker.details['fileCount'] as number) - files.length : 0;
  return (
    <li className="blocker">
      <div className="blocker-head">
        <code className="blocker-code">{blocker.code}</code>
        {blocker.repo && <span className="blocker-repo">{blocker.repo}</span>}
      </div>
      <p className="blocker-message">{blocker.message}</p>
      {files.length > 0 && (
        <ul className="blocker-files">
          {files.map((file) => (
            <li key={file}>
              <code>{file}</code>
            </li>
          ))}
          {more > 0 && <li className="muted">and {more} more</li>}
        </ul>
      )}
      <p className="blocker-fix">
        <span className="fix-label">Fix</span> <code>{blocker.fix}</code>
      </p>
      {action?.kind === 'commit' && <CommitForm sessionId={sessionId} repo={action.repo} />}
      {blocker.action?.kind === 'fresh-clone' && (
        <button
          type="button"
          className="button"
          disabled={pending !== undefined}
          onClick={() => void startMove(sessionId, blocked.targetDeviceId, blocked.targetName, true)}
        >
          Move into a fresh clone on {blocked.targetName}
        </button>
      )}
      {action?.kind === 'push' && (
        <div className="remediation">
          <button
            type="button"
            className="button"
            aria-describedby={pushNoteId}
            disabled={pending !== undefined}
            onClick={() => void push(sessionId, action.repo)}
          >
            {pending === 'push' ? 'Pushing…' : 'Push'}
          </button>
          <p id={pushNoteId} className="remediation-note">
            {AS_YOUR_GIT.push}
          </p>
        </div>
      )}
    </li>
  );
}

/** Renders the `alert` "Handoff blocked" for a blocked move of `sessionId`. */
export function BlockedAlert({ sessionId, blocked }: { sessionId: string; blocked: BlockedMove }) {
  const headingId = useId();
  const checkAgain = useHandoffsStore((state) => state.checkAgain);
  const dismiss = useHandoffsStore((state) => state.dismissBlocked);
  const pending = useHandoffsStore((state) => state.pending[sessionId]);
  const { blockers } = blocked.report;
  return (
    <section className="blocked-alert" role="alert" aria-labelledby={headingId}>
      <div className="blocked-head">
        <h2 id={headingId}>Handoff blocked</h2>
        <p>
          Moving to <strong>{blocked.targetName}</strong> stopped before anything moved.
          {blockers.length > 0
            ? ' Fix each item on this device, then check again.'
            : ' Nothing blocks the move now — check again to start it.'}
        </p>
      </div>
      {blockers.length > 0 && (
        <ul className="blocker-list">
          {blockers.map((blocker, index) => (
            <BlockerItem key={`${blocker.code}-${blocker.repo ?? ''}-${index}`} sessionId={sessionId} blocker={blocker} blocked={blocked} />
          ))}
        </ul>
      )}
      {blocked.actionError && <p className="form-error">{blocked.actionError}</p>}
      <div className="blocked-actions">
        <button
          type="button"
          className="button button--primary"
          disabled={pending !== undefined}
          onClick={() => void checkAgain(sessionId, blocked)}
        >
          {pending === 'move' ? 'Checking…' : 'Check again'}
        </button>
        <button type="button" className="button button--quiet" onClick={() => dismiss(sessionId)}>
          Dismiss
        </button>
      </div>
    </section>
  );
}
