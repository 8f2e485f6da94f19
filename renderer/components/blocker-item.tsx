/**
 * One thing that blocks a move, as the blocked alert and the Move dialog list it: what it is in a few
 * words and its sentence, the files of a dirty tree, the exact fix, the action in place (Commit with
 * a typed message, Push, on the device where the fix is made; a fresh clone, on either device of the
 * move, which the owner starts), and its code in Details. Each action says beside it that it runs as the
 * user's own git: the repository's hooks and filters run, unlike the git Baton runs on its own
 * (electron/git/repo-config-guard.ts).
 */
import { useId, useState } from 'react';
import type { Blocker } from '../../shared/readiness.ts';
import { useHandoffsStore, type BlockedPanel } from '../stores/handoffs-store.ts';
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
  shown?: BlockedPanel;
  /** Where the fix is made: null on this device, else that device's name (no action is offered here then). */
  fixOn?: string | null;
  /** Say under the fix where it is made (the alert's fixes are made on more than one device). */
  mark?: boolean;
}

/** Commit with a typed message. Not a <form>: the Move dialog, itself a form, shows it too, and forms do not nest. */
function CommitForm({ sessionId, repo, shown }: { sessionId: string; repo: string; shown?: BlockedPanel }) {
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

/** "Move into a fresh clone on …": started by the owner, or asked of it by the device the clone is made on (Move here). */
function FreshClone({ sessionId, shown }: { sessionId: string; shown: BlockedPanel }) {
  const startMove = useHandoffsStore((state) => state.startMove);
  const moveHere = useHandoffsStore((state) => state.moveHere);
  const pending = useHandoffsStore((state) => state.sessions[sessionId]?.pending);
  if (!shown.ownedHere && !shown.toHere) return null;
  const fresh = { freshClone: true, provider: shown.provider };
  const run = () =>
    shown.ownedHere
      ? startMove(sessionId, shown.targetDeviceId, shown.targetName, shown.stamp, fresh)
      : moveHere(sessionId, shown.stamp, { freshClone: true });
  return (
    <button type="button" className="button" disabled={pending !== undefined} onClick={() => void run()}>
      Move into a fresh clone on {shown.toHere ? 'this device' : shown.targetName}
    </button>
  );
}

/** Renders one blocker as a list item. */
export function BlockerItem({ sessionId, blocker, shown, fixOn = null, mark = false }: BlockerProps) {
  const push = useHandoffsStore((state) => state.push);
  const pending = useHandoffsStore((state) => state.sessions[sessionId]?.pending);
  const pushNoteId = useId();
  // Commit and Push run this device's own git: offered where the fix is made, on the device that runs the session.
  const gitHere = fixOn === null && (shown === undefined || shown.ownedHere);
  const remediation = remediationOf(blocker);
  const action = gitHere && remediation?.kind !== 'fresh-clone' ? remediation : null;
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
        {mark && <span className="muted"> — {fixOn === null ? 'here' : `on ${fixOn}`}</span>}
      </p>
      {action?.kind === 'commit' && <CommitForm sessionId={sessionId} repo={action.repo} shown={shown} />}
      {blocker.action?.kind === 'fresh-clone' && shown && <FreshClone sessionId={sessionId} shown={shown} />}
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
