/**
 * The run view: header; ownership strip, agent map and history beside the blocked alert, transcript
 * and message box. Its panels are derived from the session's state now (model/run-panels.ts); a
 * dialog that only the owner may use closes once the session is no longer owned here.
 */
import { useEffect, useState } from 'react';
import type { SessionDetail } from '../../shared/device-api.ts';
import { PERMISSION_LABELS } from '../../shared/provider.ts';
import { AgentMap } from '../components/agent-map.tsx';
import { BlockedAlert } from '../components/blocked-alert.tsx';
import { HandoffHistory } from '../components/handoff-history.tsx';
import { MessageBox } from '../components/message-box.tsx';
import { MoveDialog } from '../components/move-dialog.tsx';
import { OwnershipStrip } from '../components/ownership-strip.tsx';
import { SwitchAgentDialog } from '../components/switch-agent-dialog.tsx';
import { PermissionRequest } from '../components/permission-request.tsx';
import { sessionTone } from '../model/session-state.ts';
import { stampOf, type LastMovePanel } from '../model/run-panels.ts';
import { Transcript } from '../components/transcript.tsx';
import { useNow } from '../hooks/use-now.ts';
import { useRunPanels } from '../stores/handoffs-store.ts';
import { useSessionsStore } from '../stores/sessions-store.ts';

/** Where the session's files are, for the header: this device's folder on the owner; elsewhere the owner, and its folder when the last move said it. */
function WhereItems({ session, lastMove }: { session: SessionDetail; lastMove: LastMovePanel | null }) {
  if (session.isOwner) return session.workspace ? <span className="run-meta-item mono">{session.workspace}</span> : null;
  const folder = lastMove?.kind === 'completed' ? lastMove.handoff.targetFolder?.path : undefined;
  return (
    <>
      <span className="run-meta-item">Runs on {session.ownerName}</span>
      {folder && <span className="run-meta-item mono">{folder}</span>}
    </>
  );
}

function RunViewBody({ session }: { session: SessionDetail }) {
  const [moving, setMoving] = useState(false);
  const [switching, setSwitching] = useState(false);
  const panels = useRunPanels(session, useNow(false));
  const { blocked } = panels;
  const providers = useSessionsStore((state) => state.providers);
  const providerLabel = providers.find((p) => p.id === session.provider)?.label ?? session.provider;
  const tone = sessionTone(session, blocked !== null && !blocked.ready);
  // The dialogs act on a session owned here: once it is not (it moved, a move began), they close.
  const ownedHere = session.isOwner && session.condition === 'owned';
  useEffect(() => {
    if (!ownedHere) {
      setMoving(false);
      setSwitching(false);
    }
  }, [ownedHere]);
  return (
    <div className={`run-view tone--${tone}`}>
      <header className="run-header">
        <div className="run-title-row">
          <h1>{session.title}</h1>
          {session.isOwner && (
            <button
              type="button"
              className="button button--quiet run-switch"
              disabled={session.condition !== 'owned' || session.inputBlock !== null}
              title={session.condition === 'owned' ? undefined : 'Switch the agent once the session runs here.'}
              onClick={() => setSwitching(true)}
            >
              Switch agent
            </button>
          )}
        </div>
        <p className="run-meta">
          <WhereItems session={session} lastMove={panels.lastMove} />
          <span className="run-meta-item">{providerLabel}</span>
          {session.permission && <span className="run-meta-item">Permissions: {PERMISSION_LABELS[session.permission]}</span>}
        </p>
      </header>
      <div className="run-grid">
        <div className="run-side">
          <OwnershipStrip session={session} onMove={() => setMoving(true)} />
          <AgentMap agents={session.agents} />
          <HandoffHistory sessionId={session.id} provider={session.provider} />
        </div>
        <div className="run-main">
          {blocked && <BlockedAlert sessionId={session.id} blocked={blocked} />}
          <Transcript key={session.id} session={session} />
          <PermissionRequest session={session} />
          <MessageBox session={session} />
        </div>
      </div>
      {switching && ownedHere && <SwitchAgentDialog session={session} onClose={() => setSwitching(false)} />}
      {moving && ownedHere && (
        <MoveDialog sessionId={session.id} sessionTitle={session.title} drawnFor={stampOf(session)} onClose={() => setMoving(false)} />
      )}
    </div>
  );
}

/** Renders the run view of `sessionId`, loading its detail once; events keep it live. */
export function RunView({ sessionId }: { sessionId: string }) {
  const detail = useSessionsStore((state) => state.details[sessionId]);
  const loadDetail = useSessionsStore((state) => state.loadDetail);
  const loadProviders = useSessionsStore((state) => state.loadProviders);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setError(null);
    loadDetail(sessionId).catch((failure: unknown) => setError(failure instanceof Error ? failure.message : String(failure)));
    loadProviders().catch(() => undefined);
  }, [sessionId, loadDetail, loadProviders]);

  if (detail === undefined)
    return (
      <p className="muted page-pad" role="status">
        {error ?? 'Loading session…'}
      </p>
    );
  if (detail === null) {
    return (
      <div className="page-pad">
        <h1>Session not found</h1>
        <p className="muted">This device does not know that session. Pick one from the list.</p>
      </div>
    );
  }
  return <RunViewBody session={detail} />;
}
