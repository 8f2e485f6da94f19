/**
 * One thing that blocks a move, as the blocked alert and the Move dialog list it: what it is in a few
 * words and its sentence, the files of a dirty tree, the exact fix, the action in place (Commit with
 * a typed message, Push), and its code in Details. Each action says beside it that it runs as the
 * user's own git: the repository's hooks and filters run, unlike the git Baton runs on its own
 * (electron/git/repo-config-guard.ts).
 */
import { useId, useState } from 'react';
import type { Blocker } from '../../shared/readiness.ts';
import { useHandoffsStore, type BlockedMove } from '../stores/handoffs-store.ts';
import { blockerWords } from '../model/readiness-words.ts';
import { remediationOf } from '../model/session-state.ts';

/** What an action's note says: it is the user's own git, hooks included. */
const AS_YOUR_GIT = {
  commit: "Runs git add -A and git commit as your own git would: this repository's hooks (pre-commit…) and filters run.",
  push: "Runs git push as your own git would: this repository's pre-push hook and your credentials are used.",
} as const;

function fileList(blocker: Blocker): string[] {
  const files = blocker.details?.['files'];
  return Array.isArray(files) ? files.filter((file): file is string => typeof file === 'string').slice(0, 8) : [];
}

interface BlockerProps {
  sessionId: string;
  blocker: Blocker;
  /** The blocked move on screen, whose report a remediation's fresh evaluation replaces (none in the Move dialog). */
  shown?: BlockedMove;
  /** Off the owner, the owner's name: the fix is done there, so no action is offered here. */
  actsOn?: string | null;
}

/** Commit with a typed message. Not a <form>: the Move dialog, itself a form, shows it too, and forms do not nest. */
function CommitForm({ sessionId, repo, shown }: { sessionId: string; repo: string; shown?: BlockedMove }) {
  const inputId = useId();
  const noteId = useId();
  const [message, setMessage] = useState('');
  const commit = useHandoffsStore((state) => state.commit);
  const pending = useHandoffsStore((state) => state.sessions[sessionId]?.pending);
  async function submit() {
    if (message.trim() === '' || pending !== undefined) return;
    if (await commit(sessionId, repo, message, shown)) setMessage('');
  }
  return (
    <div className="remediation remediation--commit">
      <label htmlFor={inputId} className="field-label">
        Commit message
      </label>
      <div className="inline-field">
        <input
          id={inputId}
          type="text"
          value={message}
          onChange={(event) => setMessage(event.target.value)}
          onKeyDown={(event) => {
            if (event.key !== 'Enter') return;
            event.preventDefault();
            void submit();
          }}
          placeholder="Describe the change"
        />
        <button
          type="button"
          className="button"
          aria-describedby={noteId}
          disabled={message.trim() === '' || pending !== undefined}
          onClick={() => void submit()}
        >
          {pending === 'commit' ? 'Committing…' : 'Commit'}
        </button>
      </div>
      <p id={noteId} className="remediation-note">
        {AS_YOUR_GIT.commit}
      </p>
    </div>
  );
}

/** Renders one blocker as a list item. */
export function BlockerItem({ sessionId, blocker, shown, actsOn = null }: BlockerProps) {
  const push = useHandoffsStore((state) => state.push);
  const startMove = useHandoffsStore((state) => state.startMove);
  const pending = useHandoffsStore((state) => state.sessions[sessionId]?.pending);
  const pushNoteId = useId();
  const action = actsOn === null ? remediationOf(blocker) : null;
  const files = fileList(blocker);
  const more = typeof blocker.details?.['fileCount'] === 'number' ? (blocker.details['fileCount'] as number) - files.length : 0;
  return (
    <li className="blocker">
      <div className="blocker-head">
        <strong className="blocker-what">{blockerWords(blocker)}</strong>
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
        {actsOn !== null && remediationOf(blocker) && <span className="muted"> — on {actsOn}</span>}
      </p>
      {action?.kind === 'commit' && <CommitForm sessionId={sessionId} repo={action.repo} shown={shown} />}
      {blocker.action?.kind === 'fresh-clone' && shown && (
        <button
          type="button"
          className="button"
          disabled={pending !== undefined}
          onClick={() => void startMove(sessionId, shown.targetDeviceId, shown.targetName, { freshClone: true, provider: shown.provider })}
        >
          Move into a fresh clone on {shown.targetName}
        </button>
      )}
      {action?.kind === 'push' && (
        <div className="remediation">
          <button
            type="button"
            className="button"
            aria-describedby={pushNoteId}
            disabled={pending !== undefined}
            onClick={() => void push(sessionId, action.repo, shown)}
          >
            {pending === 'push' ? 'Pushing…' : 'Push'}
          </button>
          <p id={pushNoteId} className="remediation-note">
            {AS_YOUR_GIT.push}
          </p>
        </div>
      )}
      <details className="blocker-details">
        <summary>Details</summary>
        <code>{blocker.code}</code>
      </details>
    </li>
  );
}
